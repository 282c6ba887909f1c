// Alert episodes and their events (not a hot path: a few rows per evaluation). Rows map
// one-to-one onto core AlertState (server/core/alert-rules.ts); writes run inside the
// evaluator's or an operator action's transaction, rows locked FOR UPDATE first so an
// acknowledgement and an evaluation of the same alert serialise.
import type { Db } from './pool';
import type { AlertState, AlertStatus } from '../core/alert-rules';
import type { AlertRule, AlertSeverity } from '../core/alert-evaluation';
import type { AlertSubject } from '../core/alert-observation';

export interface AlertRow {
  id: number;
  key: string;
  task: string;
  rule: AlertRule;
  subject: string;
  partition: number | null;
  group_name: string | null;
  group_key: string | null;
  severity: AlertSeverity;
  status: AlertStatus;
  since: Date;
  breaching_since: Date | null;
  clear_since: Date | null;
  fired_at: Date | null;
  acknowledged_at: Date | null;
  acknowledged_by: string | null;
  resolved_at: Date | null;
  resolved_by: string | null;
  silenced_until: Date | null;
  silenced_by: string | null;
  last_value: number | null;
  peak_value: number | null;
  threshold: number | null;
  last_observed_at: Date;
  evidence: Record<string, unknown>;
  remedy: string | null;
}

export type AlertEventType = 'fired' | 'escalated' | 'acknowledged' | 'silenced' | 'unsilenced' | 'resolved';

const ms = (d: Date | null) => (d === null ? undefined : d.getTime());

export function rowToState(r: AlertRow): AlertState {
  const s: AlertState = {
    status: r.status,
    since: r.since.getTime(),
    lastValue: r.last_value,
    peakValue: r.peak_value,
    lastObservedAt: r.last_observed_at.getTime(),
  };
  const opt: Partial<AlertState> = {
    breachingSince: ms(r.breaching_since),
    clearSince: ms(r.clear_since),
    firedAt: ms(r.fired_at),
    acknowledgedAt: ms(r.acknowledged_at),
    acknowledgedBy: r.acknowledged_by ?? undefined,
    resolvedAt: ms(r.resolved_at),
    silencedUntil: ms(r.silenced_until),
  };
  for (const [k, v] of Object.entries(opt)) if (v !== undefined) (s as unknown as Record<string, unknown>)[k] = v;
  return s;
}

const date = (x: number | undefined) => (x === undefined ? null : new Date(x));

/** The state columns of a row, from a core state. */
function stateColumns(s: AlertState) {
  return [
    s.status,
    new Date(s.since),
    date(s.breachingSince),
    date(s.clearSince),
    date(s.firedAt),
    date(s.acknowledgedAt),
    s.acknowledgedBy ?? null,
    date(s.resolvedAt),
    date(s.silencedUntil),
    s.lastValue,
    s.peakValue,
    new Date(s.lastObservedAt),
  ];
}

const STATE_SET = `status = $2, since = $3, breaching_since = $4, clear_since = $5, fired_at = $6, acknowledged_at = $7,
  acknowledged_by = $8, resolved_at = $9, silenced_until = $10, last_value = $11, peak_value = $12, last_observed_at = $13`;

/**
 * The latest episode of every key whose latest episode is open or still silenced,
 * locked. "Latest" is per key over all its episodes (an older silenced episode must not
 * stand in for a newer unsilenced one); candidate keys come from the open-key index and
 * the silenced index, then alerts_key_idx finds each key's newest row.
 */
export async function lockLatestEpisodes(db: Db, now: Date): Promise<AlertRow[]> {
  const r = await db.query<AlertRow>(
    `SELECT a.* FROM alerts a
     WHERE a.id IN (
       SELECT (SELECT l.id FROM alerts l WHERE l.key = k.key ORDER BY l.id DESC LIMIT 1)
       FROM (SELECT key FROM alerts WHERE status IN ('pending', 'firing', 'acknowledged')
             UNION SELECT key FROM alerts WHERE silenced_until > $1) k
     )
       AND (a.status IN ('pending', 'firing', 'acknowledged') OR a.silenced_until > $1)
     ORDER BY a.id
     FOR UPDATE OF a`,
    [now],
  );
  return r.rows;
}

export async function lockAlert(db: Db, id: number): Promise<AlertRow | null> {
  const r = await db.query<AlertRow>('SELECT * FROM alerts WHERE id = $1 FOR UPDATE', [id]);
  return r.rows[0] ?? null;
}

/** An episode to open: its subject (core AlertSubject) and evidence. */
export interface NewAlert extends AlertSubject {
  evidence: unknown;
}

export async function insertAlert(db: Db, a: NewAlert, s: AlertState): Promise<AlertRow> {
  const r = await db.query<AlertRow>(
    `INSERT INTO alerts (key, status, since, breaching_since, clear_since, fired_at, acknowledged_at, acknowledged_by, resolved_at,
                         silenced_until, last_value, peak_value, last_observed_at,
                         task, rule, subject, partition, group_name, group_key, severity, threshold, evidence, remedy)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23)
     RETURNING *`,
    [a.key, ...stateColumns(s), a.task, a.rule, a.subject, a.partition, a.groupName, a.groupKey, a.severity, a.threshold, JSON.stringify(a.evidence ?? {}), a.remedy],
  );
  return r.rows[0]!;
}

export interface AlertDetailsUpdate {
  severity?: AlertSeverity;
  threshold?: number | null;
  evidence?: unknown;
  remedy?: string | null;
  resolvedBy?: string | null;
  silencedBy?: string | null;
}

export async function updateAlert(db: Db, id: number, s: AlertState, d: AlertDetailsUpdate = {}): Promise<AlertRow> {
  const r = await db.query<AlertRow>(
    `UPDATE alerts SET ${STATE_SET},
       severity = coalesce($14, severity),
       threshold = CASE WHEN $15::boolean THEN $16 ELSE threshold END,
       evidence = coalesce($17::jsonb, evidence),
       remedy = CASE WHEN $18::boolean THEN $19 ELSE remedy END,
       resolved_by = CASE WHEN $20::boolean THEN $21 ELSE resolved_by END,
       silenced_by = CASE WHEN $22::boolean THEN $23 ELSE silenced_by END,
       updated_at = now()
     WHERE id = $1 RETURNING *`,
    [
      id,
      ...stateColumns(s),
      d.severity ?? null,
      d.threshold !== undefined,
      d.threshold ?? null,
      d.evidence === undefined ? null : JSON.stringify(d.evidence),
      d.remedy !== undefined,
      d.remedy ?? null,
      d.resolvedBy !== undefined,
      d.resolvedBy ?? null,
      d.silencedBy !== undefined,
      d.silencedBy ?? null,
    ],
  );
  return r.rows[0]!;
}

/** A pending episode that cleared before firing leaves no trace. */
export async function deleteAlert(db: Db, id: number): Promise<void> {
  await db.query('DELETE FROM alerts WHERE id = $1', [id]);
}

export async function insertAlertEvent(
  db: Db,
  e: { alertId: number; at: Date; type: AlertEventType; actor: string; value: number | null; severity: AlertSeverity | null; silenced: boolean; detail?: unknown },
): Promise<void> {
  await db.query(
    `INSERT INTO alert_events (alert_id, at, type, actor, value, severity, silenced, detail) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [e.alertId, e.at, e.type, e.actor, e.value, e.severity, e.silenced, e.detail === undefined ? null : JSON.stringify(e.detail)],
  );
}
