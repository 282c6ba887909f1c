// The coordinator's two writes to a task's circuit breaker (task_breakers), each one
// transaction with the row locked, decided by core/circuit-breaker.ts on the database's
// clock: the outcomes this member finished (recordBreakerOutcomes) and the probe slots a
// half-open claim takes (admitProbes). The operator's reset is a service
// (server/services/circuit-breaker.ts). Each transition is an event row and a
// sluice_breaker notification (db/task-breakers.ts saveBreaker).
import { advance, breakerSettings, fromStored, recordCounts, slots, started, toStored, type Breaker, type OutcomeCounts, type Transition } from '../core/circuit-breaker';
import type { CircuitBreakerSettings } from '../core/task-definition';
import { withTransaction, type Db } from '../db/pool';
import { lockBreaker, saveBreaker } from '../db/task-breakers';
import { lockTask } from '../db/task-lock';

export interface BreakerStep {
  breaker: Breaker;
  transition?: Transition;
}

/** Outcomes a coordinator finished since its last report (a batch). */
export async function recordBreakerOutcomes(db: Db, task: string, settings: CircuitBreakerSettings, counts: OutcomeCounts, probeTimeoutMs?: number): Promise<BreakerStep> {
  const s = breakerSettings(settings, probeTimeoutMs);
  return withTransaction(db, async (c) => {
    const row = await lockBreaker(c, task);
    const a = advance(fromStored(row), row.nowMs, s);
    const r = recordCounts(a.breaker, counts, row.nowMs, s);
    const steps = [a.transition, r.transition];
    // A trip takes the task lock before it is written: a claim holding it ends first, and
    // every later claim (sluice_claim_rows reads task_breakers after that lock) sees the
    // breaker open — none starts an attempt after the trip, whatever its member's cache says.
    // Lock order task_breakers → task_runtime: claims and finishes never lock task_breakers.
    if (steps.some((t) => t?.to === 'open')) await lockTask(c, task);
    await saveBreaker(c, task, toStored(row, r.breaker, steps), steps);
    const t = r.transition ?? a.transition;
    return t ? { breaker: r.breaker, transition: t } : { breaker: r.breaker };
  });
}

/**
 * Before a claim of a task whose breaker is not closed: moves open → half-open once the
 * cool-down has passed, and reserves up to `want` probe slots (0 while open or when every
 * probe has started). The caller claims at most `granted` and hands back what it did not
 * fill (db/task-breakers returnProbes) so the next claim can use them.
 */
export async function admitProbes(
  db: Db,
  task: string,
  settings: CircuitBreakerSettings,
  want: number,
  /** core/circuit-breaker probeTimeout: a probe silent this long is let through again. */
  probeTimeoutMs?: number,
): Promise<{ breaker: Breaker; granted: number; sinceMs: number; transition?: Transition }> {
  const s = breakerSettings(settings, probeTimeoutMs);
  return withTransaction(db, async (c) => {
    const row = await lockBreaker(c, task);
    const a = advance(fromStored(row), row.nowMs, s);
    const granted = a.breaker.state === 'half-open' ? Math.max(0, Math.min(want, slots(a.breaker, s))) : a.breaker.state === 'closed' ? want : 0;
    const b = started(a.breaker, granted, row.nowMs);
    if (a.transition || granted > 0) await saveBreaker(c, task, toStored(row, b, [a.transition]), [a.transition]);
    const sinceMs = b.state === 'half-open' ? b.since : a.transition ? a.transition.at : row.sinceMs;
    return a.transition ? { breaker: b, granted, sinceMs, transition: a.transition } : { breaker: b, granted, sinceMs };
  });
}
