// What the what-if preview replays: a task's executions of the last N hours, read from the
// executions table (server/db/whatif-recording.ts), turned into the simulator's arrivals,
// with an honest account of how much data the window holds. Pure: no I/O imports.
import { mulberry32 } from './seeded-random';
import { rateCost } from './rate-limit';
import type { WhatIfArrival } from './whatif-simulator';

export interface RecordedExecution {
  /** The execution's id (bigint as text). Rows of one enqueue call share run_at; the claim
   *  takes them in id order, so the replay does too. Absent: ties keep the rows' order. */
  id?: string;
  partition: number;
  groups: Record<string, string>;
  streamKey: string | null;
  runAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
  /** succeeded | dead | queued | running | blocked */
  state: string;
  /** As stored (the producer's, else the task's default then); absent 0. */
  priority?: number;
  /** Payload values at the rate-cost paths asked for (path → value; absent: not read). */
  costs?: Record<string, unknown> | null;
}

export interface RecordingCoverage {
  windowStart: Date;
  windowEnd: Date;
  executions: number;
  /** Executions whose run time was measured (started and finished in the table). */
  measured: number;
  /** Executions still queued or running: their run time is drawn from the measured ones (seeded). */
  estimated: number;
  /** The read stopped at its row cap: the window's oldest part is left out. */
  truncated: boolean;
  /** Too few measured executions for a prediction worth trusting (fewer than MIN_MEASURED). */
  tooLittle: boolean;
  /** One line for the page/CLI: what the prediction stands on. */
  note: string;
}

/**
 * The engine's latencies seen in a recording, from each started execution's ready time
 * (run_at), its start and the last finish at or before its start:
 *  - pick-up: no execution finished while it was ready (the last finish came before its
 *    ready time, or none), so no freed slot was what it waited for — a claim took it as
 *    soon as the enqueue's commit, the sluice_enqueue notification and the claim's round
 *    trip let one: start − ready;
 *  - hand-off: it waited (more than WAITED_MS) and a finish came while it was ready: the
 *    time from the last finish before its start to its start — how long a freed slot
 *    stayed unclaimed while work waited (the completer's flush and the finish-and-claim
 *    round trip).
 */
function latencySamples(rows: readonly RecordedExecution[]): { pickup: number[]; handoff: number[]; pickupPerEnqueue: number[] } {
  const finishes: number[] = [];
  for (const r of rows) if (r.finishedAt) finishes.push(r.finishedAt.getTime());
  finishes.sort((a, b) => a - b);
  const pickup: number[] = [];
  // per ready instant (one enqueue call: its rows share run_at), the first pick-up of it
  const firstPickup = new Map<number, number>();
  const handoff: number[] = [];
  for (const r of rows) {
    if (!r.startedAt) continue;
    const s = r.startedAt.getTime();
    const ready = r.runAt.getTime();
    // the last finish at or before s (binary search)
    let lo = 0;
    let hi = finishes.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (finishes[mid]! <= s) lo = mid + 1;
      else hi = mid;
    }
    const last = lo > 0 ? finishes[lo - 1]! : -Infinity;
    if (last < ready) {
      const p = Math.max(0, s - ready);
      pickup.push(p);
      const seen = firstPickup.get(ready);
      if (seen === undefined || p < seen) firstPickup.set(ready, p);
    } else if (s - ready > WAITED_MS) handoff.push(s - last);
  }
  return { pickup, handoff, pickupPerEnqueue: [...firstPickup.values()] };
}

const median = (xs: number[]): number => {
  xs.sort((a, b) => a - b);
  return xs[Math.floor((xs.length - 1) / 2)]!;
};

/**
 * The engine's hand-off latency seen in a recording (latencySamples): the median over the
 * executions that waited for a freed slot; 0 when fewer than MIN_HANDOFF_SAMPLES did
 * (nothing waited: nothing to fit). The simulator frees slots this long after a finish
 * (SimulationInput.handoffMs).
 */
export function handoffLatencyMs(rows: readonly RecordedExecution[]): number {
  const { handoff } = latencySamples(rows);
  return handoff.length < MIN_HANDOFF_SAMPLES ? 0 : median(handoff);
}

/**
 * The engine's pick-up latency seen in a recording (latencySamples): the median, over the
 * executions no finish came for while they were ready, of start − ready; 0 when fewer than
 * MIN_HANDOFF_SAMPLES. The simulator lets a claim take an execution this long after it
 * is ready (SimulationInput.pickupMs).
 */
