// config_guards: the guarded rollouts (core/guarded-rollout.ts). A guard row is written in
// the transaction that stores its version (started_at = that transaction's now()), read
// by the watcher every alert-evaluator tick (the partial index on status = 'baking'), and
// ended once, under FOR UPDATE, with the outcome. Rare writes, small table.
import type { Db } from './pool';
import type { GuardAlertEvent, GuardRule, GuardStatus } from '../core/guarded-rollout';

export interface GuardRow {
  id: number;
  version: number;
  previousVersion: number;
  tasks: string[];
  rule: GuardRule;
  bakeMs: number;
  startedAt: Date;
  bakeUntil: Date;
  status: GuardStatus;
  createdBy: string;
  endedAt: Date | null;
  endedBy: string | null;
  reason: string | null;
  evidence: GuardAlertEvent | null;
  rollbackVersion: number | null;
}

const COLUMNS = `id::int AS id, version::int AS version, previous_version::int AS "previousVersion", tasks,
  jsonb_build_object('severity', rule_severity, 'rule', rule_name) AS rule, bake_ms AS "bakeMs",
  started_at AS "startedAt", bake_until AS "bakeUntil", status, created_by AS "createdBy", ended_at AS "endedAt",
  ended_by AS "endedBy", reason, evidence, rollback_version::int AS "rollbackVersion"`;

export async function insertGuard(
  db: Db,
  g: { version: number; previousVersion: number; tasks: string[]; rule: GuardRule; bakeMs: number; createdBy: string },
): Promise<GuardRow> {
  const r = await db.query<GuardRow>(
    `INSERT INTO config_guards (version, previous_version, tasks, rule_severity, rule_name, bake_ms, started_at, bake_until, created_by)
     VALUES ($1, $2, $3, $4, $5, $6::int, now(), now() + make_interval(secs => $6::int / 1000.0), $7)
     RETURNING ${COLUMNS}`,
    [g.version, g.previousVersion, g.tasks, g.rule.severity, g.rule.rule, g.bakeMs, g.createdBy],
  );
  return r.rows[0]!;
}

/** The baking guards, each locked for the caller's transaction; one another watcher holds is skipped. */
export async function lockBakingGuards(db: Db): Promise<GuardRow[]> {
  const r = await db.query<GuardRow>(`SELECT ${COLUMNS} FROM config_guards WHERE status = 'baking' ORDER BY version FOR UPDATE SKIP LOCKED`);
  return r.rows;
}

export async function lockGuardOfVersion(db: Db, version: number): Promise<GuardRow | null> {
  const r = await db.query<GuardRow>(`SELECT ${COLUMNS} FROM config_guards WHERE version = $1 FOR UPDATE`, [version]);
  return r.rows[0] ?? null;
}

export async function endGuard(
  db: Db,
  id: number,
  e: { status: GuardStatus; at: Date; endedBy: string; reason: string; evidence: GuardAlertEvent | null; rollbackVersion: number | null },
): Promise<GuardRow> {
  const r = await db.query<GuardRow>(
    `UPDATE config_guards SET status = $2, ended_at = $3, ended_by = $4, reason = $5, evidence = $6, rollback_version = $7
     WHERE id = $1 AND status = 'baking' RETURNING ${COLUMNS}`,
    [id, e.status, e.at, e.endedBy, e.reason, e.evidence === null ? null : JSON.stringify(e.evidence), e.rollbackVersion],
  );
  if (!r.rows[0]) throw new Error(`guard ${id} is no longer baking`);
  return r.rows[0];
}

/** Guards, newest first: those of the given versions, of a task, or the latest. */
export async function listGuards(db: Db, f: { versions?: number[]; task?: string; baking?: boolean; limit: number }): Promise<GuardRow[]> {
  const r = await db.query<GuardRow>(
    `SELECT ${COLUMNS} FROM config_guards
     WHERE ($1::bigint[] IS NULL OR version = ANY($1) OR rollback_version = ANY($1))
       AND ($2::text IS NULL OR tasks @> ARRAY[$2::text])
       AND (NOT $3 OR status = 'baking')
     ORDER BY version DESC LIMIT $4`,
    [f.versions ?? null, f.task ?? null, f.baking ?? false, f.limit],
  );
  return r.rows;
}

/**
 * Fired and escalated alert events of these tasks in [from, to] (the bake so far), with
 * what the guard's evidence keeps of their alert: only alerts open at some point since
 * `from`, then their events by the (alert_id, id) index (events are state changes, few).
 */
export async function readGuardAlertEvents(db: Db, tasks: string[], from: Date, to: Date): Promise<GuardAlertEvent[]> {
  const r = await db.query<{
    alert_id: string;
    task: string;
    rule: string;
    subject: string;
    severity: 'warning' | 'critical';
    type: 'fired' | 'escalated';
    at: Date;
    value: number | null;
    threshold: number | null;
  }>(
    // The line the event crossed: a threshold alert keeps its warning line in `threshold`
    // and both lines in its evidence, so a critical event reads the critical one.
    `SELECT e.alert_id, a.task, a.rule, a.subject, coalesce(e.severity, a.severity) AS severity, e.type, e.at, e.value,
            CASE WHEN coalesce(e.severity, a.severity) = 'critical' AND jsonb_typeof(a.evidence -> 'critical') = 'number'
                 THEN (a.evidence ->> 'critical')::float8 ELSE a.threshold END AS threshold
     FROM alerts a JOIN alert_events e ON e.alert_id = a.id
     WHERE a.task = ANY($1) AND a.fired_at IS NOT NULL AND (a.resolved_at IS NULL OR a.resolved_at >= $2)
       AND e.type IN ('fired', 'escalated') AND e.at >= $2 AND e.at <= $3
     ORDER BY e.at, e.id`,
    [tasks, from, to],
  );
  return r.rows.map((x) => ({
    alertId: Number(x.alert_id),
    task: x.task,
    rule: x.rule,
    subject: x.subject,
    severity: x.severity,
    type: x.type,
    at: x.at.getTime(),
    value: x.value === null ? null : Number(x.value),
    threshold: x.threshold === null ? null : Number(x.threshold),
    summary: `${x.task} ${x.rule}${x.subject ? ` ${x.subject}` : ''}`,
  }));
}
