// What-if simulator: a discrete-event replay of one task's recorded arrivals (ready time,
// partition, group keys, stream key, priority, rate cost, run time) through a task config —
// task concurrency, partitions and routing, group limits with per-key overrides, streams,
// rate limits (task and per group key, with burst, overrides and cost), priorities with
// aging, claim order fifo | fair with weights — and the coordinators' slots, reporting what
// the claim would have done: depth per partition over time, wait (ready → claimed) per
// group key, the backlog's drain time, throughput, and the alert rules the evaluator would
// have fired (observeTask + stepAlert, the evaluator's own code, stepped every
// ALERT_EVALUATION_INTERVAL_MS of simulated time).
//
// The model of the claim (docs/architecture.md § Claiming): a coordinator claims the
// ready executions of the partitions it owns in claim order, never more than its free
// slots and the task's free concurrency; an execution needs a slot of every (group, key) it
// carries for a group the config declares (override, else the group's limit) and is
// skipped — set aside until its key frees a slot, as the engine's `waiting_on` rows — when
// one is full (no head-of-line blocking); a stream key runs one at a time in arrival order.
// Claims happen `pickupMs` after work is ready (the enqueue's commit, notification and
// claim round trip) and `handoffMs` after a slot frees (the engine's finish-and-claim round
// trip; or each drawn from the recording's hand-offs, `handoffSamplesMs`), both fitted from
// the recording (whatif-recording.ts engineLatencies; 0 = the same instant).
// The limits' rules are the core's own functions, not copies:
//   - claim order: priority.ts `claimKeyMs` (run_at − priority × agingMs, ties by arrival);
//   - rate limits: rate-limit.ts (`rateAllowance`, `chargeTat`, `nextSlotInMs`,
//     `effectiveKeyRate`): a candidate starts only if the task's and each of its rated keys'
//     allowance admits it, and then charges its cost to each; a rate-held key's rows are
//     parked on the key and released at its next slot (the engine's `rate:` parking), a
//     task-rate hold stops the claim until the task's next slot;
//   - fair share: fair-share.ts `fairClaim` picks each slot's row among the heads of the
//     fair group's keys (the admissible head of each key, in claim order).
//
// Not modelled: retries (each arrival is one execution with its recorded run time),
// backpressure at enqueue, pausing, circuit breakers, coordinators joining or leaving
// during the window.
//
// Speed (bench/whatif.ts, 1 h at 1,000 arrivals/s): the hot loop works on typed arrays —
// arrivals may come as columns (`WhatIfArrivalColumns`, what the presenter and bench build),
// key names are numbered once, heaps hold ints in typed arrays, no per-event allocation,
// Map or closure is created in the loop.
//
// Deterministic: the same input and seed give the same output (random routing draws from
// mulberry32(seed)). Pure: no I/O imports (server/core rule).
import { ALERT_EVALUATION_INTERVAL_MS, DEFAULT_ALERT_POLICY, type AlertPolicy, type AlertRule, type AlertSeverity } from './alert-evaluation';
import { stepAlert, type AlertState } from './alert-rules';
import { observeTask, type GroupKeyLoad, type WindowTotals } from './alert-observation';
import { hashPartition, leastLoadedPartition, randomIndex } from './routing';
import { stableHash32 } from './stable-hash';
import { mulberry32 } from './seeded-random';
import { claimKeyMs, taskPriority } from './priority';
import { chargeTat, effectiveKeyRate, nextSlotInMs, rateAllowance, type RateSpec } from './rate-limit';
import { fairClaim, keyWeight, type FairCandidate, type FairKey } from './fair-share';
import { fairShareGroup, type TaskDefinition } from './task-definition';

/** One recorded execution. */
export interface WhatIfArrival {
  /** When it became ready to run (run_at), in ms from the start of the window. */
  at: number;
  /** How long its handler ran (started → finished), ms. */
  runMs: number;
  /** The partition it was routed to when recorded; reused while routing is unchanged. */
  partition?: number;
  /** Group name → key it carried. */
  keys?: Readonly<Record<string, string>>;
  stream?: string;
  /** The value of the routing key path (hash routing); falls back to the group key read from the same path. */
  routingKey?: string;
  /** Its priority as stored (0 = lowest; absent 0). */
  priority?: number;
  /** Its rate cost (rate-limit.ts rateCost of the payload's rateCostPath value; absent 1). */
  cost?: number;
}

/**
 * The same arrivals as columns (struct of arrays): what a long recording is passed as, so
 * the simulator reads typed arrays and the heap holds no object per execution. Strings
 * (keys, streams, routing keys) are indexes into `names`; -1 = none.
 */
export interface WhatIfArrivalColumns {
  length: number;
  at: Float64Array;
  runMs: Float64Array;
  /** -1: not recorded. */
  partition: Int32Array;
  names: readonly string[];
  /** Group name → the key (index into names) each arrival carried. */
  keys: ReadonlyMap<string, Int32Array>;
  stream?: Int32Array;
  routingKey?: Int32Array;
  priority?: Int32Array;
  cost?: Float64Array;
}

/** The parts of a task definition the simulation reads. */
export type WhatIfTaskConfig = Pick<TaskDefinition, 'name' | 'partitions' | 'concurrency' | 'routing' | 'groups' | 'thresholds'> &
  Partial<Pick<TaskDefinition, 'priority' | 'order' | 'fairGroup' | 'rate'>>;

