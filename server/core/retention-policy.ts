// How long Sluice keeps what, and why every table is bounded. Pure: the caller passes the
// environment. The settings come from SLUICE_* variables (README § Configuration); a task
// may shorten or lengthen its own executions' retention (task config `retention`).
//
// The idempotency window is one duration for every state: an idempotency key dedupes while
// its execution is unfinished and for `idempotencyWindowHours` after it finished. A keyed
// row is never deleted inside the window (a task retention shorter than the window waits for
// it), and a row kept longer (dead rows live as long as their dead letter; a task may keep
// succeeded rows longer) has its key cleared when the window ends.
import { z } from 'zod';
import { overlayEnv } from './env-overlay';

const hours = (def: number) => z.coerce.number().positive('must be a positive number of hours').max(24 * 3650).default(def);
const days = (def: number) => z.coerce.number().positive('must be a positive number of days').max(3650 * 10).default(def);

export const retentionSettingsSchema = z.object({
  /** A finished execution's idempotency key dedupes this long after it finished. */
  idempotencyWindowHours: hours(24),
  /** Succeeded executions (and their attempts), unless the task says otherwise. */
  succeededHours: hours(24),
  /** Canceled executions (and their attempts), unless the task says otherwise. */
  canceledHours: hours(24 * 7),
  /** partition_owner_log, reconcile_log, task_breaker_events, dlq_events, resolved alerts with their events, finished webhook deliveries, finished DLQ replay jobs. */
  historyDays: days(14),
  /** audit_log: its own, long, default. */
  auditDays: days(400),
  /** Rows per delete statement (each its own short transaction). */
  batch: z.coerce.number().int().min(1).max(100_000).default(1000),
});

export type RetentionSettings = z.output<typeof retentionSettingsSchema>;

export const RETENTION_ENV: Record<keyof RetentionSettings, string> = {
  idempotencyWindowHours: 'SLUICE_IDEMPOTENCY_WINDOW_HOURS',
  succeededHours: 'SLUICE_RETAIN_SUCCEEDED_HOURS',
  canceledHours: 'SLUICE_RETAIN_CANCELED_HOURS',
  historyDays: 'SLUICE_RETAIN_HISTORY_DAYS',
  auditDays: 'SLUICE_RETAIN_AUDIT_DAYS',
  batch: 'SLUICE_RETENTION_BATCH',
};

/** Explicit values win over SLUICE_* env, which wins over defaults; a bad value throws naming the variable. */
export function resolveRetention(explicit: Partial<RetentionSettings>, env: Record<string, string | undefined>): RetentionSettings {
  const r = retentionSettingsSchema.safeParse(overlayEnv(explicit, env, RETENTION_ENV));
  if (!r.success) {
    const i = r.error.issues[0]!;
    const key = i.path[0] as keyof RetentionSettings;
    throw new Error(`${explicit[key] !== undefined ? key : RETENTION_ENV[key]}: ${i.message}`);
  }
  return r.data;
}

/** A task's `retention` section (task config); absent fields use the settings above. */
export const taskRetentionSchema = z.strictObject({
  succeededHours: z.number().positive('must be a positive number of hours').max(24 * 3650).optional(),
  canceledHours: z.number().positive('must be a positive number of hours').max(24 * 3650).optional(),
});
export type TaskRetention = z.output<typeof taskRetentionSchema>;

export interface ExecutionCutoffs {
  /** Succeeded rows finished longer ago than this go (keyed ones not before the window ends). */
  succeededMs: number;
  canceledMs: number;
  /** The idempotency window; also the least age of a dead row whose dead letter is gone. */
  windowMs: number;
}

const H = 3_600_000;

export function executionCutoffs(s: RetentionSettings, task: TaskRetention | null | undefined): ExecutionCutoffs {
  return {
    succeededMs: (task?.succeededHours ?? s.succeededHours) * H,
    canceledMs: (task?.canceledHours ?? s.canceledHours) * H,
    windowMs: s.idempotencyWindowHours * H,
  };
}

/**
 * Every table of the schema and what bounds it: a retention rule (who deletes, by which
 * setting) or the reason its size is bounded without one. test/integration/retention-coverage
 * lists the tables from information_schema and fails on one missing here.
 */
