// A task's circuit breaker as the task page shows it (issue 23): its settings, its state
// with when and why, the closed window's failures, when probes start, recent transitions.
import { breakerSettings, fromStored, windowCounts } from '../core/circuit-breaker';
import { circuitBreakerSchema, DEFAULT_CIRCUIT_BREAKER, type CircuitBreakerSettings } from '../core/task-definition';
import { CoreError } from '../core/errors';
import type { Db } from '../db/pool';
import { readBreakerEvents, readBreakers } from '../db/task-breakers';

export interface TaskBreakerView {
  task: string;
  settings: CircuitBreakerSettings;
  state: 'closed' | 'open' | 'half-open';
  since: Date | null;
  reason: string;
  openedAt: Date | null;
  /** open: when the cool-down ends and probes may start. */
  probesAt: Date | null;
  probesStarted: number;
  probesSucceeded: number;
  tripsTotal: number;
  /** closed: outcomes in the window now. */
  window: { failed: number; total: number };
  events: { from: string; to: string; reason: string; actor: string | null; at: Date }[];
}

export async function getTaskBreaker(db: Db, task: string): Promise<TaskBreakerView> {
  const t = await db.query<{ definition: unknown }>(`SELECT definition FROM task_runtime WHERE task = $1 AND active`, [task]);
  if (t.rowCount === 0) throw CoreError.notFound(`task "${task}"`);
  const parsed = circuitBreakerSchema.safeParse((t.rows[0]!.definition as { circuitBreaker?: unknown } | null)?.circuitBreaker ?? DEFAULT_CIRCUIT_BREAKER);
  const settings = parsed.success ? parsed.data : { ...DEFAULT_CIRCUIT_BREAKER };
  const [[row], events] = await Promise.all([readBreakers(db, [task]), readBreakerEvents(db, task, 10)]);
  if (!row) {
    return { task, settings, state: 'closed', since: null, reason: '', openedAt: null, probesAt: null, probesStarted: 0, probesSucceeded: 0, tripsTotal: 0, window: { failed: 0, total: 0 }, events };
  }
  const opened = row.openedAtMs ?? null;
  return {
    task,
    settings,
    state: row.state,
    since: new Date(row.sinceMs),
    reason: row.reason,
    openedAt: opened === null ? null : new Date(opened),
    probesAt: row.state === 'open' && opened !== null ? new Date(opened + settings.coolDownMs) : null,
    probesStarted: row.probesStarted,
    probesSucceeded: row.probesSucceeded,
    tripsTotal: row.tripsTotal,
    window: windowCounts(fromStored(row), row.nowMs, breakerSettings(settings)),
    events,
  };
}