export interface SimulationInput {
  task: WhatIfTaskConfig;
  /** Sorted by `at`. */
  arrivals: readonly WhatIfArrival[] | WhatIfArrivalColumns;
  /** Local slots of each coordinator serving the task (one entry per coordinator). */
  coordinators: readonly number[];
  /**
   * Owner (index into `coordinators`) of each partition; default partition % coordinators.
   * Length must be task.partitions.
   */
  owners?: readonly number[];
  /** How the arrivals were routed when recorded: their `partition` is reused when the task routes the same way. */
  recorded?: { partitions: number; strategy: TaskDefinition['routing']['strategy']; keyPath?: string | undefined };
  /** Length of the recorded window (ms); default the last arrival's time. Drain time counts from here. */
  durationMs?: number;
  seed: number;
  policy?: AlertPolicy;
  /** Depth samples and alert evaluations every tickMs of simulated time (default the evaluator's 15 s). */
  tickMs?: number;
  /** Give up simulating this long after the window (the backlog would take longer); default 24 h. */
  horizonMs?: number;
  /** Return each execution's claim/finish/coordinator (tests; memory grows with arrivals). */
  trace?: boolean;
  /**
   * The engine's hand-off latency: how long after an execution finishes its slots (task,
   * coordinator, group keys, stream) are claimed again — the completer's flush and the
   * finish-and-claim round trip. Fitted from the recording (whatif-recording.ts
   * handoffLatencyMs); default 0 (a freed slot is reused the same instant).
   */
  handoffMs?: number;
  /**
   * The engine's pick-up latency: how long after an execution becomes ready (run_at) a
   * claim can first take it when no slot had to free for it — the enqueue's commit, the
   * sluice_enqueue notification and the claim's round trip. Fitted from the recording
   * (whatif-recording.ts pickupLatencyMs); default 0 (claimable the instant it is ready).
   * Waits still count from the ready time.
   */
  pickupMs?: number;
  /**
   * The recording's hand-off latencies (whatif-recording.ts engineLatencies): when given,
   * each execution's hand-off is drawn from these (seeded, uniformly) instead of being
   * handoffMs — the engine's slow hand-offs (a flush that waits, a claim that queues on the
   * task lock) are what a p99 wait is made of, and a median has none of them. With the
   * completer, one draw per written batch: the engine writes a batch with one sluice_cycle,
   * whose one claim refills every slot the batch freed, so they free together (drawn per
   * execution until 2026-12-07, a batch's slots freed apart and the rows claimed together
   * started apart in the replay; docs/benchmarks.md, twentieth session).
   */
  handoffSamplesMs?: ArrayLike<number>;
  /**
   * The recording's pick-up latencies, one per enqueue (whatif-recording.ts engineLatencies):
   * when given, the executions that became ready at the same instant (one enqueue call: one
   * commit, one notification) become claimable after one of these, drawn (seeded), instead
   * of pickupMs — a small tenant's p99 wait is made of the slow pick-ups, and a median has
   * none of them. Claimable times stay in ready order.
   */
  pickupSamplesMs?: ArrayLike<number>;
  /** Buffers to reuse across calls (WhatIfScratch); without it each call allocates its own. */
  scratch?: WhatIfScratch;
  /**
   * The coordinator's completer (server/coordinator/completer.ts): a handler's finish waits
   * in its coordinator's batch until `flushMs` after the batch's first one, or until no other
   * handler of that coordinator is still running, and only then frees its slots (then the
   * hand-off). Absent: an execution's slots free `runMs` (+ hand-off) after its claim, the
   * recorded run time replayed as it was — which carries the flush waits of the recorded
   * schedule: a change that runs fewer handlers at once makes more finishes wait out the
   * timer (bench:whatif, limit down, 2026-12-01: run p90 42.9 → 47.6 ms), and those
   * milliseconds add up along a key's queue.
   */
  completer?: { flushMs: number };
  /** With `completer`: each execution's handler time (its run time less the recording's
   *  mean flush wait, one offset for all; fitHandlerTimes); default `runMs`. */
  handlerMs?: ArrayLike<number>;
}

export interface KeyWait {
  group: string;
  key: string;
  /** The effective limit under this config (override or group limit). */
  limit: number;
  count: number;
  p50WaitMs: number;
  p99WaitMs: number;
  maxWaitMs: number;
  /**
   * Fewer than MIN_P99_SAMPLES waits: the nearest-rank p99 of so few is the key's slowest
   * execution (or next to it), one observation, not a percentile — shown, never compared.
   */
  p99FewSamples: boolean;
}

/** Below this many waits a key's p99 is its maximum: nearest rank ⌈0.99 n⌉ = n for n ≤ 100. */
export const MIN_P99_SAMPLES = 100;

/**
 * Buffers one caller hands to several simulate() calls (the preview's today and proposed,
 * the bench's runs): a call after the first reuses them instead of allocating, and
 * touching for the first time, ~20 bytes per arrival (3.6M arrivals: 72 MB, whose page
 * faults and zeroing were a sixth of a replay's CPU). Every buffer is written before it is
 * read; a traced call allocates what it returns. Held as long as the caller holds this.
 */
export class WhatIfScratch {
  private f64: Float64Array[] = [];
  private i32: Int32Array[] = [];
  /** Slot `slot`'s Float64Array of `length` (contents undefined). */
  float64(slot: number, length: number): Float64Array {
    const b = this.f64[slot];
    if (b !== undefined && b.length >= length) return b.length === length ? b : b.subarray(0, length);
    return (this.f64[slot] = new Float64Array(length));
  }
  /** Slot `slot`'s Int32Array of `length` (contents undefined). */
  int32(slot: number, length: number): Int32Array {
    const b = this.i32[slot];
    if (b !== undefined && b.length >= length) return b.length === length ? b : b.subarray(0, length);
    return (this.i32[slot] = new Int32Array(length));
  }
}

export interface FiredAlert {
  rule: AlertRule;
  subject: string;
  severity: AlertSeverity;
  /** Simulated time (ms from the window start) it first fired. */
  firstFiredAt: number;
  peakValue: number | null;
}

export interface SimulationResult {
  partitions: number;
  /** Sample times (ms from window start) and depth per partition at each (queued, not yet claimed). */
  depth: { at: number[]; byPartition: number[][] };
  maxDepth: number;
  /** Wait (ready → claimed) over every execution. */
  wait: { count: number; p50Ms: number | null; p99Ms: number | null; maxMs: number | null };
  /** Per group key the config declares a group for; sorted by p99 descending. */
  keyWaits: KeyWait[];
  /** Executions finished per second over the window (finished by its end ÷ its length). */
  throughputPerS: number;
  /** Finished by the end of the simulation (≤ arrivals when the horizon cut it). */
  finished: number;
  /** Still queued at the end of the window, and how long after it the queue emptied (null: not within the horizon). */
  backlogAtEnd: number;
  drainMs: number | null;
  alerts: FiredAlert[];
  /** Peak running counts (the limits' test reads these and the trace). */
  peaks: { running: number; perCoordinator: number[] };
  trace?: { claimAt: Float64Array; finishAt: Float64Array; coordinator: Int32Array; partition: Int32Array };
}

// ─── small typed-array heaps ──────────────────────────────────────────────────────

/** Min-heap of non-negative ints ordered by the int itself (arrival index = age). */
class IntHeap {
  private a: Int32Array = new Int32Array(16);
  size = 0;
  push(v: number): void {
    if (this.size === this.a.length) {
      const b = new Int32Array(this.a.length * 2);
      b.set(this.a);
      this.a = b;
    }
    const a = this.a;
    let i = this.size++;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (a[p]! <= v) break;
      a[i] = a[p]!;
      i = p;
    }
    a[i] = v;
  }
  peek(): number {
    return this.a[0]!;
  }
  pop(): number {
    const a = this.a;
    const top = a[0]!;
    const last = a[--this.size]!;
    let i = 0;
    const n = this.size;
    for (;;) {
      let c = 2 * i + 1;
      if (c >= n) break;
      if (c + 1 < n && a[c + 1]! < a[c]!) c++;
      if (a[c]! >= last) break;
      a[i] = a[c]!;
      i = c;
    }
    if (n > 0) a[i] = last;
    return top;
  }
}

/**
 * Min-heap of (time, id) pairs ordered by time (equal times leave in a fixed,
 * input-determined order). Four children per node: half the levels of a binary heap, so a
 * pop moves half as many entries (the replay's most frequent operation, one per finish).
 */
