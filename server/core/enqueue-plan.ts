// The enqueue decision without I/O: given the batch's new executions (in batch order, each
// with its partition and stream), the locked partitions' exact depths and spilled counts,
// and the streams that still have spilled executions parked, which execution is accepted,
// spilled or shed, how long a throttle delays them, and whether the call is rejected.
// server/services/enqueue.ts reads the state under the locks, calls planEnqueue and writes
// what it says, all in one transaction.
//
// Per partition (in partition order, so a seeded rand gives the same plan every time):
//   1. executions of a stream with spilled executions still parked spill (they must not
//      overtake the parked ones);
//   2. the rest go to decideStaged (core/backpressure-stages.ts: the throttle stage, then
//      decideBackpressure's policy past the policy line): its first `accept` of them, in
//      batch order, are accepted, the tail is shed (shed policy) or spilled;
//   3. any reject refuses the whole call (TOO_MANY_REQUESTS, nothing written).
// Then the stream-spill cascade: within a stream, once one execution spills, every later
// one of the batch spills too, so a stream's executions stay in order.
// Pure: no I/O imports (server/core rule).
import { decideStaged, type BackpressureStage } from './backpressure-stages';
import type { TaskDefinition } from './task-definition';

export type EnqueueFate = 'accept' | 'spill' | 'shed';

export interface PlannedExecution {
  /** Position in the batch (what the plan's lists hold). */
  index: number;
  partition: number;
  streamKey: string | null;
}

export interface PartitionLoad {
  /** Exact depth (queued + scheduled + blocked), read under the partition lock. */
  depth: number;
  /** Spilled executions of the partition still parked. */
  spilled: number;
}

export interface EnqueuePlanInput {
  backpressure: TaskDefinition['backpressure'];
  /** The batch's new executions in batch order (deduplicated ones left out). */
  executions: readonly PlannedExecution[];
  /** Every partition an execution goes to. */
  partitions: ReadonlyMap<number, PartitionLoad>;
  /** Streams with spilled executions still parked. */
  streamsWithSpilled: ReadonlySet<string>;
  rand: () => number;
}

export interface EnqueueRejection {
  /** partition → executions over its limit */
  byPartition: Map<number, number>;
  total: number;
  retryAfterMs: number;
}

export interface EnqueuePlan {
  /** Batch indices, in batch order. */
  accepted: number[];
  spilled: number[];
  shed: number[];
  /** throttle: how long every accepted execution is delayed (the largest of its partitions'). */
  throttledMs: number;
  /** Present when a partition rejected: the whole call is refused (the lists are then moot). */
  rejection: EnqueueRejection | null;
  /** Staged backpressure: the producer should slow down (a partition is in the throttle stage). */
  retryAfterMs: number | null;
  /** Each partition's stage once this call is in (the policy stage when it rejected). */
  stages: Map<number, BackpressureStage>;
}

export function planEnqueue(input: EnqueuePlanInput): EnqueuePlan {
  const bp = input.backpressure;
  const fate = new Map<number, EnqueueFate>();
  const byPartition = new Map<number, PlannedExecution[]>();
  for (const e of input.executions) {
    let list = byPartition.get(e.partition);
    if (!list) byPartition.set(e.partition, (list = []));
    list.push(e);
  }
  const rejected = new Map<number, number>();
  const stages = new Map<number, BackpressureStage>();
  let throttledMs = 0;
  let retryAfterMs: number | null = null;
  for (const [p, items] of [...byPartition].sort((a, b) => a[0] - b[0])) {
    const load = input.partitions.get(p);
    if (!load) throw new RangeError(`no load given for partition ${p}`);
    const parked = (e: PlannedExecution) => e.streamKey !== null && input.streamsWithSpilled.has(e.streamKey);
    const normal: PlannedExecution[] = [];
    for (const e of items) {
      if (parked(e)) fate.set(e.index, 'spill');
      else normal.push(e);
    }
    const d = decideStaged({
      bp,
      depth: Math.max(0, load.depth),
      incoming: normal.length,
      spilled: Math.max(0, load.spilled),
      rand: input.rand,
    });
    if (d.reject > 0) rejected.set(p, d.reject);
    stages.set(p, d.after);
    if (d.throttled > 0) retryAfterMs = bp.retryAfterMs;
    throttledMs = Math.max(throttledMs, d.delayMs);
    normal.forEach((e, k) => fate.set(e.index, k < d.accept ? 'accept' : d.shed > 0 ? 'shed' : 'spill'));
  }
  if (rejected.size > 0) {
    const total = [...rejected.values()].reduce((a, b) => a + b, 0);
    return { accepted: [], spilled: [], shed: [], throttledMs: 0, rejection: { byPartition: rejected, total, retryAfterMs: bp.retryAfterMs }, retryAfterMs: bp.retryAfterMs, stages };
  }
  cascadeStreamSpills(input.executions, fate);
  const pick = (f: EnqueueFate) => input.executions.filter((e) => fate.get(e.index) === f).map((e) => e.index);
  return { accepted: pick('accept'), spilled: pick('spill'), shed: pick('shed'), throttledMs, rejection: null, retryAfterMs, stages };
}

/** Within a stream, once one execution (in batch order) spills, every later accepted one
 *  spills too. Shed ones stay shed: nothing of theirs is stored to keep in order. */
export function cascadeStreamSpills(executions: readonly PlannedExecution[], fate: Map<number, EnqueueFate>): void {
  const spilledStreams = new Set<string>();
  for (const e of executions) {
    if (e.streamKey === null) continue;
    const f = fate.get(e.index);
    if (f === 'spill') spilledStreams.add(e.streamKey);
    else if (f === 'accept' && spilledStreams.has(e.streamKey)) fate.set(e.index, 'spill');
  }
}