export const TABLE_RETENTION: Record<string, { rule: string } | { bounded: string }> = {
  executions: { rule: 'retention service: succeeded/canceled after the task retention (not inside the idempotency window when keyed); dead once their dead letter is gone and the window has passed' },
  execution_attempts: { rule: 'deleted with their execution (same statement)' },
  dead_letters: { rule: 'trim-dead-letters: task dlq.retentionDays and dlq.maxDepth' },
  dlq_events: { rule: 'prune-history: historyDays' },
  dlq_replay_jobs: { rule: 'prune-history: finished jobs after historyDays' },
  dlq_replay_items: { rule: 'deleted with their replay job (ON DELETE CASCADE)' },
  dlq_purge_previews: { rule: 'trim-dead-letters: a day after they expired' },
  dlq_purge_preview_items: { rule: 'deleted with their preview (ON DELETE CASCADE)' },
  execution_cancel_previews: { rule: 'retention service: a day after they expired' },
  execution_cancel_preview_items: { rule: 'deleted with their preview (ON DELETE CASCADE)' },
  partition_owner_log: { rule: 'retention service: historyDays' },
  reconcile_log: { rule: 'retention service: historyDays' },
  task_breaker_events: { rule: 'retention service: historyDays' },
  alerts: { rule: 'prune-history: resolved alerts after historyDays' },
  alert_events: { rule: 'deleted with their alert (ON DELETE CASCADE)' },
  webhook_deliveries: { rule: 'prune-history: delivered or failed deliveries after historyDays' },
  audit_log: { rule: 'prune-history: auditDays' },
  sessions: { rule: 'prune-sign-ins: expired sessions' },
  login_throttle: { rule: 'prune-sign-ins: rows whose window has passed' },
  metric_samples: { rule: 'retention service (7 days) and rollup-metrics (raw retention)' },
  metric_top_keys: { rule: 'retention service (7 days) and rollup-metrics' },
  metric_rollups: { rule: 'rollup-metrics: retention per resolution' },
  metric_rollup_series: { rule: 'rollup-metrics: retention per resolution' },
  group_key_finishes: { rule: 'key-finishes: buckets older than 15 minutes' },
  group_slots: { rule: 'slot-gc: idle keys' },
  slot_deltas: { rule: 'sluice_fold_slots: folded into group_slots and deleted within slotFoldMs by the member that wrote them, or by the slot-fold service' },
  rate_state: { rule: 'slot-gc: scopes whose theoretical arrival time has passed (an absent row means the same)' },
  coordinators: { rule: 'stale-members: stopped members forgotten after an hour' },
  overflow: { bounded: 'a queue, not history: drained back into executions by spill-drainer' },
  config_versions: { bounded: 'one row per configuration change an operator makes' },
  config_guards: { bounded: 'at most one row per config version (the versions applied with guard)' },
  task_runtime: { bounded: 'one row per task' },
  task_counters: { bounded: 'one row per task (created and deleted with its task_runtime row)' },
  task_breakers: { bounded: 'one row per task with a circuit breaker' },
  partition_stats: { bounded: 'one row per task partition' },
  partition_outcomes: { bounded: 'one row per task partition (created and deleted with its partition_stats row)' },
  partition_owners: { bounded: 'one row per task partition' },
  metric_cursor: { bounded: 'one row per task partition' },
  metric_rollup_state: { bounded: 'one row per roll-up resolution' },
  group_key_finish_cursor: { bounded: 'one row' },
  dlq_fingerprint_stats: { bounded: 'one row per (task, error fingerprint), kept by triggers on dead_letters' },
  maintenance_runs: { bounded: 'one row per maintenance service' },
  vacuum_state: { bounded: 'one row per table of the schema the vacuum service has vacuumed' },
  users: { bounded: 'managed by admins' },
  api_tokens: { bounded: 'managed by admins' },
  webhook_targets: { bounded: 'managed by admins' },
  sluice_migrations: { bounded: 'one row per migration' },
  sluice_function_files: { bounded: 'one row per SQL function file' },
};
