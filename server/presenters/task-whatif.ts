// The what-if preview of a task edit: the task's executions of the last N hours (default
// 1 h) replayed through the simulator (server/core/whatif-simulator.ts) under today's
// definition and under the proposed one, on the coordinators serving the task now (their
// slots, partition ownership by the same rendezvous assignment the coordinators compute).
// Read-only; nothing is written. Says honestly what the prediction stands on (coverage).
import { z } from 'zod';
import type { Db } from '../db/pool';
import { CoreError } from '../core/errors';
import { findTask } from '../core/config-edits';
import { currentConfigOf } from '../core/stored-config';
import { inputRecord } from '../core/input-text';
import { parseTaskDefinition, taskNameSchema, type TaskDefinition } from '../core/task-definition';
import { assignPartitions } from '../core/rendezvous';
import { engineLatencies, recordingToArrivals, type RecordingCoverage } from '../core/whatif-recording';
import { fitHandlerTimes, MIN_P99_SAMPLES, simulate, toArrivalColumns, WhatIfScratch, type FiredAlert, type SimulationResult, type WhatIfArrivalColumns } from '../core/whatif-simulator';
import { compareWhatIf, type KeyComparison } from '../core/whatif-compare';
import { latestConfigVersion } from '../db/config-versions';
import { readWhatIfRecording } from '../db/whatif-recording';
import { COORDINATOR_STALE_MS } from './coordinators';
import { DEFAULT_FLUSH_MS } from '../core/coordinator-timings';

export const WHATIF_MAX_ROWS = 500_000;
export const WHATIF_DEPTH_POINTS = 120;

export const whatIfInput = z.strictObject({
  /** The proposed definition, as the editor holds it (validated field by field). */
  task: inputRecord(z.string(), z.unknown()),
  /** How much recorded traffic to replay; at most a day (succeeded rows are kept 24 h by default). */
  windowHours: z.number({ error: 'must be a number' }).min(0.05, 'must be at least 0.05 (3 minutes)').max(24, 'must be at most 24').default(1),
  seed: z.number().int('must be a whole number').min(0).max(2 ** 31 - 1).default(1),
});

export interface WhatIfSide {
  throughputPerS: number;
  waitP50Ms: number | null;
  waitP99Ms: number | null;
  maxDepth: number;
  backlogAtEnd: number;
  drainMs: number | null;
  alerts: FiredAlert[];
  /** Total depth (all partitions) over the replay, at most WHATIF_DEPTH_POINTS points; and the partitions' peak each. */
  depth: { atMs: number[]; total: number[]; peakByPartition: number[] };
  partitions: number;
}

export interface WhatIfPreview {
  task: string;
  coverage: RecordingCoverage;
  coordinators: { count: number; slots: number[] };
  today: WhatIfSide;
  proposed: WhatIfSide;
  /** The five keys whose p99 wait changes most. */
  keys: KeyComparison[];
  newAlerts: FiredAlert[];
  clearedAlerts: FiredAlert[];
}

function side(r: SimulationResult): WhatIfSide {
  const n = r.depth.at.length;
  const step = Math.max(1, Math.ceil(n / WHATIF_DEPTH_POINTS));
  const atMs: number[] = [];
  const total: number[] = [];
  for (let i = 0; i < n; i += step) {
    // the deepest total within each step, so a short spike is not lost by the thinning
    let best = -1;
    for (let j = i; j < Math.min(n, i + step); j++) {
      let s = 0;
      for (const p of r.depth.byPartition) s += p[j]!;
      best = Math.max(best, s);
    }
    atMs.push(r.depth.at[i]!);
    total.push(best);
  }
  return {
    throughputPerS: r.throughputPerS,
    waitP50Ms: r.wait.p50Ms,
    waitP99Ms: r.wait.p99Ms,
    maxDepth: r.maxDepth,
    backlogAtEnd: r.backlogAtEnd,
    drainMs: r.drainMs,
    alerts: r.alerts,
    depth: { atMs, total, peakByPartition: r.depth.byPartition.map((p) => p.reduce((a, b) => Math.max(a, b), 0)) },
    partitions: r.partitions,
  };
}

function ownersFor(task: string, partitions: number, members: readonly string[]): number[] {
  const owners = new Array<number>(partitions).fill(0);
  const index = new Map(members.map((m, i) => [m, i]));
  for (const [m, ps] of assignPartitions(task, partitions, members)) for (const p of ps) owners[p] = index.get(m)!;
  return owners;
}

