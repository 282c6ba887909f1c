// "Why is this waiting?": the shapes sluice_why_waiting (server/db/sql/functions/sluice_why_waiting.sql)
// replies with, and the sentence each one reads as — the same words in the browser, the
// REST reply (`whyWaiting.text`) and `sluice executions show`.
// Pure: no I/O imports (server/core rule).
import { formatRate, formatWait } from './rate-limit';

export type WaitingHold =
  | { reason: 'spilled'; partition: number; depth: number; maxDepth: number | null; spilledAhead: number }
  | { reason: 'task_inactive'; task: string }
  | { reason: 'task_paused'; task: string }
  | {
      /** The task's circuit breaker holds it (issue 23): open, or half-open with every probe running. */
      reason: 'circuit_open';
      task: string;
      state: 'open' | 'half-open';
      since: string;
      openedAt: string | null;
      /** Why it tripped. */
      why: string;
      /** open: when the cool-down ends and probes may run. */
      probesAt: string | null;
    }
  | {
      reason: 'stream_head';
      stream: string;
      headId: number | null;
      headState: string | null;
      headAttempts: number | null;
      headRetryAt: string | null;
      headLeaseExpiresAt: string | null;
      headLastError: string | null;
    }
  | { reason: 'scheduled'; until: string; kind: 'retry_backoff' | 'delay'; attempts: number }
  | {
      reason: 'no_owner';
      partition: number;
      owner: string | null;
      ownerName: string | null;
      lastHeartbeatAt: string | null;
      ownerStopped: boolean;
      ownerDraining: boolean;
    }
  | { reason: 'group_full'; key: string; group: string; groupKey: string; inFlight: number; limit: number; override: boolean }
  | {
      /** Limits (issue #19): the task is full and, with `order: fair`, the row's key runs at or over its
       *  weighted share, so free slots go to keys below theirs first (server/core/fair-share.ts). */
      reason: 'fair_share';
      key: string;
      group: string;
      groupKey: string;
      inFlight: number;
      weight: number;
      /** Its share of the capacity now (L × weight). */
      share: number;
      /** inFlight ÷ share: 3 = "used 3× its weight". */
      times: number;
    }
  | { reason: 'task_full'; task: string; inFlight: number; concurrency: number }
  /** Rate limits (issue #19): the key's GCRA allowance is spent; its next slot is due in nextInMs. */
  | { reason: 'rate_limited'; key: string; group: string; groupKey: string; limit: number; per: number; burst: number; override: boolean; nextInMs: number }
  | { reason: 'task_rate_limited'; task: string; limit: number; per: number; burst: number; nextInMs: number };

export type WaitingReason = WaitingHold['reason'] | 'claimable' | 'set_aside' | 'not_waiting';

export interface WhyWaiting {
  /** The first constraint that holds, in the claim's order; `claimable` when none does. */
  reason: WaitingReason;
  /** Every constraint that holds right now (empty when claimable or not waiting). */
  holds: WaitingHold[];
  /** Claimable: rows of its partition the owner takes before it (up to 1,000). */
  ahead?: number;
  aheadCapped?: boolean;
  /** Claimable / set aside: the execution's priority, and how many of `ahead` have a higher one. */
  priority?: number;
  aheadHigherPriority?: number;
  partition?: number;
  owner?: string | null;
  ownerName?: string | null;
  /** The key the claim set the row aside on (executions.waiting_on), if any. */
  waitingOn?: string | null;
  /** not_waiting: the execution's state. */
  state?: string;
  /** The first hold (or the claimable / not-waiting state) in words. */
  text: string;
}

const n = (x: number) => x.toLocaleString('en-US');

function at(iso: string | null): string {
  return iso ? new Date(iso).toISOString().replace('.000Z', 'Z') : '?';
}

