// What-if simulator: a discrete-event replay of one task's recorded arrivals (ready time,
// partition, group keys, stream key, run time) through a task config — task concurrency,
// partitions and routing, group limits with per-key overrides, streams — and the
// coordinators' slots, reporting what the claim would have done: depth per partition over
// time, wait (ready → claimed) per group key, the backlog's drain time, throughput, and
// the alert rules the evaluator would have fired (observeTask + stepAlert, the evaluator's
// own code, stepped every ALERT_EVALUATION_INTERVAL_MS of simulated time).
//
// The model of the claim (docs/architecture.md § Claiming): a coordinator claims the
// oldest ready executions of the partitions it owns, never more than its free slots and
// the task's free concurrency; an execution needs a slot of every (group, key) it carries
// for a group the config declares (override, else the group's limit) and is skipped — set
// aside until its key frees a slot, as the engine's `waiting_on` rows — when one is full
// (no head-of-line blocking); a stream key runs one at a time in arrival order. Claims
// happen the instant a slot frees or work arrives (the engine's refill and wake-up); the
// engine's own claim latency (a few ms per round) is not modelled, and the calibration
// test (test/integration/whatif-calibration.test.ts) measures what that costs.
//
// Not modelled: retries (each arrival is one execution with its recorded run time),
// backpressure at enqueue, pausing, coordinators joining or leaving during the window.
//
// Deterministic: the same input and seed give the same output (random routing draws from
// mulberry32(seed)). Pure: no I/O imports (server/core rule).
import { ALERT_EVALUATION_INTERVAL_MS, DEFAULT_ALERT_POLICY, type AlertPolicy, type AlertRule, type AlertSeverity } from './alert-evaluation';
import { stepAlert, type AlertState } from './alert-rules';
import { observeTask, type GroupKeyLoad, type WindowTotals } from './alert-observation';
import { hashPartition, leastLoadedPartition, randomIndex } from './routing';
import { stableHash32 } from './stable-hash';
import { mulberry32 } from './seeded-random';
import type { TaskDefinition } from './task-definition';

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
}

/** The parts of a task definition the simulation reads. */
export type WhatIfTaskConfig = Pick<TaskDefinition, 'name' | 'partitions' | 'concurrency' | 'routing' | 'groups' | 'thresholds'>;

