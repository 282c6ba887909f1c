// Staged backpressure (seed 000 "Backpressure Handling", issue 23): a partition passes
// through stages as it fills, each with its own answer to producers.
//
//   normal    depth ≤ throttleLine            accepted as they come
//   throttle  throttleLine < depth ≤ policyLine
//                                              accepted, delayed by
//                                                min(throttleMaxDelayMs, throttleDelayMs × past)
//                                              (past = executions beyond throttleLine once these
//                                              are in) and the producer is told retryAfterMs
//   policy    depth > policyLine               the task's policy (core/backpressure.ts) on what
//                                              is past policyLine (reject / shed / spill /
//                                              throttle, exactly as at maxDepth without stages)
//
// throttleLine = ceil(maxDepth × throttleAtPercent / 100), policyLine = ceil(maxDepth ×
// policyAtPercent / 100). Without `stages` both lines are maxDepth: one stage, today's
// behaviour. A partition's stage is stageOf(its depth): with depth d an arrival lands at
// d + 1, so a partition in the throttle stage throttles its next arrival and one in the
// policy stage hands it to the policy.
// Pure: no I/O imports (server/core rule).
import { decideBackpressure, type BackpressureDecision } from './backpressure';
import type { TaskDefinition } from './task-definition';

export const BACKPRESSURE_STAGES = ['normal', 'throttle', 'policy'] as const;
export type BackpressureStage = (typeof BACKPRESSURE_STAGES)[number];

export interface StageLines {
  throttleLine: number;
  policyLine: number;
}

type Bp = TaskDefinition['backpressure'];

/** The depths at which the throttle and the policy stages begin (see the header). */
export function stageLines(bp: Pick<Bp, 'maxDepth' | 'stages'>): StageLines {
  if (!bp.stages) return { throttleLine: bp.maxDepth, policyLine: bp.maxDepth };
  const line = (pct: number) => Math.max(1, Math.min(bp.maxDepth, Math.ceil((bp.maxDepth * pct) / 100)));
  const policyLine = line(bp.stages.policyAtPercent);
  return { throttleLine: Math.min(policyLine, line(bp.stages.throttleAtPercent)), policyLine };
}

/** The stage of a partition holding `depth` executions. */
export function stageOf(depth: number, lines: StageLines): BackpressureStage {
  if (depth >= lines.policyLine) return 'policy';
  if (depth >= lines.throttleLine && lines.throttleLine < lines.policyLine) return 'throttle';
  return 'normal';
}

/** A number for Prometheus: 0 normal, 1 throttle, 2 policy. */
export const stageLevel = (s: BackpressureStage): number => BACKPRESSURE_STAGES.indexOf(s);

export interface StagedDecision extends BackpressureDecision {
  /** The stage the partition was in when these arrived (stageOf(depth), or policy when they crossed it). */
  met: BackpressureStage;
  /** The stage it is in afterwards (what was accepted counted in). */
  after: BackpressureStage;
  /** Executions accepted in the throttle stage (delayed by it). */
  throttled: number;
}

export interface StagedInput {
  bp: Bp;
  depth: number;
  incoming: number;
  spilled?: number;
  rand: () => number;
}

/** One partition's decision across the stages. */
export function decideStaged(input: StagedInput): StagedDecision {
  const { bp, depth, incoming } = input;
  const lines = stageLines(bp);
  const policy = decideBackpressure({
    policy: bp.policy,
    maxDepth: lines.policyLine,
    depth,
    incoming,
    shedPercent: bp.shedPercent,
    throttleDelayMs: bp.throttleDelayMs,
    throttleMaxDelayMs: bp.throttleMaxDelayMs,
    retryAfterMs: bp.retryAfterMs,
    ...(input.spilled !== undefined ? { spilled: input.spilled } : {}),
    rand: input.rand,
  });
  // The last arrival lands at depth + incoming: the stage of depth + incoming − 1.
  const met = stageOf(incoming > 0 ? depth + incoming - 1 : depth, lines);
  const after = policy.reject > 0 ? 'policy' : stageOf(depth + policy.accept, lines);
  if (lines.throttleLine >= lines.policyLine || policy.reject > 0) return { ...policy, met, after, throttled: 0 };
  // Accepted executions that land past the throttle line are delayed; the stage's delay
  // and the policy's own (policy throttle) do not add up: the larger wins.
  const past = Math.max(0, Math.min(depth + policy.accept, lines.policyLine) - lines.throttleLine);
  if (past === 0 || policy.accept === 0) return { ...policy, met, after, throttled: 0 };
  const stageDelay = Math.min(Math.max(0, bp.throttleMaxDelayMs), Math.max(0, bp.throttleDelayMs) * past);
  return {
    ...policy,
    met,
    after,
    delayMs: Math.max(policy.delayMs, stageDelay),
    retryAfterMs: policy.retryAfterMs ?? bp.retryAfterMs,
    throttled: Math.min(policy.accept, past),
  };
}

/** The stage lines of a stored definition (task_runtime.definition), safely: a definition
 *  without backpressure settings has one stage at the schema's default maxDepth. */
export function stageLinesOf(definition: unknown): StageLines {
  const bp = (definition as { backpressure?: Partial<Bp> } | null)?.backpressure;
  const maxDepth = typeof bp?.maxDepth === 'number' && bp.maxDepth >= 1 ? bp.maxDepth : 10_000;
  const st = bp?.stages;
  const stages =
    st && typeof st.throttleAtPercent === 'number' && typeof st.policyAtPercent === 'number' ? { throttleAtPercent: st.throttleAtPercent, policyAtPercent: st.policyAtPercent } : undefined;
  return stageLines(stages ? { maxDepth, stages } : { maxDepth });
}
