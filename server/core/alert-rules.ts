// Alert rules: what counts as a hot partition or a hot key, and the life of an alert
// (pending → firing → acknowledged → resolved) with a for-duration before firing and a
// clear-duration before resolving, so a value wobbling around its threshold neither
// fires early nor flaps. The evaluator in server/services calls these with numbers read
// from counters and writes the returned state and events.
// Pure: no I/O imports (server/core rule).
import { median } from './metrics';
import type { RoutingStrategy } from './routing';

// ─── Hot partitions ──────────────────────────────────────────────────────────────

export interface HotPartitionInput {
  /** Depth per partition, index = partition number. */
  depths: readonly number[];
  /** Arrivals per partition over the window (same length), or empty to skip that test. */
  arrivals?: readonly number[];
  /** A partition at or below this depth is never hot: small queues are not incidents. */
  floorDepth: number;
  /** How many times the siblings' median counts as "far above", e.g. 3. */
  factor: number;
}

export type HotReason = 'depth' | 'arrivals';

export interface HotPartition {
  partition: number;
  depth: number;
  siblingMedianDepth: number;
  /** depth ÷ sibling median; null when the median is 0 (any depth above the floor is hot). */
  depthRatio: number | null;
  arrivals: number | null;
  siblingMedianArrivals: number | null;
  arrivalRatio: number | null;
  reasons: HotReason[];
}

function checkCounts(name: string, xs: readonly number[]): void {
  xs.forEach((x, i) => {
    if (!Number.isFinite(x) || x < 0) throw new RangeError(`${name}[${i}] must be a finite number ≥ 0, got ${x}`);
  });
}

/**
 * A partition is hot when its depth is above `floorDepth` AND either its depth or its
 * arrivals are ≥ factor × the median of its siblings' (all other partitions'). Arrivals
 * only count when positive. A task with one partition has no siblings and is never hot.
 * Result ordered by partition number.
 */
export function detectHotPartitions(input: HotPartitionInput): HotPartition[] {
  const { depths, floorDepth, factor } = input;
  const arrivals = input.arrivals && input.arrivals.length > 0 ? input.arrivals : undefined;
  if (!(factor >= 1) || !Number.isFinite(factor)) throw new RangeError(`factor must be a finite number ≥ 1, got ${factor}`);
  if (!Number.isFinite(floorDepth) || floorDepth < 0) throw new RangeError(`floorDepth must be a finite number ≥ 0, got ${floorDepth}`);
  checkCounts('depths', depths);
  if (arrivals) {
    if (arrivals.length !== depths.length) {
      throw new RangeError(`arrivals has ${arrivals.length} entries for ${depths.length} partitions`);
    }
    checkCounts('arrivals', arrivals);
  }
  if (depths.length < 2) return [];
  const without = (xs: readonly number[], i: number) => xs.filter((_, j) => j !== i);
  const ratio = (x: number, m: number) => (m === 0 ? null : x / m);

  const hot: HotPartition[] = [];
  depths.forEach((depth, i) => {
    if (depth <= floorDepth) return;
    const medDepth = median(without(depths, i))!;
    const reasons: HotReason[] = [];
    if (depth >= factor * medDepth) reasons.push('depth');
    let a: number | null = null;
    let medA: number | null = null;
    if (arrivals) {
      a = arrivals[i]!;
      medA = median(without(arrivals, i))!;
      if (a > 0 && a >= factor * medA) reasons.push('arrivals');
    }
    if (reasons.length === 0) return;
    hot.push({
      partition: i,
      depth,
      siblingMedianDepth: medDepth,
      depthRatio: ratio(depth, medDepth),
      arrivals: a,
      siblingMedianArrivals: medA,
      arrivalRatio: a === null || medA === null ? null : ratio(a, medA),
      reasons,
    });
  });
  return hot;
}

/** The suggestion shown beside a hot-partition alert. */
export function hotPartitionRemedy(strategy: RoutingStrategy, reasons: readonly HotReason[]): string {
  if (strategy === 'hash') {
    return reasons.includes('arrivals')
      ? 'Hash routing sends every execution with the same key to one partition: a few heavy keys are landing here. Route on a finer-grained key path, or cap the heavy key with a concurrency group override.'
      : 'Arrivals look even but this partition drains slowly: check the coordinator that owns it (slow handlers, a stuck lease) or whether its keys run longer.';
  }
  if (reasons.includes('arrivals')) {
    return `With ${strategy} routing arrivals should be even; check producers that pass an explicit partition or a routing change in the latest config version.`;
  }
  return 'This partition drains more slowly than its siblings: check the coordinator that owns it (heartbeat, errors, slow handlers) or switch to least-loaded routing.';
}