export function describeHold(h: WaitingHold): string {
  switch (h.reason) {
    case 'spilled':
      return `spilled: partition ${h.partition} holds ${n(h.depth)} of maxDepth ${h.maxDepth === null ? '?' : n(h.maxDepth)}; drained back (oldest first${h.spilledAhead ? `, ${n(h.spilledAhead)}${h.spilledAhead > 10_000 ? '+' : ''} ahead` : ''}) once depth falls below it`;
    case 'task_inactive':
      return `task ${h.task} is not in the current config`;
    case 'task_paused':
      return `task ${h.task} is paused`;
    case 'circuit_open':
      return h.state === 'open'
        ? `circuit breaker open since ${at(h.openedAt ?? h.since)} (${h.why}); probes from ${at(h.probesAt)}`
        : `circuit breaker half-open since ${at(h.since)}: its probes are running (${h.why})`;
    case 'stream_head': {
      const head = h.headId === null ? 'an earlier execution' : `execution ${h.headId}`;
      const detail =
        h.headState === 'running'
          ? `running, attempt ${h.headAttempts ?? '?'}${h.headLeaseExpiresAt ? `, lease until ${at(h.headLeaseExpiresAt)}` : ''}`
          : h.headRetryAt
            ? `attempt ${(h.headAttempts ?? 0) + 1} retries at ${at(h.headRetryAt)}`
            : (h.headState ?? 'unknown');
      return `stream ${h.stream}: head is ${head} (${detail})`;
    }
    case 'scheduled':
      return h.kind === 'retry_backoff' ? `scheduled until ${at(h.until)} (backoff after attempt ${h.attempts})` : `scheduled until ${at(h.until)} (delay)`;
    case 'no_owner':
      return h.owner === null
        ? `partition ${h.partition} has no owner`
        : `partition ${h.partition} has no live owner (${h.ownerName ?? h.owner} ${h.ownerStopped ? 'stopped' : h.ownerDraining ? 'is draining' : `last heartbeat ${at(h.lastHeartbeatAt)}`})`;
    case 'group_full':
      return `group key ${h.key} is full: ${n(h.inFlight)}/${n(h.limit)}${h.override ? ' (override)' : ''}`;
    case 'fair_share':
      return `fair share: ${h.groupKey} used ${+Number(h.times).toFixed(1)}× its weight (${n(h.inFlight)} running, weight ${n(h.weight)}, share ${+Number(h.share).toFixed(1)})`;
    case 'task_full':
      return `task limit full: ${n(h.inFlight)}/${n(h.concurrency)}`;
    case 'rate_limited':
      return `rate limit ${h.key}: next slot in ${formatWait(h.nextInMs)} (${formatRate(h)}${h.override ? ', override' : ''})`;
    case 'task_rate_limited':
      return `task rate limit: next slot in ${formatWait(h.nextInMs)} (${formatRate(h)})`;
  }
}

export function describeWhyWaiting(w: Omit<WhyWaiting, 'text'>): string {
  if (w.holds.length > 0) return describeHold(w.holds[0]!);
  if (w.reason === 'not_waiting') return `not waiting: ${w.state ?? 'finished'}`;
  const higher = w.aheadHigherPriority ? ` (${n(w.aheadHigherPriority)} of higher priority than its ${w.priority ?? 0})` : '';
  const ahead = w.ahead ? `; ${n(w.ahead)}${w.aheadCapped ? '+' : ''} ahead of it in partition ${w.partition}${higher}` : '';
  // Rate limits (issue #19): parked on a key's rate ('rate:<group>=<key>'), released by time
  if (w.reason === 'set_aside' && w.waitingOn?.startsWith('rate:')) return `claimable once released: parked on the rate of ${w.waitingOn.slice(5)}, whose next slot has come (the next claim releases it)${ahead}`;
  if (w.reason === 'set_aside') return `claimable once released: set aside on ${w.waitingOn ?? '?'}, which has room again (the next finish of that key or the reconciler releases it)${ahead}`;
  return `claimable: next cycle${ahead}`;
}

/** The reply as the SQL function gives it, with its sentence. */
export function whyWaitingFromRow(row: Record<string, unknown>): WhyWaiting {
  const w = row as unknown as Omit<WhyWaiting, 'text'>;
  const holds = Array.isArray(w.holds) ? w.holds : [];
  return { ...w, holds, text: describeWhyWaiting({ ...w, holds }) };
}

/** The group key a row waits on when that is what binds ('tenant=acme'), for REST's `waitingOn` string. */
export function bindingGroupKey(w: WhyWaiting | null): string | null {
  const h = w?.holds.find((x) => x.reason === 'group_full');
  return h && h.reason === 'group_full' ? h.key : null;
}