export async function previewTaskWhatIf(db: Db, input: z.output<typeof whatIfInput>): Promise<WhatIfPreview> {
  const parsed = parseTaskDefinition(input.task);
  if (!parsed.ok) throw CoreError.validation(parsed.errors);
  const proposed = parsed.value;
  const name = taskNameSchema.parse(proposed.name);
  const today: TaskDefinition | undefined = findTask(currentConfigOf(await latestConfigVersion(db)).config, name);
  if (!today) throw new CoreError('NOT_FOUND', `task "${name}" is not in the current config: a new task has no recorded traffic to replay`);

  const windowMs = Math.round(input.windowHours * 3_600_000);
  const costPaths = [...new Set([today.rateCostPath, proposed.rateCostPath].filter((p): p is string => p !== undefined))];
  const rec = await readWhatIfRecording(db, name, windowMs, WHATIF_MAX_ROWS, costPaths);
  const retentionHours = today.retention?.succeededHours;
  const retentionNote =
    retentionHours !== undefined && retentionHours < input.windowHours
      ? `the task keeps succeeded executions ${retentionHours} h, shorter than the window`
      : undefined;
  const { arrivals, coverage, costColumn } = recordingToArrivals(rec.rows, { start: rec.start, end: rec.end, truncated: rec.truncated, ...(retentionNote ? { retentionNote } : {}) }, input.seed);

  const members = await db.query<{ id: string; slots: number }>(
    `SELECT id, slots FROM coordinators
     WHERE stopped_at IS NULL AND NOT draining AND $1 = ANY(tasks)
       AND last_heartbeat_at >= now() - make_interval(secs => $2 / 1000.0)
     ORDER BY id`,
    [name, COORDINATOR_STALE_MS],
  );
  if (members.rows.length === 0) {
    throw new CoreError('PRECONDITION_FAILED', `no live coordinator serves "${name}", so there is nothing to simulate the claim on`);
  }
  const ids = members.rows.map((m) => m.id);
  const slots = members.rows.map((m) => m.slots);
  const durationMs = rec.end.getTime() - rec.start.getTime();
  // Columns once for both runs; each side reads costs at its own rateCostPath (absent: 1).
  const columns = toArrivalColumns(arrivals);
  const costs = new Map(costPaths.map((p) => [p, costColumn(p)]));
  const withCosts = (task: TaskDefinition): WhatIfArrivalColumns => (task.rateCostPath ? { ...columns, cost: costs.get(task.rateCostPath)! } : columns);
  // The engine's latencies as this recording shows them (pick-up; hand-offs to draw from;
  // 0 / none when too few executions show them).
  const latencies = engineLatencies(rec.rows);
  const scratch = new WhatIfScratch(); // the second run reuses the first's buffers
  const base = (task: TaskDefinition) => ({
    task,
    ...latencies,
    // the coordinators' completer (default flush delay): a finish waits for its batch
    completer: { flushMs: DEFAULT_FLUSH_MS },
    arrivals: withCosts(task),
    coordinators: slots,
    owners: ownersFor(name, task.partitions, ids),
    recorded: { partitions: today.partitions, strategy: today.routing.strategy, keyPath: today.routing.keyPath },
    durationMs,
    seed: input.seed,
  });
  // Handler times: the recorded run times less the mean flush wait today's config gave them.
  const handlerMs = fitHandlerTimes(base(today));
  const run = (task: TaskDefinition) => simulate({ ...base(task), handlerMs, scratch });
  const a = run(today);
  const b = run(proposed);
  const cmp = compareWhatIf(a, b, 5);
  return {
    task: name,
    coverage,
    coordinators: { count: slots.length, slots },
    today: side(a),
    proposed: side(b),
    keys: cmp.keys,
    newAlerts: cmp.newAlerts,
    clearedAlerts: cmp.clearedAlerts,
  };
}

const ms = (v: number | null) => (v === null ? '–' : v < 1000 ? `${Math.round(v)} ms` : v < 120_000 ? `${(v / 1000).toFixed(1)} s` : `${Math.floor(v / 60_000)} m ${Math.round((v % 60_000) / 1000)} s`);
const alertList = (as: readonly FiredAlert[]) => (as.length ? as.map((a) => `${a.rule}${a.subject ? `[${a.subject}]` : ''} (${a.severity})`).join(', ') : 'none');

/** The preview as text lines (the CLI's `sluice config diff --what-if`). */
export function formatWhatIf(p: WhatIfPreview): string[] {
  const row = (label: string, a: string, b: string) => `  ${label.padEnd(22)} ${a.padStart(14)}  →  ${b}`;
  return [
    `what-if for ${p.task} (${p.coordinators.count} coordinator(s), ${p.coordinators.slots.join('+')} slots): ${p.coverage.note}`,
    row('throughput', `${p.today.throughputPerS.toFixed(1)}/s`, `${p.proposed.throughputPerS.toFixed(1)}/s`),
    row('wait p50', ms(p.today.waitP50Ms), ms(p.proposed.waitP50Ms)),
    row('wait p99', ms(p.today.waitP99Ms), ms(p.proposed.waitP99Ms)),
    row('max partition depth', String(p.today.maxDepth), String(p.proposed.maxDepth)),
    row('backlog drain', p.today.drainMs === null ? '> 24 h' : ms(p.today.drainMs), p.proposed.drainMs === null ? '> 24 h' : ms(p.proposed.drainMs)),
    ...p.keys.map((k) =>
      row(`p99 ${k.group}=${k.key}`.slice(0, 20) + (k.today?.p99FewSamples || k.proposed?.p99FewSamples ? ' *' : ''), ms(k.today?.p99WaitMs ?? null), ms(k.proposed?.p99WaitMs ?? null)),
    ),
    ...(p.keys.some((k) => k.today?.p99FewSamples || k.proposed?.p99FewSamples)
      ? [`  * fewer than ${MIN_P99_SAMPLES} waits: the p99 shown is the key's slowest wait, not a percentile`]
      : []),
    `  alerts today: ${alertList(p.today.alerts)}`,
    `  alerts proposed: ${alertList(p.proposed.alerts)}`,
  ];
}