// ─── Hot keys ────────────────────────────────────────────────────────────────────

export interface KeyLoad {
  key: string;
  inFlight: number;
  queued: number;
}

export interface HotKey extends KeyLoad {
  load: number;
  /** load ÷ total load of all keys of the group. */
  share: number;
}

/**
 * A key is hot when its load (inFlight + queued) is above `floor` and it holds at least
 * `dominantShare` (0–1) of the group's total load. Needs at least two keys with load: a
 * group with a single active key has nothing to dominate. Result by share, descending.
 */
export function detectHotKeys(keys: readonly KeyLoad[], opts: { dominantShare: number; floor: number }): HotKey[] {
  const { dominantShare, floor } = opts;
  if (!(dominantShare > 0 && dominantShare <= 1)) throw new RangeError(`dominantShare must be within (0, 1], got ${dominantShare}`);
  if (!Number.isFinite(floor) || floor < 0) throw new RangeError(`floor must be a finite number ≥ 0, got ${floor}`);
  let total = 0;
  let active = 0;
  for (const k of keys) {
    if (!Number.isFinite(k.inFlight) || k.inFlight < 0 || !Number.isFinite(k.queued) || k.queued < 0) {
      throw new RangeError(`key "${k.key}" has invalid counts in-flight ${k.inFlight} / queued ${k.queued}`);
    }
    const load = k.inFlight + k.queued;
    total += load;
    if (load > 0) active++;
  }
  if (active < 2) return [];
  return keys
    .map((k) => ({ ...k, load: k.inFlight + k.queued, share: (k.inFlight + k.queued) / total }))
    .filter((k) => k.load > floor && k.share >= dominantShare)
    .sort((a, b) => b.share - a.share || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

// ─── Alert state machine ─────────────────────────────────────────────────────────

export type AlertStatus = 'pending' | 'firing' | 'acknowledged' | 'resolved';

export interface AlertState {
  status: AlertStatus;
  /** When the current status began (ms epoch). */
  since: number;
  /** Start of the current run of breaching observations; undefined while not breaching. */
  breachingSince?: number;
  /** While firing/acknowledged: start of the current run of clear observations. */
  clearSince?: number;
  firedAt?: number;
  acknowledgedAt?: number;
  acknowledgedBy?: string;
  resolvedAt?: number;
  /** Notifications are suppressed until this time (ms epoch); history is still written. */
  silencedUntil?: number;
  lastValue: number | null;
  /** Largest value seen in this episode (pending or firing). */
  peakValue: number | null;
  /** Time of the last observation applied; older observations are ignored. */
  lastObservedAt: number;
}

export interface AlertObservation {
  breaching: boolean;
  value: number | null;
  at: number;
}

export interface AlertRuleTiming {
  /** Breaching continuously for this long before firing (0 = fire on the first breach). */
  forMs: number;
  /** Clear continuously for this long before resolving (0 = resolve on the first clear). */
  clearForMs: number;
}

export interface AlertEvent {
  type: 'fired' | 'resolved';
  at: number;
  value: number | null;
  peakValue: number | null;
  /** True when notifications are silenced at `at`: record it, don't notify. */
  silenced: boolean;
}

export interface AlertStep {
  /** undefined: no alert episode exists (never breached, or pending that cleared). */
  state: AlertState | undefined;
  events: AlertEvent[];
}

const peak = (a: number | null, b: number | null): number | null => (a === null ? b : b === null ? a : Math.max(a, b));

function checkTiming(rule: AlertRuleTiming): void {
  for (const k of ['forMs', 'clearForMs'] as const) {
    if (!Number.isFinite(rule[k]) || rule[k] < 0) throw new RangeError(`${k} must be a finite number ≥ 0, got ${rule[k]}`);
  }
}

/**
 * Applies one observation. Transitions:
 *   none/resolved + breach        → pending (→ firing at once when forMs = 0)
 *   pending + breach ≥ forMs      → firing, event 'fired'
 *   pending + clear               → none (it never fired; nothing to record)
 *   firing/ack + clear ≥ clearForMs → resolved, event 'resolved'
 *   firing/ack + breach           → stays; a clear run in progress is cancelled
 * Observations older than the last one applied are ignored (state unchanged, no events).
 * A silence carries over into the next episode while it lasts.
 */
export function stepAlert(state: AlertState | undefined, obs: AlertObservation, rule: AlertRuleTiming): AlertStep {
  checkTiming(rule);
  if (!Number.isFinite(obs.at)) throw new RangeError(`observation time must be finite, got ${obs.at}`);
  if (state && obs.at < state.lastObservedAt) return { state, events: [] };
  const silenced = (s: AlertState | undefined) => s?.silencedUntil !== undefined && obs.at < s.silencedUntil;
  const event = (type: AlertEvent['type'], s: AlertState): AlertEvent => ({
    type,
    at: obs.at,
    value: obs.value,
    peakValue: s.peakValue,
    silenced: silenced(s),
  });

  const active = state && (state.status === 'pending' || state.status === 'firing' || state.status === 'acknowledged');

  if (!active) {
    if (!obs.breaching) return { state: state ? { ...state, lastValue: obs.value, lastObservedAt: obs.at } : undefined, events: [] };
    // A new episode; only a still-running silence is carried over.
    const carry = state?.silencedUntil !== undefined && obs.at < state.silencedUntil ? { silencedUntil: state.silencedUntil } : {};
    const pending: AlertState = {
      status: 'pending',
      since: obs.at,
      breachingSince: obs.at,
      lastValue: obs.value,
      peakValue: obs.value,
      lastObservedAt: obs.at,
      ...carry,
    };
    if (rule.forMs === 0) {
      const firing: AlertState = { ...pending, status: 'firing', firedAt: obs.at };
      return { state: firing, events: [event('fired', firing)] };
    }
    return { state: pending, events: [] };
  }

  const s: AlertState = { ...state, lastValue: obs.value, lastObservedAt: obs.at };

  if (s.status === 'pending') {
    if (!obs.breaching) {
      // Never fired: the episode is dropped with no event. A running silence is kept on a
      // quiet 'resolved' state (no resolvedAt) so the next breach is still silenced.
      if (s.silencedUntil === undefined || obs.at >= s.silencedUntil) return { state: undefined, events: [] };
      const quiet: AlertState = {
        status: 'resolved',
        since: obs.at,
        silencedUntil: s.silencedUntil,
        lastValue: obs.value,
        peakValue: null,
        lastObservedAt: obs.at,
      };
      return { state: quiet, events: [] };
    }
    s.peakValue = peak(s.peakValue, obs.value);
    if (obs.at - (s.breachingSince ?? s.since) >= rule.forMs) {
      const firing: AlertState = { ...s, status: 'firing', since: obs.at, firedAt: obs.at };
      return { state: firing, events: [event('fired', firing)] };
    }
    return { state: s, events: [] };
  }

  // firing or acknowledged
  if (obs.breaching) {
    s.peakValue = peak(s.peakValue, obs.value);
    if (s.breachingSince === undefined) s.breachingSince = obs.at;
    delete s.clearSince;
    return { state: s, events: [] };
  }
  delete s.breachingSince;
  if (s.clearSince === undefined) s.clearSince = obs.at;
  if (obs.at - s.clearSince >= rule.clearForMs) {
    const resolved: AlertState = { ...s, status: 'resolved', since: obs.at, resolvedAt: obs.at };
    delete resolved.clearSince;
    return { state: resolved, events: [event('resolved', resolved)] };
  }
  return { state: s, events: [] };
}

/** An operator acknowledges a firing alert: it keeps its evidence and resolves as usual. */
export function acknowledgeAlert(state: AlertState, at: number, by: string): AlertState {
  if (state.status !== 'firing') throw new RangeError(`only a firing alert can be acknowledged (this one is ${state.status})`);
  return { ...state, status: 'acknowledged', since: at, acknowledgedAt: at, acknowledgedBy: by };
}

/** Suppresses notifications until `until` (ms epoch); the state machine keeps running. */
export function silenceAlert(state: AlertState, until: number): AlertState {
  if (!Number.isFinite(until)) throw new RangeError(`silence end must be finite, got ${until}`);
  return { ...state, silencedUntil: until };
}

/**
 * An operator resolves an alert by hand. If the condition still holds, the next
 * observations open a new episode that fires again after forMs.
 */
export function resolveAlert(state: AlertState, at: number): AlertStep {
  if (state.status === 'resolved') return { state, events: [] };
  const resolved: AlertState = { ...state, status: 'resolved', since: at, resolvedAt: at };
  delete resolved.clearSince;
  delete resolved.breachingSince;
  const fired = state.status === 'firing' || state.status === 'acknowledged';
  return {
    state: resolved,
    events: fired
      ? [{ type: 'resolved', at, value: state.lastValue, peakValue: state.peakValue, silenced: state.silencedUntil !== undefined && at < state.silencedUntil }]
      : [],
  };
}