class EventHeap {
  private t: Float64Array = new Float64Array(16);
  private id: Int32Array = new Int32Array(16);
  size = 0;
  push(time: number, v: number): void {
    if (this.size === this.t.length) {
      const t = new Float64Array(this.t.length * 2);
      t.set(this.t);
      this.t = t;
      const id = new Int32Array(this.id.length * 2);
      id.set(this.id);
      this.id = id;
    }
    const T = this.t;
    const I = this.id;
    let i = this.size++;
    while (i > 0) {
      const p = (i - 1) >> 2;
      if (T[p]! <= time) break;
      T[i] = T[p]!;
      I[i] = I[p]!;
      i = p;
    }
    T[i] = time;
    I[i] = v;
  }
  peekTime(): number {
    return this.size > 0 ? this.t[0]! : Infinity;
  }
  pop(): number {
    const T = this.t;
    const I = this.id;
    const top = I[0]!;
    const n = --this.size;
    const lt = T[n]!;
    const li = I[n]!;
    let i = 0;
    for (;;) {
      const first = 4 * i + 1;
      if (first >= n) break;
      let c = first;
      let ct = T[first]!;
      const last = first + 3 < n ? first + 3 : n - 1;
      for (let j = first + 1; j <= last; j++) {
        const tj = T[j]!;
        if (tj < ct) {
          ct = tj;
          c = j;
        }
      }
      if (ct >= lt) break;
      T[i] = ct;
      I[i] = I[c]!;
      i = c;
    }
    if (n > 0) {
      T[i] = lt;
      I[i] = li;
    }
    return top;
  }
}

// ─── latency histograms for the alert window ─────────────────────────────────────

/** Log buckets of 5%: bucket b holds values in [1.05^(b-1), 1.05^b) ms (b = 0 holds < 1 ms). */
const HIST_BUCKETS = 420; // 1.05^419 ≈ 7.6e8 ms ≈ 8.8 days
const LOG_STEP = Math.log(1.05);
/** EDGE[b] = 1.05^b, the upper end of bucket b (b ≥ 1). */
const EDGE = Float64Array.from({ length: HIST_BUCKETS }, (_, b) => Math.exp(b * LOG_STEP));
// A value's bucket without a logarithm (three of them per execution were a tenth of the
// replay): the double's exponent and top 10 mantissa bits (a 0.1%-wide slice, far narrower
// than a 5% bucket) index the bucket of the slice's lower end; one comparison with the
// next edge finishes it. Exactly the bucket a search of EDGE gives.
const F64 = new Float64Array(1);
const U32 = new Uint32Array(F64.buffer);
const HI = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1 ? 1 : 0; // the high word's index (endianness)
const SLICE_FIRST = 1023 << 10; // the slice of 1.0
const SLICE_LAST = (1023 + 30) << 10; // 2^30 ms > EDGE[HIST_BUCKETS - 1]
const SLICE_BUCKET = new Uint16Array(SLICE_LAST - SLICE_FIRST);
for (let s = 0, b = 1; s < SLICE_BUCKET.length; s++) {
  F64[0] = 0;
  U32[HI] = (SLICE_FIRST + s) << 10;
  const low = F64[0]!;
  while (b < HIST_BUCKETS - 1 && low >= EDGE[b]!) b++;
  SLICE_BUCKET[s] = b;
}
function histBucket(ms: number): number {
  if (ms < 1) return 0;
  if (ms >= EDGE[HIST_BUCKETS - 2]!) return HIST_BUCKETS - 1;
  F64[0] = ms;
  const b = SLICE_BUCKET[(U32[HI]! >>> 10) - SLICE_FIRST]!;
  return ms >= EDGE[b]! ? b + 1 : b;
}
/** A bucket's representative value: the geometric middle of its range. */
function histValue(b: number): number {
  return b === 0 ? 0 : Math.exp((b - 0.5) * LOG_STEP);
}
/** Nearest-rank p-th percentile of a histogram (sum of the given slices), null when empty. */
function histPercentile(slices: readonly Uint32Array[], p: number): number | null {
  let total = 0;
  for (const s of slices) for (let b = 0; b < HIST_BUCKETS; b++) total += s[b]!;
  if (total === 0) return null;
  const rank = Math.max(1, Math.ceil((p / 100) * total));
  let seen = 0;
  for (let b = 0; b < HIST_BUCKETS; b++) {
    for (const s of slices) seen += s[b]!;
    if (seen >= rank) return histValue(b);
  }
  return histValue(HIST_BUCKETS - 1);
}

/** Rearranges a[lo..hi] so that a[k] holds the value a full sort would put there (quickselect). */
function selectKth(a: Float64Array, k: number, lo: number, hi: number): number {
  while (hi > lo) {
    // median of three as the pivot
    const mid = (lo + hi) >> 1;
    const x = a[lo]!;
    const y = a[mid]!;
    const z = a[hi]!;
    const pivot = x < y ? (y < z ? y : x < z ? z : x) : x < z ? x : y < z ? z : y;
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (a[i]! < pivot) i++;
      while (a[j]! > pivot) j--;
      if (i <= j) {
        const t = a[i]!;
        a[i] = a[j]!;
        a[j] = t;
        i++;
        j--;
      }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else return a[k]!;
  }
  return a[k]!;
}

/**
 * Nearest-rank p50, p99 and max of a segment (metrics.ts' percentile, without a full sort:
 * quickselect is linear, which keeps a 3.6M-execution replay within its budget). Reorders the segment.
 */
function waitPercentiles(a: Float64Array): { p50: number; p99: number; max: number } {
  const n = a.length;
  const rank = (p: number) => Math.max(1, Math.ceil((p / 100) * n)) - 1;
  const k50 = rank(50);
  const k99 = rank(99);
  const p50 = selectKth(a, k50, 0, n - 1);
  const p99 = selectKth(a, k99, k50, n - 1);
  let max = p99;
  for (let i = k99; i < n; i++) if (a[i]! > max) max = a[i]!;
  return { p50, p99, max };
}

/** Object arrivals as columns (one pass; strings numbered in first-seen order). */
export function toArrivalColumns(arrivals: readonly WhatIfArrival[]): WhatIfArrivalColumns {
  const n = arrivals.length;
  const at = new Float64Array(n);
  const runMs = new Float64Array(n);
  const partition = new Int32Array(n).fill(-1);
  const names: string[] = [];
  const ids = new Map<string, number>();
  const name = (s: string) => {
    let id = ids.get(s);
    if (id === undefined) {
      id = names.length;
      ids.set(s, id);
      names.push(s);
    }
    return id;
  };
  const keys = new Map<string, Int32Array>();
  let stream: Int32Array | undefined;
  let routingKey: Int32Array | undefined;
  let priority: Int32Array | undefined;
  let cost: Float64Array | undefined;
  for (let i = 0; i < n; i++) {
    const a = arrivals[i]!;
    at[i] = a.at;
    runMs[i] = a.runMs;
    if (a.partition !== undefined && Number.isInteger(a.partition) && a.partition >= 0) partition[i] = a.partition;
    if (a.keys) {
      for (const g of Object.keys(a.keys)) {
        let col = keys.get(g);
        if (!col) keys.set(g, (col = new Int32Array(n).fill(-1)));
        col[i] = name(a.keys[g]!);
      }
    }
    if (a.stream !== undefined) (stream ??= new Int32Array(n).fill(-1))[i] = name(a.stream);
    if (a.routingKey !== undefined) (routingKey ??= new Int32Array(n).fill(-1))[i] = name(a.routingKey);
    if (a.priority !== undefined) (priority ??= new Int32Array(n))[i] = a.priority;
    if (a.cost !== undefined) (cost ??= new Float64Array(n).fill(1))[i] = a.cost;
  }
  return { length: n, at, runMs, partition, names, keys, ...(stream ? { stream } : {}), ...(routingKey ? { routingKey } : {}), ...(priority ? { priority } : {}), ...(cost ? { cost } : {}) };
}