export function pickupLatencyMs(rows: readonly RecordedExecution[]): number {
  const { pickup } = latencySamples(rows);
  return pickup.length < MIN_HANDOFF_SAMPLES ? 0 : median(pickup);
}
/**
 * What the simulator needs of the engine's latencies, fitted from a recording: the median
 * pick-up (pickupLatencyMs) and hand-off (handoffLatencyMs), the hand-offs themselves to
 * draw from (none when fewer than MIN_HANDOFF_SAMPLES), and one pick-up per enqueue call (its
 * rows share run_at; the first of them claimed) to draw from (none when fewer than
 * MIN_PICKUP_SAMPLES calls). Spread into SimulationInput.
 */
export function engineLatencies(rows: readonly RecordedExecution[]): { handoffMs: number; pickupMs: number; handoffSamplesMs?: Float64Array; pickupSamplesMs?: Float64Array } {
  const { pickup, handoff, pickupPerEnqueue } = latencySamples(rows);
  const enough = handoff.length >= MIN_HANDOFF_SAMPLES;
  return {
    handoffMs: enough ? median(handoff) : 0,
    pickupMs: pickup.length >= MIN_HANDOFF_SAMPLES ? median(pickup) : 0,
    ...(enough ? { handoffSamplesMs: Float64Array.from(handoff) } : {}),
    ...(pickupPerEnqueue.length >= MIN_PICKUP_SAMPLES ? { pickupSamplesMs: Float64Array.from(pickupPerEnqueue) } : {}),
  };
}
const WAITED_MS = 10;
const MIN_HANDOFF_SAMPLES = 20;
/** Enqueue calls whose pick-ups are drawn from (fewer: the median pick-up for all). */
const MIN_PICKUP_SAMPLES = 8;

/** Below this many measured run times the preview says it has too little data. */
export const MIN_MEASURED = 50;

/**
 * Arrivals in ready order (run_at), times relative to windowStart. A finished execution
 * ran finished − started; one still queued or running gets a run time drawn from the
 * measured ones (mulberry32(seed)), or 0 when none was measured.
 */
/** Two bigint ids as text, numerically; an absent id sorts as equal (the rows' order stays). */
function compareIds(a: string | undefined, b: string | undefined): number {
  if (a === undefined || b === undefined) return 0;
  return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
}

export function recordingToArrivals(
  rows: readonly RecordedExecution[],
  window: { start: Date; end: Date; truncated: boolean; retentionNote?: string },
  seed: number,
): { arrivals: WhatIfArrival[]; coverage: RecordingCoverage; costColumn: (path: string) => Float64Array } {
  const t0 = window.start.getTime();
  const measured: number[] = [];
  for (const r of rows) {
    if (r.startedAt && r.finishedAt) measured.push(Math.max(0, r.finishedAt.getTime() - r.startedAt.getTime()));
  }
  const rand = mulberry32(seed);
  // Claim order: run_at, then id (the engine's (claim_at, id); priorities are applied later).
  const sorted = [...rows].sort((a, b) => a.runAt.getTime() - b.runAt.getTime() || compareIds(a.id, b.id));
  const arrivals: WhatIfArrival[] = sorted.map((r) => {
    const runMs =
      r.startedAt && r.finishedAt
        ? Math.max(0, r.finishedAt.getTime() - r.startedAt.getTime())
        : measured.length > 0
          ? measured[Math.floor(rand() * measured.length)]!
          : 0;
    return {
      at: Math.max(0, r.runAt.getTime() - t0),
      runMs,
      partition: r.partition,
      keys: r.groups,
      ...(r.streamKey !== null ? { stream: r.streamKey } : {}),
      ...(r.priority ? { priority: r.priority } : {}),
    };
  });
  const tooLittle = measured.length < MIN_MEASURED;
  const hours = (window.end.getTime() - t0) / 3_600_000;
  const span = hours >= 1 ? `${+hours.toFixed(1)} h` : `${Math.round(hours * 60)} min`;
  const parts = [
    `${rows.length} executions in the last ${span}, ${measured.length} with a measured run time`,
    rows.length - measured.length > 0 ? `${rows.length - measured.length} still queued or running (run times drawn from the measured ones)` : null,
    window.truncated ? 'the read stopped at its row cap, so the oldest part of the window is left out' : null,
    window.retentionNote ?? null,
    tooLittle ? `too little data to trust the prediction (fewer than ${MIN_MEASURED} measured)` : null,
  ].filter((x): x is string => x !== null);
  return {
    arrivals,
    // Each arrival's rate cost under a task's rateCostPath (rate-limit.ts rateCost: the
    // payload's number there, else 1), in the arrivals' order.
    costColumn: (path: string) => Float64Array.from(sorted, (r) => rateCost(r.costs?.[path])),
    coverage: {
      windowStart: window.start,
      windowEnd: window.end,
      executions: rows.length,
      measured: measured.length,
      estimated: rows.length - measured.length,
      truncated: window.truncated,
      tooLittle,
      note: parts.join('; ') + '.',
    },
  };
}