export interface SimulationInput {
  task: WhatIfTaskConfig;
  /** Sorted by `at`. */
  arrivals: readonly WhatIfArrival[];
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

/** Min-heap of (time, id) pairs ordered by time (equal times leave in a fixed, input-determined order). */
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
      const p = (i - 1) >> 1;
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
      let c = 2 * i + 1;
      if (c >= n) break;
      if (c + 1 < n && T[c + 1]! < T[c]!) c++;
      if (T[c]! >= lt) break;
      T[i] = T[c]!;
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
function histBucket(ms: number): number {
  if (ms < 1) return 0;
  return Math.min(HIST_BUCKETS - 1, 1 + Math.floor(Math.log(ms) / LOG_STEP));
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

function checkInput(input: SimulationInput): void {
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
  let last = -Infinity;
  input.arrivals.forEach((a, i) => {
    if (!Number.isFinite(a.at) || a.at < last) throw new RangeError(`arrival ${i} is at ${a.at}; arrivals must be sorted by time`);
    if (!Number.isFinite(a.runMs) || a.runMs < 0) throw new RangeError(`arrival ${i} ran ${a.runMs} ms; must be a finite number ≥ 0`);
    last = a.at;
  });
}

export function simulate(input: SimulationInput): SimulationResult {
  checkInput(input);
  const { task, arrivals } = input;
  const n = arrivals.length;
  const P = task.partitions;
  const C = input.coordinators.length;
  const policy = input.policy ?? DEFAULT_ALERT_POLICY;
  const tickMs = input.tickMs ?? ALERT_EVALUATION_INTERVAL_MS;
  if (!(tickMs > 0)) throw new RangeError(`tickMs must be > 0, got ${tickMs}`);
  const durationMs = input.durationMs ?? (n > 0 ? arrivals[n - 1]!.at : 0);
  const horizonEnd = durationMs + (input.horizonMs ?? 86_400_000);
  const rand = mulberry32(input.seed);
  const owners = input.owners ?? Array.from({ length: P }, (_, p) => p % C);

  // ── keys: (group, key) pairs the config constrains, numbered; per arrival its key ids.
  const groups = task.groups;
  const G = groups.length;
  const keyIndex = groups.map(() => new Map<string, number>());
  const keyLimit: number[] = [];
  const keyGroup: number[] = [];
  const keyName: string[] = [];
  const arrivalKeys = new Int32Array(n * Math.max(1, G)).fill(-1);
  for (let i = 0; i < n; i++) {
    const ks = arrivals[i]!.keys;
    if (!ks) continue;
    for (let g = 0; g < G; g++) {
      const k = ks[groups[g]!.name];
      if (k === undefined) continue;
      let id = keyIndex[g]!.get(k);
      if (id === undefined) {
        id = keyLimit.length;
        keyIndex[g]!.set(k, id);
        const gr = groups[g]!;
        keyLimit.push(Object.hasOwn(gr.overrides, k) ? gr.overrides[k]! : gr.limit);
        keyGroup.push(g);
        keyName.push(k);
      }
      arrivalKeys[i * G + g] = id;
    }
  }
  const K = keyLimit.length;
  const inflight = new Int32Array(K);
  const queuedByKey = new Int32Array(K);
  const waiting: IntHeap[] = [];
  const waitingOf = (k: number) => (waiting[k] ??= new IntHeap());

  // ── streams: one running (or due) execution per stream key, the rest parked in order.
  const streamId = new Int32Array(n).fill(-1);
  const streamQueues: number[][] = [];
  const streamHead: number[] = [];
  {
    const ids = new Map<string, number>();
    for (let i = 0; i < n; i++) {
      const s = arrivals[i]!.stream;
      if (s === undefined) continue;
      let id = ids.get(s);
      if (id === undefined) {
        id = streamQueues.length;
        ids.set(s, id);
        streamQueues.push([]);
        streamHead.push(0);
      }
      streamId[i] = id;
    }
  }
  const streamBusy = new Uint8Array(streamQueues.length);

  // ── routing: reuse the recorded partition while the task routes the same way.
  const rec = input.recorded;
  const sameRouting =
    rec !== undefined &&
    rec.partitions === P &&
    rec.strategy === task.routing.strategy &&
    (task.routing.strategy !== 'hash' || rec.keyPath === task.routing.keyPath);
  const routeKeyGroup = groups.findIndex((g) => g.keyPath !== undefined && g.keyPath === task.routing.keyPath);
  let rrCounter = 0;

  // ── state
  const depth = new Int32Array(P);
  const partitionOf = new Int32Array(n);
  const claimAt = new Float64Array(n).fill(NaN);
  const finishAt = input.trace ? new Float64Array(n).fill(NaN) : undefined;
  const coordOf = new Int32Array(n).fill(-1);
  const ready: IntHeap[] = Array.from({ length: C }, () => new IntHeap());
  const freeSlots = Int32Array.from(input.coordinators);
  const peakPerCoord = new Array<number>(C).fill(0);
  let running = 0;
  let peakRunning = 0;
  let queuedTotal = 0;
  const done = new EventHeap();
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
    const a = arrivals[i]!;
    if (sameRouting && a.partition !== undefined && a.partition >= 0 && a.partition < P) return a.partition;
    switch (task.routing.strategy) {
      case 'round-robin':
        return rrCounter++ % P;
      case 'random':
        return randomIndex(P, rand);
      case 'least-loaded':
        // Int32Array reads as a number list; leastLoadedPartition only indexes and iterates it.
        return leastLoadedPartition(depth as unknown as readonly number[], rrCounter++);
      case 'hash': {
        const key = a.routingKey ?? (routeKeyGroup >= 0 ? a.keys?.[groups[routeKeyGroup]!.name] : undefined);
        // The engine refuses an execution without its hash key; a recording made under
        // another routing may lack it, so such an execution is spread by its arrival index.
        return key !== undefined && key !== '' ? hashPartition(key, P) : stableHash32(String(i)) % P;
      }
    }
  };

  const makeReady = (i: number) => ready[owners[partitionOf[i]!]!]!.push(i);

  const start = (i: number, c: number, now: number) => {
    claimAt[i] = now;
    coordOf[i] = c;
    depth[partitionOf[i]!]!--;
    queuedTotal--;
    running++;
    if (running > peakRunning) peakRunning = running;
    freeSlots[c]!--;
    const busy = input.coordinators[c]! - freeSlots[c]!;
    if (busy > peakPerCoord[c]!) peakPerCoord[c] = busy;
    for (let g = 0; g < G; g++) {
      const k = arrivalKeys[i * G + g]!;
      if (k >= 0) {
        inflight[k]!++;
        queuedByKey[k]!--;
      }
    }
    const a = arrivals[i]!;
    cur.wait[histBucket(now - a.at)]!++;
    done.push(now + a.runMs, i);
  };

  /** Coordinator c claims the oldest executions it may run until it or the task is full. */
  const claim = (c: number, now: number) => {
    const h = ready[c]!;
    while (h.size > 0 && freeSlots[c]! > 0 && running < task.concurrency) {
      const i = h.pop();
      let blocked = -1;
      for (let g = 0; g < G; g++) {
        const k = arrivalKeys[i * G + g]!;
        if (k >= 0 && inflight[k]! >= keyLimit[k]!) {
          blocked = k;
          break;
        }
      }
      if (blocked >= 0) waitingOf(blocked).push(i);
      else start(i, c, now);
    }
  };

  const claimEverywhere = (first: number, now: number) => {
    claim(first, now);
    for (let c = 0; c < C && running < task.concurrency; c++) if (c !== first && ready[c]!.size > 0) claim(c, now);
  };

  const arrive = (i: number) => {
    const p = route(i);
    partitionOf[i] = p;
    depth[p]!++;
    queuedTotal++;
    cur.arrivals[p]!++;
    cur.arrived++;
    for (let g = 0; g < G; g++) {
      const k = arrivalKeys[i * G + g]!;
      if (k >= 0) queuedByKey[k]!++;
    }
    const s = streamId[i]!;
    if (s >= 0) {
      if (streamBusy[s]) {
        streamQueues[s]!.push(i);
        return -1;
      }
      streamBusy[s] = 1;
    }
    makeReady(i);
    return owners[p]!;
  };

  const finish = (i: number, now: number) => {
    const c = coordOf[i]!;
    running--;
    freeSlots[c]!++;
    finished++;
    if (now <= durationMs) finishedInWindow++;
    if (finishAt) finishAt[i] = now;
    const a = arrivals[i]!;
    cur.run[histBucket(a.runMs)]!++;
    cur.latency[histBucket(now - a.at)]!++;
    cur.processed++;
    for (let g = 0; g < G; g++) {
      const k = arrivalKeys[i * G + g]!;
      if (k < 0) continue;
      inflight[k]!--;
      // Release the oldest rows waiting on this key, as many as it now has room for.
      const w = waiting[k];
      let room = keyLimit[k]! - inflight[k]!;
      while (w && w.size > 0 && room-- > 0) makeReady(w.pop());
    }
    const s = streamId[i]!;
    if (s >= 0) {
      const q = streamQueues[s]!;
      if (streamHead[s]! < q.length) makeReady(q[streamHead[s]!++]!);
      else streamBusy[s] = 0;
    }
    return c;
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
      for (const id of keyIndex[g]!.values()) {
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

  // ── the event loop: finishes before arrivals at the same instant (a freed slot is reused).
  let next = 0;
  let nextTick = tickMs;
  let drainedAt: number | null = null;
  let backlogAtEnd = -1;
  for (;;) {
    const tArr = next < n ? arrivals[next]!.at : Infinity;
    const tDone = done.peekTime();
    const tEvent = Math.min(tArr, tDone);
    if (backlogAtEnd < 0 && tEvent > durationMs) backlogAtEnd = queuedTotal;
    // Ticks run while there is work or the window lasts; past the window only until it drains.
    if (nextTick <= tEvent && (nextTick <= durationMs || tEvent !== Infinity) && nextTick <= horizonEnd) {
      evaluate(nextTick);
      nextTick += tickMs;
      continue;
    }
    if (tEvent === Infinity || tEvent > horizonEnd) break;
    if (tDone <= tArr) {
      const i = done.pop();
      const c = finish(i, tDone);
      claimEverywhere(c, tDone);
    } else {
      const c = arrive(next);
      next++;
      if (c >= 0 && running < task.concurrency) claim(c, tArr);
    }
    if (queuedTotal === 0 && next >= n && drainedAt === null) drainedAt = tEvent;
    if (queuedTotal > 0) drainedAt = null;
  }
  if (backlogAtEnd < 0) backlogAtEnd = queuedTotal;
  const drainMs = queuedTotal > 0 ? null : backlogAtEnd === 0 ? 0 : Math.max(0, (drainedAt ?? durationMs) - durationMs);

  // ── waits: exact nearest-rank percentiles, overall and per key.
  let claimed = 0;
  const waits = new Float64Array(n);
  for (let i = 0; i < n; i++) if (!Number.isNaN(claimAt[i]!)) waits[claimed++] = claimAt[i]! - arrivals[i]!.at;
  const all = claimed > 0 ? waitPercentiles(waits.subarray(0, claimed)) : null;
  const wait = all ? { count: claimed, p50Ms: all.p50, p99Ms: all.p99, maxMs: all.max } : { count: 0, p50Ms: null, p99Ms: null, maxMs: null };

  const keyWaits: KeyWait[] = [];
  if (K > 0) {
    // Counting sort of (arrival, key) pairs by key, then each key's waits sorted.
    const counts = new Int32Array(K + 1);
    for (let i = 0; i < n; i++) {
      if (Number.isNaN(claimAt[i]!)) continue;
      for (let g = 0; g < G; g++) {
        const k = arrivalKeys[i * G + g]!;
        if (k >= 0) counts[k + 1]!++;
      }
    }
    for (let k = 0; k < K; k++) counts[k + 1]! += counts[k]!;
    const offsets = counts.slice();
    const byKey = new Float64Array(counts[K]!);
    for (let i = 0; i < n; i++) {
      if (Number.isNaN(claimAt[i]!)) continue;
      const w = claimAt[i]! - arrivals[i]!.at;
      for (let g = 0; g < G; g++) {
        const k = arrivalKeys[i * G + g]!;
        if (k >= 0) byKey[offsets[k]!++] = w;
      }
    }
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
      });
    }
    keyWaits.sort((a, b) => b.p99WaitMs - a.p99WaitMs || (a.group < b.group ? -1 : a.group > b.group ? 1 : a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }

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
    ...(input.trace && finishAt ? { trace: { claimAt, finishAt, coordinator: coordOf, partition: partitionOf } } : {}),
  };
}