function checkInput(input: SimulationInput, cols: WhatIfArrivalColumns): void {
  const { task, coordinators } = input;
  if (!Number.isInteger(task.partitions) || task.partitions < 1) throw new RangeError(`partitions must be an integer ≥ 1, got ${task.partitions}`);
  if (!Number.isInteger(task.concurrency) || task.concurrency < 1) throw new RangeError(`concurrency must be an integer ≥ 1, got ${task.concurrency}`);
  if (coordinators.length === 0) throw new RangeError('the simulation needs at least one coordinator');
  coordinators.forEach((s, i) => {
    if (!Number.isInteger(s) || s < 1) throw new RangeError(`coordinator ${i} has ${s} slots; must be an integer ≥ 1`);
  });
  if (input.owners) {
    if (input.owners.length !== task.partitions) throw new RangeError(`owners has ${input.owners.length} entries for ${task.partitions} partitions`);
    input.owners.forEach((o, p) => {
      if (!Number.isInteger(o) || o < 0 || o >= coordinators.length) throw new RangeError(`partition ${p} is owned by coordinator ${o}, which does not exist`);
    });
  }
  const { at, runMs, cost } = cols;
  let last = -Infinity;
  for (let i = 0; i < cols.length; i++) {
    const t = at[i]!;
    if (!(t >= last) || t === Infinity) throw new RangeError(`arrival ${i} is at ${t}; arrivals must be sorted by time`);
    const r = runMs[i]!;
    if (!(r >= 0) || r === Infinity) throw new RangeError(`arrival ${i} ran ${r} ms; must be a finite number ≥ 0`);
    if (cost && !(cost[i]! >= 0 && cost[i]! < Infinity)) throw new RangeError(`arrival ${i} has rate cost ${cost[i]}; must be a finite number ≥ 0`);
    last = t;
  }
}

/** A rate allowance this close below 0 is 0 (the next-slot instant, computed in floating point). */
const RATE_EPS = 1e-9;

/** `xs` when it has values, each a finite number ≥ 0 (else a RangeError naming `name[j]`);
 *  null when absent or empty. */
function samplesOrNull(xs: ArrayLike<number> | undefined, name: string): ArrayLike<number> | null {
  if (xs === undefined || xs.length === 0) return null;
  for (let j = 0; j < xs.length; j++) {
    const x = xs[j]!;
    if (!(x >= 0 && x < Infinity)) throw new RangeError(`${name}[${j}] is ${x}; must be a finite number ≥ 0`);
  }
  return xs;
}

