// The fleet health rules' inputs (server/core/alert-fleet-rules.ts) in one round trip:
// coordinators judged by the one liveness predicate (coordinator-liveness.ts), the
// desired config version, per active task the partitions without a live owner
// (generate_series over its partition count against partition_owners: a few hundred
// rows), maintenance_runs, recent reconcile_log repairs per task (reconcile_log_at_idx),
// DLQ depth from the trigger-kept dlq_fingerprint_stats, DLQ trims (dlq_events_at_idx),
// and Postgres: connections, the oldest snapshot held, executions' live/dead tuples.
import type { Db } from './pool';
import type { FleetInputs } from '../core/alert-fleet-rules';
import { coordinatorLive, coordinatorStatus, staleMsOf } from './coordinator-liveness';

export async function readFleetHealth(db: Db, opts: { reconcileWindowMs: number; dlqWindowMs: number }): Promise<FleetInputs> {
  const r = await db.query<{ f: FleetInputs }>(
    `SELECT json_build_object(
       'coordinators', coalesce((SELECT json_agg(json_build_object(
           'id', c.id, 'name', c.name, 'host', c.host, 'tasks', c.tasks, 'status', ${coordinatorStatus('c')},
           -- gone without a goodbye: stale now, or stopped by the stale cleanup (its stop came
           -- a stale threshold or more after its last beat; a clean stop comes right after one)
           'unclean', (c.stopped_at IS NULL AND NOT ${coordinatorLive('c')})
                      OR (c.stopped_at IS NOT NULL AND c.stopped_at - c.last_heartbeat_at >= make_interval(secs => ${staleMsOf('c')} / 1000.0)),
           'heartbeatAgeMs', (extract(epoch FROM now() - c.last_heartbeat_at) * 1000)::float8,
           'staleMs', ${staleMsOf('c')},
           'startedAt', (extract(epoch FROM c.started_at) * 1000)::float8,
           'lastHeartbeatAt', (extract(epoch FROM c.last_heartbeat_at) * 1000)::float8,
           'appliedVersion', c.applied_version, 'applyError', c.apply_error,
           'sinceAppliedMs', (extract(epoch FROM now() - coalesce(c.applied_at, c.started_at)) * 1000)::float8)
         ORDER BY c.name, c.started_at) FROM coordinators c), '[]'),
       'desiredVersion', (SELECT max(version) FROM config_versions),
       'ownership', coalesce((SELECT json_agg(json_build_object('task', t.task, 'partitions', t.partitions, 'unowned', t.unowned) ORDER BY t.task)
         FROM (SELECT tr.task, tr.partitions,
                      coalesce(array_agg(p.p ORDER BY p.p) FILTER (WHERE NOT coalesce(${coordinatorLive('c')}, false)), '{}') AS unowned
               FROM task_runtime tr
               CROSS JOIN LATERAL generate_series(0, tr.partitions - 1) AS p(p)
               LEFT JOIN partition_owners o ON o.task = tr.task AND o.partition = p.p
               LEFT JOIN coordinators c ON c.id = o.owner
               WHERE tr.active AND NOT tr.paused
               GROUP BY tr.task, tr.partitions) t), '[]'),
       'maintenance', coalesce((SELECT json_agg(json_build_object(
           'name', m.name, 'intervalMs', m.interval_ms, 'lastError', m.last_error, 'runs', m.runs,
           'sinceFinishedMs', (extract(epoch FROM now() - m.last_finished_at) * 1000)::float8,
           'sinceStartedMs', (extract(epoch FROM now() - m.last_started_at) * 1000)::float8) ORDER BY m.name)
         FROM maintenance_runs m), '[]'),
       'reconcile', coalesce((SELECT json_agg(json_build_object('task', x.task, 'repairs', x.repairs, 'recent', x.recent) ORDER BY x.task)
         FROM (SELECT l.task, count(*)::int AS repairs,
                      coalesce((SELECT json_agg(y) FROM (
                         SELECT at, counter, partition, recorded, actual FROM reconcile_log r2
                         WHERE r2.task = l.task AND r2.at > now() - make_interval(secs => $1 / 1000.0)
                         ORDER BY r2.at DESC LIMIT 5) y), '[]') AS recent
               FROM reconcile_log l WHERE l.at > now() - make_interval(secs => $1 / 1000.0)
               GROUP BY l.task) x), '[]'),
       'dlq', coalesce((SELECT json_agg(json_build_object('task', tr.task, 'depth', coalesce(s.depth, 0),
           'maxDepth', coalesce((tr.definition -> 'dlq' ->> 'maxDepth')::int, 100000), 'trimmed', coalesce(e.trimmed, 0)) ORDER BY tr.task)
         FROM task_runtime tr
         LEFT JOIN (SELECT task, sum(count)::bigint AS depth FROM dlq_fingerprint_stats GROUP BY task) s ON s.task = tr.task
         LEFT JOIN (SELECT task, sum(removed)::bigint AS trimmed FROM dlq_events
                    WHERE kind = 'max_depth' AND at > now() - make_interval(secs => $2 / 1000.0) GROUP BY task) e ON e.task = tr.task
         WHERE tr.active), '[]'),
       'database', json_build_object(
         'connections', (SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend'),
         'maxConnections', current_setting('max_connections')::int,
         'oldestSnapshotMs', (SELECT coalesce(max(extract(epoch FROM now() - xact_start)), 0) * 1000 FROM pg_stat_activity
             WHERE datname = current_database() AND backend_xmin IS NOT NULL AND pid <> pg_backend_pid()),
         'executionsLive', coalesce((SELECT n_live_tup FROM pg_stat_user_tables WHERE relname = 'executions' AND schemaname = current_schema()), 0),
         'executionsDead', coalesce((SELECT n_dead_tup FROM pg_stat_user_tables WHERE relname = 'executions' AND schemaname = current_schema()), 0))
     ) AS f`,
    [opts.reconcileWindowMs, opts.dlqWindowMs],
  );
  return r.rows[0]!.f;
}
