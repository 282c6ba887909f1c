// Priorities (issue #19): the claim order of a task's claimable executions and how it ages.
// Pure: no I/O imports (server/core rule).
//
// The rule. Every execution has a priority p (a whole number, 0 to PRIORITY_MAX, higher
// first; the task's `priority.default` when the producer gives none). The claim takes a
// partition's claimable rows in order of
//
//     claim key = run_at − p × agingMs      (ties: lower id first)
//
// where agingMs is the task's `priority.agingMs` (default DEFAULT_AGING_MS = 60 s). Read
// as aging: at time t a row's effective priority is p + (t − run_at) / agingMs (it gains
// one level per agingMs waited), and ordering by the key above is ordering by effective
// priority, highest first. So a low-priority row is never starved: once it has waited
// (Δp × agingMs) it ranks ahead of every row of priority up to p + Δp that became due
// after it. With every priority equal the order is run_at (FIFO by due time), as before
// priorities existed.
//
// Why this form: the key is fixed when the row is enqueued (or its run_at moves), so it is
// a stored, indexed column (executions.claim_at, generated from run_at and
// priority_lead_ms = p × agingMs) and the claim keeps reading each partition's head in
// index order, never sorting the backlog. Limits (concurrency, group keys) are applied to
// the head in that order exactly as before: priority decides who goes first among what
// the limits allow, it never lifts a limit.
//
// Priorities are ≥ 0 so that claim key ≤ run_at: the claim can bound its index scan by
// `claim_at <= now()` and a delayed row costs a read only while it is due within its lead.

/** Highest priority; 0 is the lowest. */
export const PRIORITY_MAX = 1000;
/** One priority level is worth this much waiting unless the task says otherwise. */
export const DEFAULT_AGING_MS = 60_000;
/** Bounds of a task's agingMs: 1 ms (priority barely matters) to a day. */
export const AGING_MS_MIN = 1;
export const AGING_MS_MAX = 86_400_000;

export interface TaskPriority {
  /** Priority of an execution enqueued without one. */
  default: number;
  /** Waiting time worth one priority level (the aging parameter). */
  agingMs: number;
}

export const DEFAULT_TASK_PRIORITY: TaskPriority = { default: 0, agingMs: DEFAULT_AGING_MS };

/** The task's priority settings, defaults filled in (a definition without the block). */
export function taskPriority(p: Partial<TaskPriority> | undefined): TaskPriority {
  return { default: p?.default ?? DEFAULT_TASK_PRIORITY.default, agingMs: p?.agingMs ?? DEFAULT_TASK_PRIORITY.agingMs };
}

/** The priority an execution gets: the producer's, else the task's default. */
export function executionPriority(requested: number | undefined, task: TaskPriority): number {
  return requested ?? task.default;
}

/** How far ahead of its run_at a row of this priority ranks (executions.priority_lead_ms). */
export function priorityLeadMs(priority: number, agingMs: number): number {
  return priority * agingMs;
}

/** The claim key in ms (executions.claim_at): lower is claimed first. */
export function claimKeyMs(runAtMs: number, priority: number, agingMs: number): number {
  return runAtMs - priorityLeadMs(priority, agingMs);
}

/** Effective priority at `nowMs` of a row due at `runAtMs` (the aging reading of the key). */
export function effectivePriority(priority: number, runAtMs: number, nowMs: number, agingMs: number): number {
  return priority + Math.max(0, nowMs - runAtMs) / agingMs;
}

/** The longest a row of priority `low` can be passed by rows of priority `high` that
 *  became due after it: (high − low) × agingMs; 0 when it is not lower. */
export function maxOvertakeMs(low: number, high: number, agingMs: number): number {
  return Math.max(0, high - low) * agingMs;
}

export interface ClaimOrderRow {
  id: number;
  runAtMs: number;
  priority: number;
  leadMs: number;
}

/** Rows in the order the claim takes them (the index order of (claim_at, id)). */
export function claimOrder<T extends ClaimOrderRow>(rows: readonly T[]): T[] {
  return [...rows].sort((a, b) => a.runAtMs - a.leadMs - (b.runAtMs - b.leadMs) || a.id - b.id);
}