export function simulate(input: SimulationInput): SimulationResult {
  const cols = Array.isArray(input.arrivals) ? toArrivalColumns(input.arrivals as readonly WhatIfArrival[]) : (input.arrivals as WhatIfArrivalColumns);
  checkInput(input, cols);
  const { task } = input;
  const n = cols.length;
  const AT = cols.at;
  const RUN = cols.runMs;
  const P = task.partitions;
  const C = input.coordinators.length;
  const conc = task.concurrency;
  const policy = input.policy ?? DEFAULT_ALERT_POLICY;
  const tickMs = input.tickMs ?? ALERT_EVALUATION_INTERVAL_MS;
  if (!(tickMs > 0)) throw new RangeError(`tickMs must be > 0, got ${tickMs}`);
  const durationMs = input.durationMs ?? (n > 0 ? AT[n - 1]! : 0);
  const handoff = input.handoffMs ?? 0;
  if (!(handoff >= 0 && handoff < Infinity)) throw new RangeError(`handoffMs must be a finite number ≥ 0, got ${handoff}`);
  // Drawn hand-offs: each execution's from the samples, by a generator of its own (random
  // routing's draws stay as they were); `drawn` keeps it for the finish.
  const HANDOFFS = samplesOrNull(input.handoffSamplesMs, 'handoffSamplesMs');
  const drawRand = mulberry32((input.seed ^ 0x5eed) >>> 0);
  const drawn = HANDOFFS ? new Float64Array(cols.length) : null;
  const pickup = input.pickupMs ?? 0;
  if (!(pickup >= 0 && pickup < Infinity)) throw new RangeError(`pickupMs must be a finite number ≥ 0, got ${pickup}`);
  const PICKUPS = samplesOrNull(input.pickupSamplesMs, 'pickupSamplesMs');
  const pickRand = mulberry32((input.seed ^ 0x91c4) >>> 0);
  const flushMs = input.completer?.flushMs;
  if (flushMs !== undefined && !(flushMs >= 0 && flushMs < Infinity)) throw new RangeError(`completer.flushMs must be a finite number ≥ 0, got ${flushMs}`);
  const HANDLER = flushMs === undefined ? RUN : (input.handlerMs ?? RUN);
  if (HANDLER.length !== n) throw new RangeError(`handlerMs has ${HANDLER.length} entries for ${n} arrivals`);
  if (HANDLER !== RUN) samplesOrNull(HANDLER, 'handlerMs');
  const horizonEnd = durationMs + (input.horizonMs ?? 86_400_000);
  const rand = mulberry32(input.seed);
  const owners = Int32Array.from(input.owners ?? Array.from({ length: P }, (_, p) => p % C));

  // ── keys: (group, key) pairs the config constrains, numbered in arrival order; an
  //    arrival's key of group g is keyOfName[g][groupCol[g][i]] (-1: none).
  const groups = task.groups;
  const G = groups.length;
  const NN = cols.names.length;
  const groupCol: (Int32Array | null)[] = groups.map((g) => cols.keys.get(g.name) ?? null);
  const keyOfName: Int32Array[] = groups.map(() => new Int32Array(NN).fill(-1));
  const keyLimitList: number[] = [];
  const keyGroup: number[] = [];
  const keyName: string[] = [];
  // KEY[g × n + i]: arrival i's key of group g (-1: none), one read on the hot path.
  const KEY = input.scratch ? input.scratch.int32(1, n * G) : new Int32Array(n * G);
  for (let i = 0; i < n; i++) {
    for (let g = 0; g < G; g++) {
      const col = groupCol[g];
      const nm = col ? col[i]! : -1;
      if (nm < 0) {
        KEY[g * n + i] = -1;
        continue;
      }
      let id = keyOfName[g]![nm]!;
      if (id < 0) {
        const k = cols.names[nm]!;
        const gr = groups[g]!;
        id = keyOfName[g]![nm] = keyLimitList.length;
        keyLimitList.push(Object.hasOwn(gr.overrides, k) ? gr.overrides[k]! : gr.limit);
        keyGroup.push(g);
        keyName.push(k);
      }
      KEY[g * n + i] = id;
    }
  }
  const K = keyLimitList.length;
  const keyLimit = Int32Array.from(keyLimitList);
  const keyAt = (i: number, g: number): number => KEY[g * n + i]!;
  const inflight = new Int32Array(K);
  const queuedByKey = new Int32Array(K);
  const claimedByKey = new Int32Array(K);
  const waiting: (IntHeap | undefined)[] = new Array<IntHeap | undefined>(K);

  // ── claim order (priority.ts): rank of each arrival by (run_at − priority × agingMs, arrival).
  //    Without priorities the rank is the arrival index (arrivals are sorted by run_at).
  let byRank: Int32Array | null = null;
  let rankOf: Int32Array | null = null;
  if (cols.priority && cols.priority.some((p) => p !== 0)) {
    const { agingMs } = taskPriority(task.priority);
    const pr = cols.priority;
    const keyMs = new Float64Array(n);
    for (let i = 0; i < n; i++) keyMs[i] = claimKeyMs(AT[i]!, pr[i]!, agingMs);
    byRank = new Int32Array(n);
    for (let i = 0; i < n; i++) byRank[i] = i;
    byRank.sort((a, b) => keyMs[a]! - keyMs[b]! || a - b);
    rankOf = new Int32Array(n);
    for (let r = 0; r < n; r++) rankOf[byRank[r]!] = r;
  }
  const rank = (i: number) => (rankOf === null ? i : rankOf[i]!);
  const atRank = (r: number) => (byRank === null ? r : byRank[r]!);

  // ── rate limits (rate-limit.ts): the task's scope and each rated key's; TAT NaN = none yet.
  const COST = cols.cost;
  const costOf = (i: number) => (COST === undefined ? 1 : COST[i]!);
  const taskRate: RateSpec | null = task.rate ?? null;
  let taskTat = NaN;
  let taskWake = 0;
  const keyRate: (RateSpec | null)[] = new Array<RateSpec | null>(K).fill(null);
  let anyKeyRate = false;
  for (let k = 0; k < K; k++) {
    const r = groups[keyGroup[k]!]!.rate;
    if (r) {
      keyRate[k] = effectiveKeyRate(r, keyName[k]!);
      anyKeyRate = true;
    }
  }
  const keyTat = new Float64Array(K).fill(NaN);
  const keyWake = new Uint8Array(K);
  const rateWaiting: (IntHeap | undefined)[] = new Array<IntHeap | undefined>(K);
  const tatOrNull = (t: number) => (Number.isNaN(t) ? null : t);

  // ── fair share (fair-share.ts): ready rows are kept per key of the fair group so each
  //    slot's choice looks at every key's head; slot K holds rows carrying no such key.
  const fairName = fairShareGroup({ order: task.order, fairGroup: task.fairGroup, groups });
  const fg = fairName === null ? -1 : groups.findIndex((g) => g.name === fairName);
  const fairKeys: number[] = [];
  if (fg >= 0) for (let k = 0; k < K; k++) if (keyGroup[k] === fg) fairKeys.push(k);
  const fairWeights = fg >= 0 ? groups[fg]!.weights : undefined;

  // ── streams: one running (or due) execution per stream key; the rest wait for the one
  //    before them to finish (nextInStream: the stream's next arrival).
  const STREAM = cols.stream;
  let nextInStream: Int32Array | null = null;
  let streamBusy: Uint8Array | null = null;
  if (STREAM) {
    nextInStream = new Int32Array(n).fill(-1);
    const lastOf = new Int32Array(NN).fill(-1);
    for (let i = 0; i < n; i++) {
      const s = STREAM[i]!;
      if (s < 0) continue;
      if (lastOf[s]! >= 0) nextInStream[lastOf[s]!] = i;
      lastOf[s] = i;
    }
    streamBusy = new Uint8Array(NN);
  }

  // ── routing: reuse the recorded partition while the task routes the same way.
  const rec = input.recorded;
  const sameRouting =
    rec !== undefined &&
    rec.partitions === P &&
    rec.strategy === task.routing.strategy &&
    (task.routing.strategy !== 'hash' || rec.keyPath === task.routing.keyPath);
  const routeKeyGroup = groups.findIndex((g) => g.keyPath !== undefined && g.keyPath === task.routing.keyPath);
  const routeKeyCol = routeKeyGroup >= 0 ? groupCol[routeKeyGroup]! : null;
  let rrCounter = 0;

  // ── state
  const depth = new Int32Array(P);
  const depthList = new Array<number>(P).fill(0); // leastLoadedPartition reads a number list
  // (from the scratch buffers unless traced: the trace returns these two)
  const scratch = input.trace ? undefined : input.scratch;
  const partitionOf = scratch ? scratch.int32(0, n) : new Int32Array(n);
  const claimAt = (scratch ? scratch.float64(0, n) : new Float64Array(n)).fill(NaN);
  const finishAt = input.trace ? new Float64Array(n).fill(NaN) : undefined;
  const ready: IntHeap[] = Array.from({ length: C }, () => new IntHeap());
  const readyFair: (IntHeap | undefined)[][] = fg >= 0 ? Array.from({ length: C }, () => new Array<IntHeap | undefined>(K + 1)) : [];
  const readyCount = new Int32Array(C);
  const slots = Int32Array.from(input.coordinators);
  const freeSlots = Int32Array.from(input.coordinators);
  const peakPerCoord = new Array<number>(C).fill(0);
  let running = 0;
  let peakRunning = 0;
  let queuedTotal = 0;
  const done = new EventHeap();
  // The completer (input.completer): per coordinator, handlers claimed and not yet ended,
  // the ended ones waiting for their batch, and whether its flush timer is set. Events:
  // id n + i = execution i's handler ended; id TIMER - c = coordinator c's flush timer.
  const live = flushMs === undefined ? null : new Int32Array(C);
  const batch: number[][] = live ? Array.from({ length: C }, () => []) : [];
  const timerSet = live ? new Uint8Array(C) : null;
  let finished = 0;
  let finishedInWindow = 0;

  // per-tick accumulators for the alert window
  const windowTicks = Math.max(1, Math.round(policy.windowMs / tickMs));
  const ring = Array.from({ length: windowTicks }, () => ({
    wait: new Uint32Array(HIST_BUCKETS),
    run: new Uint32Array(HIST_BUCKETS),
    latency: new Uint32Array(HIST_BUCKETS),
    arrivals: new Float64Array(P),
    arrived: 0,
    processed: 0,
  }));
  let cur = ring[0]!;
  let tickNo = 0;
  const depthAt: number[] = [];
  const depthByPartition: number[][] = Array.from({ length: P }, () => []);
  let maxDepth = 0;
  const alertStates = new Map<string, AlertState>();
  const fired = new Map<string, FiredAlert>();
  const definition = { routing: task.routing, thresholds: task.thresholds };

  const route = (i: number): number => {
    const recorded = cols.partition[i]!;
    if (sameRouting && recorded >= 0 && recorded < P) return recorded;
    switch (task.routing.strategy) {
      case 'round-robin':
        return rrCounter++ % P;
      case 'random':
        return randomIndex(P, rand);
      case 'least-loaded':
        return leastLoadedPartition(depthList, rrCounter++);
      case 'hash': {
        const nm = cols.routingKey && cols.routingKey[i]! >= 0 ? cols.routingKey[i]! : routeKeyCol ? routeKeyCol[i]! : -1;
        const key = nm >= 0 ? cols.names[nm]! : undefined;
        // The engine refuses an execution without its hash key; a recording made under
        // another routing may lack it, so such an execution is spread by its arrival index.
        return key !== undefined && key !== '' ? hashPartition(key, P) : stableHash32(String(i)) % P;
      }
    }
  };

  const makeReady = (i: number) => {
    const c = owners[partitionOf[i]!]!;
    readyCount[c]!++;
    if (fg < 0) {
      ready[c]!.push(rank(i));
      return;
    }
    const k = keyAt(i, fg);
    const row = readyFair[c]!;
    const s = k < 0 ? K : k;
    (row[s] ??= new IntHeap()).push(rank(i));
  };

  const ensureKeyWake = (k: number, now: number) => {
    if (keyWake[k]) return;
    keyWake[k] = 1;
    done.push(now + nextSlotInMs(keyRate[k]!, tatOrNull(keyTat[k]!), now), -1 - k);
  };
  const ensureTaskWake = (now: number) => {
    if (taskWake) return;
    taskWake = 1;
    done.push(now + nextSlotInMs(taskRate!, tatOrNull(taskTat), now), -1 - K);
  };

  // Why i cannot start now: 0 it can; 1 a full key (blockedKey); 2 a rate-held key (blockedKey); 3 the task's rate.
  let blockedKey = -1;
  const check = (i: number, now: number): number => {
    for (let g = 0; g < G; g++) {
      const k = keyAt(i, g);
      if (k >= 0 && inflight[k]! >= keyLimit[k]!) {
        blockedKey = k;
        return 1;
      }
    }
    if (taskRate !== null && rateAllowance(taskRate, tatOrNull(taskTat), now) < -RATE_EPS) return 3;
    if (anyKeyRate) {
      for (let g = 0; g < G; g++) {
        const k = keyAt(i, g);
        if (k >= 0 && keyRate[k] !== null && rateAllowance(keyRate[k]!, tatOrNull(keyTat[k]!), now) < -RATE_EPS) {
          blockedKey = k;
          return 2;
        }
      }
    }
    return 0;
  };
  /** Sets i aside on the key that holds it (status 1 or 2 of check). */
  const hold = (i: number, status: number, now: number) => {
    const k = blockedKey;
    if (status === 1) (waiting[k] ??= new IntHeap()).push(rank(i));
    else {
      (rateWaiting[k] ??= new IntHeap()).push(rank(i));
      ensureKeyWake(k, now);
    }
  };

  const start = (i: number, c: number, now: number) => {
    claimAt[i] = now;
    depth[partitionOf[i]!]!--;
    depthList[partitionOf[i]!]!--;
    queuedTotal--;
    running++;
    if (running > peakRunning) peakRunning = running;
    freeSlots[c]!--;
    const busy = slots[c]! - freeSlots[c]!;
    if (busy > peakPerCoord[c]!) peakPerCoord[c] = busy;
    for (let g = 0; g < G; g++) {
      const k = keyAt(i, g);
      if (k >= 0) {
        inflight[k]!++;
        queuedByKey[k]!--;
        claimedByKey[k]!++;
      }
    }
    if (taskRate !== null) taskTat = chargeTat(taskRate, tatOrNull(taskTat), now, costOf(i));
    if (anyKeyRate) {
      for (let g = 0; g < G; g++) {
        const k = keyAt(i, g);
        if (k < 0 || keyRate[k] === null) continue;
        keyTat[k] = chargeTat(keyRate[k]!, tatOrNull(keyTat[k]!), now, costOf(i));
        // rows parked on the key's rate are released at its next slot
        const w = rateWaiting[k];
        if (w !== undefined && w.size > 0) ensureKeyWake(k, now);
      }
    }
    cur.wait[histBucket(now - AT[i]!)]!++;
    if (live) {
      // its handler ends; the completer decides when the finish is written
      live[c]!++;
      done.push(now + HANDLER[i]!, n + i);
      return;
    }
    // its slots come free handoff after it finishes (the release event)
    if (drawn === null) done.push(now + RUN[i]! + handoff, i);
    else {
      const h = HANDOFFS![Math.floor(drawRand() * HANDOFFS!.length)]!;
      drawn[i] = h;
      done.push(now + RUN[i]! + h, i);
    }
  };

  /** Coordinator c claims in claim order until it or the task is full (fifo). */
  const claimFifo = (c: number, now: number) => {
    const h = ready[c]!;
    while (h.size > 0 && freeSlots[c]! > 0 && running < conc) {
      const i = atRank(h.pop());
      readyCount[c]!--;
      const s = check(i, now);
      if (s === 0) start(i, c, now);
      else if (s === 3) {
        h.push(rank(i));
        readyCount[c]!++;
        ensureTaskWake(now);
        return;
      } else hold(i, s, now);
    }
  };

  /** Coordinator c claims slot by slot; fairClaim picks each among the keys' admissible heads. */
  const claimFair = (c: number, now: number) => {
    const row = readyFair[c]!;
    const weights = fairWeights;
    while (readyCount[c]! > 0 && freeSlots[c]! > 0 && running < conc) {
      const window: FairCandidate[] = [];
      const heads: number[] = [];
      for (let s = 0; s <= K; s++) {
        const h = row[s];
        if (h === undefined) continue;
        while (h.size > 0) {
          const i = atRank(h.peek());
          const st = check(i, now);
          if (st === 0) {
            heads.push(i);
            break;
          }
          if (st === 3) {
            ensureTaskWake(now);
            return;
          }
          h.pop();
          readyCount[c]!--;
          hold(i, st, now);
        }
      }
      if (heads.length === 0) return;
      heads.sort((a, b) => rank(a) - rank(b));
      for (const i of heads) {
        const k = keyAt(i, fg);
        window.push({ id: i, key: k < 0 ? null : keyName[k]! });
      }
      const keys = new Map<string, FairKey>();
      for (const k of fairKeys) {
        if (inflight[k]! === 0 && queuedByKey[k]! === 0) continue;
        keys.set(keyName[k]!, { key: keyName[k]!, running: inflight[k]!, weight: keyWeight(weights, keyName[k]!), waiting: queuedByKey[k]! > 0 && inflight[k]! < keyLimit[k]!, limit: keyLimit[k]! });
      }
      const [i] = fairClaim(window, keys, conc, 1);
      if (i === undefined) return;
      const k = keyAt(i, fg);
      row[k < 0 ? K : k]!.pop();
      readyCount[c]!--;
      start(i, c, now);
    }
  };
  const claim = fg >= 0 ? claimFair : claimFifo;

  const claimEverywhere = (first: number, now: number) => {
    claim(first, now);
    for (let c = 0; c < C && running < conc; c++) if (c !== first && readyCount[c]! > 0) claim(c, now);
  };

  const arrive = (i: number) => {
    const p = route(i);
    partitionOf[i] = p;
    depth[p]!++;
    depthList[p]!++;
    queuedTotal++;
    cur.arrivals[p]!++;
    cur.arrived++;
    for (let g = 0; g < G; g++) {
      const k = keyAt(i, g);
      if (k >= 0) queuedByKey[k]!++;
    }
    if (STREAM !== undefined) {
      const s = STREAM[i]!;
      if (s >= 0) {
        if (streamBusy![s]) return -1; // released by the finish of the one before it
        streamBusy![s] = 1;
      }
    }
    makeReady(i);
    return owners[p]!;
  };

  const TIMER = -2 - K;
  /** The completer writes coordinator c's batch at `now`: its finishes free their slots one
   *  hand-off later (the release event), one draw for the batch (its one sluice_cycle). */
  const flushBatch = (c: number, now: number) => {
    const h = drawn === null ? handoff : HANDOFFS![Math.floor(drawRand() * HANDOFFS!.length)]!;
    for (const i of batch[c]!) {
      if (drawn !== null) drawn[i] = h;
      done.push(now + h, i);
    }
    batch[c]!.length = 0;
  };
  /** Execution i's handler ended: into its coordinator's batch, written at once when no other
   *  handler there is still running (nothingMoreComing), else when the timer fires. */
  const handlerEnded = (i: number, now: number) => {
    const c = owners[partitionOf[i]!]!;
    live![c]!--;
    batch[c]!.push(i);
    if (live![c] === 0) flushBatch(c, now);
    else if (timerSet![c] === 0) {
      timerSet![c] = 1;
      done.push(now + flushMs!, TIMER - c);
    }
  };

  const finish = (i: number, now: number, arrivedUpTo: number) => {
    const c = owners[partitionOf[i]!]!;
    const endedAt = drawn === null ? now - handoff : now - drawn[i]!; // it finished then; its slots free now
    running--;
    freeSlots[c]!++;
    finished++;
    if (endedAt <= durationMs) finishedInWindow++;
    if (finishAt) finishAt[i] = endedAt;
    cur.run[histBucket(live ? endedAt - claimAt[i]! : RUN[i]!)]!++;
    cur.latency[histBucket(endedAt - AT[i]!)]!++;
    cur.processed++;
    for (let g = 0; g < G; g++) {
      const k = keyAt(i, g);
      if (k < 0) continue;
      inflight[k]!--;
      // Release the first rows (claim order) waiting on this key, as many as it now has room for.
      const w = waiting[k];
      let room = keyLimit[k]! - inflight[k]!;
      while (w !== undefined && w.size > 0 && room-- > 0) makeReady(atRank(w.pop()));
    }
    if (STREAM !== undefined && STREAM[i]! >= 0) {
      const j = nextInStream![i]!;
      if (j >= 0 && j < arrivedUpTo) makeReady(j);
      else streamBusy![STREAM[i]!] = 0;
    }
    return c;
  };

  /** A rate-held key's next slot: release as many parked rows as its allowance admits. */
  const keyWakeUp = (k: number, now: number) => {
    keyWake[k] = 0;
    const w = rateWaiting[k];
    if (w === undefined) return;
    const allowance = rateAllowance(keyRate[k]!, tatOrNull(keyTat[k]!), now);
    if (allowance < -RATE_EPS) {
      // Rows of the key started since this wake was set (from the ready rows, at the same
      // instant or after rows it released were held elsewhere) and spent the slot: wake at
      // the next one. (Dropping the wake here left the parked rows unclaimed for good.)
      if (w.size > 0) ensureKeyWake(k, now);
      return;
    }
    let before = 0;
    while (w.size > 0 && before <= allowance + RATE_EPS) {
      const i = atRank(w.pop());
      before += costOf(i);
      makeReady(i);
    }
  };

  const evaluate = (at: number) => {
    // depth sample
    depthAt.push(at);
    for (let p = 0; p < P; p++) {
      depthByPartition[p]!.push(depth[p]!);
      if (depth[p]! > maxDepth) maxDepth = depth[p]!;
    }
    // window totals over the last windowTicks ticks (the evaluator's 5-minute window)
    let arrived = 0;
    let processed = 0;
    const perPartition = new Array<number>(P).fill(0);
    for (const r of ring) {
      arrived += r.arrived;
      processed += r.processed;
      for (let p = 0; p < P; p++) perPartition[p]! += r.arrivals[p]!;
    }
    const totals: WindowTotals = {
      arrivals: arrived,
      processed,
      failed: 0,
      retried: 0,
      dead_lettered: 0,
      shed: 0,
      rejected: 0,
      spills: 0,
      throttled: 0,
      latency_p99_ms: histPercentile(ring.map((r) => r.latency), 99),
      wait_p99_ms: histPercentile(ring.map((r) => r.wait), 99),
      run_p99_ms: histPercentile(ring.map((r) => r.run), 99),
    };
    const keyLoads: GroupKeyLoad[] = [];
    for (let g = 0; g < G; g++) {
      const loads: { k: number; load: number }[] = [];
      let total = 0;
      for (let id = 0; id < K; id++) {
        if (keyGroup[id] !== g) continue;
        const load = inflight[id]! + queuedByKey[id]!;
        if (load > 0) {
          loads.push({ k: id, load });
          total += load;
        }
      }
      loads.sort((a, b) => b.load - a.load || a.k - b.k);
      for (const { k } of loads.slice(0, 20)) {
        keyLoads.push({ group_name: groups[g]!.name, group_key: keyName[k]!, in_flight: inflight[k]!, queued: queuedByKey[k]!, group_total: total, group_active: loads.length });
      }
    }
    const observations = observeTask({ task: task.name, definition, depths: Array.from(depth), arrivals: perPartition, totals, keyLoads }, alertStates, policy);
    for (const o of observations) {
      const step = stepAlert(alertStates.get(o.key), { breaching: o.breaching, value: o.value, at }, o.timing);
      if (step.state) alertStates.set(o.key, step.state);
      else alertStates.delete(o.key);
      for (const e of step.events) {
        if (e.type !== 'fired') continue;
        const seen = fired.get(o.key);
        if (!seen) fired.set(o.key, { rule: o.rule, subject: o.subject, severity: o.severity, firstFiredAt: at, peakValue: e.peakValue });
        else if (o.severity === 'critical') seen.severity = 'critical';
      }
      const seen = fired.get(o.key);
      if (seen && step.state) {
        if (o.severity === 'critical' && (step.state.status === 'firing' || step.state.status === 'acknowledged')) seen.severity = 'critical';
        if (step.state.peakValue !== null && (seen.peakValue === null || step.state.peakValue > seen.peakValue)) seen.peakValue = step.state.peakValue;
      }
    }
    // next tick's slice
    tickNo++;
    cur = ring[tickNo % windowTicks]!;
    cur.wait.fill(0);
    cur.run.fill(0);
    cur.latency.fill(0);
    cur.arrivals.fill(0);
    cur.arrived = 0;
    cur.processed = 0;
  };

  // ── the event loop: finishes before arrivals at the same instant (a freed slot is reused);
  //    events with a negative id are rate wake-ups (-1 - k: key k's next slot; -1 - K: the task's).
  let next = 0;
  // When arrival `next` becomes claimable: its ready time + the pick-up (drawn once per ready
  // instant with PICKUPS), never before the one before it.
  let readyAt = NaN;
  let claimableAt = -Infinity;
  const claimable = (i: number): number => {
    if (i >= n) return Infinity;
    if (PICKUPS === null) return AT[i]! + pickup;
    if (AT[i] !== readyAt) {
      readyAt = AT[i]!;
      claimableAt = Math.max(claimableAt, readyAt + PICKUPS[Math.floor(pickRand() * PICKUPS.length)]!);
    }
    return claimableAt;
  };
  let nextAt = claimable(0);
  let nextTick = tickMs;
  let drainedAt: number | null = null;
  let backlogAtEnd = -1;
  for (;;) {
    const tArr = nextAt;
    const tDone = done.peekTime();
    const tEvent = tArr < tDone ? tArr : tDone;
    if (backlogAtEnd < 0 && tEvent > durationMs) backlogAtEnd = queuedTotal;
    // Ticks run while there is work or the window lasts; past the window only until it drains.
    if (nextTick <= tEvent && (nextTick <= durationMs || tEvent !== Infinity) && nextTick <= horizonEnd) {
      evaluate(nextTick);
      nextTick += tickMs;
      continue;
    }
    if (tEvent === Infinity || tEvent > horizonEnd) break;
    if (tDone <= tArr) {
      const id = done.pop();
      if (id >= n) handlerEnded(id - n, tDone);
      else if (id >= 0) claimEverywhere(finish(id, tDone, next), tDone);
      else if (id <= TIMER) {
        const c = TIMER - id;
        timerSet![c] = 0;
        if (batch[c]!.length > 0) flushBatch(c, tDone);
      } else if (id === -1 - K) {
        taskWake = 0;
        claimEverywhere(0, tDone);
      } else {
        keyWakeUp(-1 - id, tDone);
        claimEverywhere(0, tDone);
      }
    } else {
      const c = arrive(next);
      next++;
      nextAt = claimable(next);
      if (c >= 0 && running < conc) claim(c, tArr);
    }
    if (queuedTotal === 0 && next >= n && drainedAt === null) drainedAt = tEvent;
    if (queuedTotal > 0) drainedAt = null;
  }
  if (backlogAtEnd < 0) backlogAtEnd = queuedTotal;
  const drainMs = queuedTotal > 0 ? null : backlogAtEnd === 0 ? 0 : Math.max(0, (drainedAt ?? durationMs) - durationMs);

  // ── waits: exact nearest-rank percentiles per key, then overall. One pass over the
  //    executions scatters each claimed one's wait into its keys' segments (a counting sort
  //    by key: the counts were kept by start()) and packs the waits at the front of claimAt
  //    (in place: an execution's wait is written at or before its own index, after its
  //    claim time was read), unless the trace returns claimAt.
  const keyWaits: KeyWait[] = [];
  const counts = new Int32Array(K + 1);
  for (let k = 0; k < K; k++) counts[k + 1] = counts[k]! + claimedByKey[k]!;
  const offsets = counts.slice();
  const byKey = K === 0 ? null : input.scratch ? input.scratch.float64(1, counts[K]!) : new Float64Array(counts[K]!);
  const waits = input.trace ? new Float64Array(n) : claimAt;
  let claimed = 0;
  for (let i = 0; i < n; i++) {
    const c = claimAt[i]!;
    if (Number.isNaN(c)) continue;
    const w = c - AT[i]!;
    waits[claimed++] = w;
    if (byKey === null) continue;
    for (let g = 0; g < G; g++) {
      const k = keyAt(i, g);
      if (k >= 0) byKey[offsets[k]!++] = w;
    }
  }
  if (byKey !== null) {
    for (let k = 0; k < K; k++) {
      const seg = byKey.subarray(counts[k]!, counts[k + 1]!);
      if (seg.length === 0) continue;
      const q = waitPercentiles(seg);
      keyWaits.push({
        group: groups[keyGroup[k]!]!.name,
        key: keyName[k]!,
        limit: keyLimit[k]!,
        count: seg.length,
        p50WaitMs: q.p50,
        p99WaitMs: q.p99,
        maxWaitMs: q.max,
        p99FewSamples: seg.length < MIN_P99_SAMPLES,
      });
    }
    keyWaits.sort((a, b) => b.p99WaitMs - a.p99WaitMs || (a.group < b.group ? -1 : a.group > b.group ? 1 : a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }
  const all = claimed > 0 ? waitPercentiles(waits.subarray(0, claimed)) : null;
  const wait = all ? { count: claimed, p50Ms: all.p50, p99Ms: all.p99, maxMs: all.max } : { count: 0, p50Ms: null, p99Ms: null, maxMs: null };

  return {
    partitions: P,
    depth: { at: depthAt, byPartition: depthByPartition },
    maxDepth,
    wait,
    keyWaits,
    throughputPerS: durationMs > 0 ? (finishedInWindow * 1000) / durationMs : 0,
    finished,
    backlogAtEnd,
    drainMs,
    alerts: [...fired.values()].sort((a, b) => a.firstFiredAt - b.firstFiredAt || (a.rule < b.rule ? -1 : 1)),
    peaks: { running: peakRunning, perCoordinator: peakPerCoord },
    ...(input.trace && finishAt
      ? { trace: { claimAt, finishAt, coordinator: Int32Array.from(partitionOf, (p) => owners[p]!), partition: partitionOf } }
      : {}),
  };
}

/**
 * Handler times for the completer model (SimulationInput.completer): each execution's
 * recorded run time less the flush wait the recorded schedule gave it. That wait is not
 * recorded (a run time is claim → finish written), so it is fitted by replaying the recorded
 * config with the completer: one offset W for every execution, handler = max(0, run − W),
 * moved each replay by how far the replay's mean run time (finish − claim) lies from the
 * recording's (`rounds` replays; the waits are a few ms against runs of tens, so it settles
 * fast). One offset, not each execution's own simulated wait: until 2026-12-02 each run
 * lost the wait its replay gave it, and where the replay put waits the engine had not (its
 * handlers end together; the replay's, from recorded run times spread by the finish's own
 * write, do not), the fitted handlers came out shorter than the handler can be (p10 38 ms
 * for a 40 ms sleep), a near-saturated key ran 3–4% faster than the engine and its p99 was
 * predicted 15–25% low (docs/benchmarks.md, sixteenth session).
 * `input` is the recorded config's simulation (its arrivals, coordinators, latencies and
 * completer); its `handlerMs`, `trace` and `scratch` are ignored.
 */
export function fitHandlerTimes(input: SimulationInput, rounds = 3): Float64Array {
  const cols = Array.isArray(input.arrivals) ? toArrivalColumns(input.arrivals as readonly WhatIfArrival[]) : (input.arrivals as WhatIfArrivalColumns);
  const run = cols.runMs;
  const n = cols.length;
  let recorded = 0;
  for (let i = 0; i < n; i++) recorded += run[i]!;
  recorded = n > 0 ? recorded / n : 0;
  let offset = 0;
  const handler = Float64Array.from(run);
  for (let r = 0; r < rounds && n > 0; r++) {
    const { trace } = simulate({ ...input, arrivals: cols, handlerMs: handler, trace: true, scratch: undefined });
    let sum = 0;
    let m = 0;
    for (let i = 0; i < n; i++) {
      const claim = trace!.claimAt[i]!;
      const fin = trace!.finishAt[i]!;
      if (Number.isNaN(claim) || Number.isNaN(fin)) continue;
      sum += fin - claim;
      m++;
    }
    if (m === 0) break;
    offset = Math.max(0, offset + sum / m - recorded);
    for (let i = 0; i < n; i++) handler[i] = Math.max(0, run[i]! - offset);
  }
  return handler;
}
