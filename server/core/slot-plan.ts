// Slot arithmetic of one coordinator (pure, server/core rule). A member has `slots`
// local slots; `busy` counts the executions running here plus the slots reserved by
// claim calls in flight (the claim loop's, and the claims riding on a flush), so no two
// calls can hand out the same slot.

/**
 * How many executions the claim riding on a flush of `freeing` finished rows may take
 * (sluice_cycle's `max`). The flush's rows are still counted in `busy`; they free their
 * slots with this call, so the free count includes them. With one active task the refill
 * asks for every free slot; with several it takes at most a fair share (ceil(free ÷
 * active tasks)) and never more than it frees, so the claim loop's rotation can give the
 * rest to the other tasks (no task starves another by always refilling). 0 = finish only.
 */
export function refillShare(p: { slots: number; busy: number; freeing: number; activeTasks: number }): number {
  const free = p.slots - p.busy + p.freeing;
  return Math.max(0, p.activeTasks > 1 ? Math.min(p.freeing, Math.ceil(free / p.activeTasks)) : free);
}

/**
 * After a refill: wake the claim loop only when other tasks could use the slots. With
 * one task the refill asked for every free slot: it filled them, or came back short
 * because nothing more is claimable — the backlog is drained or the group limits allow
 * no more until something finishes, and the next finish refills again. Waking the claim
 * loop would only repeat the claim under the task lock (with a tenant at its limit, W2
 * skew made 23,595 such claims for 100,000 jobs). The poll interval stays the fallback (a
 * grouped round may under-admit, and the next poll fills the gap).
 */
export function wakeClaimLoopAfterRefill(activeTasks: number): boolean {
  return activeTasks > 1;
}
