// The webhook outbox. Enqueue: one row per enabled target whose minimum severity the
// event meets, in the transaction that produced the event (so a rolled-back alert change
// sends nothing). Claim: due pending rows, oldest first, leased by pushing
// next_attempt_at forward in the same UPDATE (FOR UPDATE SKIP LOCKED), so two senders
// never post the same delivery at once and a crashed sender's rows come back after the
// lease. Record: the outcome of one attempt.
import type { Db } from './pool';

export interface DueDelivery {
  id: number;
  target_id: string;
  url: string;
  secret: string | null;
  event: string;
  payload: unknown;
  attempts: number;
  max_attempts: number;
}

export async function enqueueDeliveries(
  db: Db,
  d: { alertId: number | null; event: string; payload: unknown; severity: 'warning' | 'critical' | null; targetId?: string },
): Promise<number> {
  const r = await db.query(
    `INSERT INTO webhook_deliveries (target_id, alert_id, event, payload)
     SELECT t.id, $1, $2, $3 FROM webhook_targets t
     WHERE t.enabled
       AND ($5::uuid IS NULL OR t.id = $5)
       AND ($4::text IS NULL OR t.min_severity = 'warning' OR $4 = 'critical')`,
    [d.alertId, d.event, JSON.stringify(d.payload), d.severity, d.targetId ?? null],
  );
  return r.rowCount ?? 0;
}

export async function claimDueDeliveries(db: Db, limit: number, leaseMs: number): Promise<DueDelivery[]> {
  const r = await db.query<DueDelivery>(
    `WITH due AS (
       SELECT id FROM webhook_deliveries
       WHERE status = 'pending' AND next_attempt_at <= now()
       ORDER BY next_attempt_at, id LIMIT $1
       FOR UPDATE SKIP LOCKED
     )
     UPDATE webhook_deliveries d SET next_attempt_at = now() + make_interval(secs => $2 / 1000.0)
     FROM due, webhook_targets t
     WHERE d.id = due.id AND t.id = d.target_id
     RETURNING d.id, d.target_id, t.url, t.secret, d.event, d.payload, d.attempts, d.max_attempts`,
    [limit, leaseMs],
  );
  return r.rows;
}

export interface AttemptOutcome {
  ok: boolean;
  responseStatus: number | null;
  error: string | null;
  durationMs: number;
  /** When to try again; null = no more attempts (delivered, or failed for good). */
  retryAt: Date | null;
}

export async function recordDeliveryAttempt(db: Db, id: number, o: AttemptOutcome): Promise<void> {
  await db.query(
    `UPDATE webhook_deliveries SET
       attempts = attempts + 1, last_attempt_at = now(), response_status = $2, last_error = $3, duration_ms = $4,
       status = CASE WHEN $5 THEN 'delivered' WHEN $6::timestamptz IS NULL THEN 'failed' ELSE 'pending' END,
       delivered_at = CASE WHEN $5 THEN now() END,
       next_attempt_at = coalesce($6::timestamptz, next_attempt_at)
     WHERE id = $1`,
    [id, o.responseStatus, o.error, o.durationMs, o.ok, o.retryAt],
  );
}

/** Delivery log retention. */
export async function pruneDeliveries(db: Db, olderThan: Date): Promise<number> {
  const r = await db.query(`DELETE FROM webhook_deliveries WHERE status <> 'pending' AND created_at < $1`, [olderThan]);
  return r.rowCount ?? 0;
}
