// Brings the per-task runtime rows in line with a newly stored config version, inside
// the apply transaction: task_runtime (limits the claim reads), partition_stats and
// partition_owners (one row per partition), and the round-robin sequence per task.
//
// A partition-count change locks the task_runtime row FOR UPDATE first (claimers and
// finishers take it first too, so none run meanwhile), then the task's partition_stats
// rows in order (enqueues hold those while they insert, so the move sees their rows),
// then moves unfinished executions and spilled rows from removed partitions to
// `partition % newCount` and recounts that task's depth/in-flight from the table. Stream
// order does not depend on the partition (the blocked → queued chain keeps it), so a
// move never reorders a stream. The recount scans the task's unfinished rows once; it
// runs only when an operator changes the partition count.
import type { Db } from './pool';
import type { TaskDefinition } from '../core/task-definition';
// eslint-disable-next-line sluice/architecture -- the arrow Db → Core is for types; the fair group is core's one rule (fair-share.ts)
import { fairShareGroup } from '../core/task-definition';
// eslint-disable-next-line sluice/architecture -- the arrow Db → Core is for types; sequence names use core's one stable hash
import { stableHash32 } from '../core/stable-hash';

type GroupRate = NonNullable<TaskDefinition['groups'][number]['rate']>;
type ClaimGroup = { limit: number; overrides: Record<string, number>; rate?: GroupRate; weights?: Record<string, number>; fair?: true };

/** task_runtime.groups: what the claim reads per group: its concurrency limit and overrides, its rate
 *  (issue #19) when it has one, and — for the group a task with `order: 'fair'` shares by (issue #19) —
 *  `fair: true` and the weights; a fifo task's document is as before. */
export function groupsForClaim(def: TaskDefinition): Record<string, ClaimGroup> {
  const fair = fairShareGroup(def);
  return Object.fromEntries(
    def.groups.map((g): [string, ClaimGroup] => [
      g.name,
      {
        limit: g.limit,
        overrides: g.overrides,
        ...(g.rate ? { rate: g.rate } : {}),
        ...(g.name === fair ? { weights: g.weights ?? {}, fair: true as const } : {}),
      },
    ]),
  );
}

/** task_runtime.rate: the task's own rate and the payload path of an execution's cost, as the claim reads them. */
export function rateForClaim(def: TaskDefinition): { task?: NonNullable<TaskDefinition['rate']>; cost?: string[] } {
  return { ...(def.rate ? { task: def.rate } : {}), ...(def.rateCostPath ? { cost: def.rateCostPath.split('.') } : {}) };
}

/** Identifier of the task's round-robin sequence (≤ 63 bytes: long names get a hash). */
export function roundRobinSequence(task: string): string {
  const tail = task.length <= 53 ? task : `${task.slice(0, 44)}_${stableHash32(task).toString(16)}`;
  return `sluice_rr_${tail}`;
}

export interface SyncResult {
  created: string[];
  updated: string[];
  deactivated: string[];
  repartitioned: { task: string; from: number; to: number; moved: number }[];
}

export async function syncTaskRuntime(db: Db, tasks: readonly TaskDefinition[], version: number): Promise<SyncResult> {
  const out: SyncResult = { created: [], updated: [], deactivated: [], repartitioned: [] };
  const sorted = [...tasks].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const def of sorted) {
    const prev = await db.query<{ partitions: number; fair: string | null }>(
      `SELECT partitions, (SELECT g.key FROM jsonb_each(groups) AS g WHERE g.value ? 'fair' LIMIT 1) AS fair
       FROM task_runtime WHERE task = $1 FOR UPDATE`,
      [def.name],
    );
    const oldP = prev.rows[0]?.partitions ?? null;
    await db.query(
      `INSERT INTO task_runtime (task, definition, concurrency, partitions, paused, groups, rate, active, config_version, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $8, true, $7, now())
       ON CONFLICT (task) DO UPDATE SET definition = excluded.definition, concurrency = excluded.concurrency,
         partitions = excluded.partitions, paused = excluded.paused, groups = excluded.groups, rate = excluded.rate, active = true,
         config_version = excluded.config_version, updated_at = now()`,
      [def.name, JSON.stringify(def), def.concurrency, def.partitions, def.paused, JSON.stringify(groupsForClaim(def)), version, JSON.stringify(rateForClaim(def))],
    );
    await db.query(`CREATE SEQUENCE IF NOT EXISTS "${roundRobinSequence(def.name)}" MINVALUE 0 START 0`);
    (oldP === null ? out.created : out.updated).push(def.name);

    await db.query(
      // (each partition's partition_outcomes row comes with it: trigger partition_outcomes_init)
      `INSERT INTO partition_stats (task, partition)
       SELECT $1, p FROM generate_series(0, $2 - 1) p
       ON CONFLICT DO NOTHING`,
      [def.name, def.partitions],
    );
    await db.query(
      `INSERT INTO partition_owners (task, partition) SELECT $1, p FROM generate_series(0, $2 - 1) p ON CONFLICT DO NOTHING`,
      [def.name, def.partitions],
    );
    // Fair share (issue #19): a changed fair group (fifo → fair, fair → fifo, another group)
    // rewrites the fair_key of the task's waiting rows, so the claim's fair passes find
    // every one of them through executions_fair_idx (rows written before read NULL there and
    // would reach a slot only through the claim's last pass, over every key).
    const fair = fairShareGroup(def);
    if (oldP !== null && (prev.rows[0]?.fair ?? null) !== fair) {
      await db.query(
        `UPDATE executions SET fair_key = CASE WHEN $2::text IS NULL THEN NULL ELSE $2 || '=' || (groups ->> $2) END
         WHERE task = $1 AND state IN ('queued', 'blocked') AND fair_key IS DISTINCT FROM
           CASE WHEN $2::text IS NULL THEN NULL ELSE $2 || '=' || (groups ->> $2) END`,
        [def.name, fair],
      );
    }
    // A raised or removed group limit makes room without any finish: release the rows
    // waiting on keys that now have it (one index probe when nothing waits).
    if (oldP !== null) await db.query('SELECT sluice_release_waiting($1)', [def.name]);
    // Rate limits (issue #19): keys parked on their rate come due now, so the next claim
    // releases what the new rates allow (a raised limit or burst applies at once).
    if (oldP !== null) {
      await db.query(
        `UPDATE rate_state SET parked_until = extract(epoch FROM clock_timestamp()) * 1000
         WHERE task = $1 AND parked_until > extract(epoch FROM clock_timestamp()) * 1000`,
        [def.name],
      );
    }
    if (oldP !== null && def.partitions < oldP) {
      out.repartitioned.push({ task: def.name, from: oldP, to: def.partitions, moved: await shrinkPartitions(db, def.name, def.partitions) });
    } else if (oldP !== null && def.partitions > oldP) {
      out.repartitioned.push({ task: def.name, from: oldP, to: def.partitions, moved: 0 });
    }
  }
  const r = await db.query<{ task: string }>(
    `UPDATE task_runtime SET active = false, updated_at = now(), config_version = $2
     WHERE active AND NOT (task = ANY ($1::text[])) RETURNING task`,
    [sorted.map((t) => t.name), version],
  );
  out.deactivated = r.rows.map((x) => x.task);
  return out;
}

async function shrinkPartitions(db: Db, task: string, count: number): Promise<number> {
  await db.query('SELECT 1 FROM partition_stats WHERE task = $1 ORDER BY partition FOR UPDATE', [task]);
  const moved = await db.query(
    `UPDATE executions SET partition = partition % $2
     WHERE task = $1 AND partition >= $2 AND state IN ('blocked', 'queued', 'running')`,
    [task, count],
  );
  await db.query(`UPDATE overflow SET partition = partition % $2 WHERE task = $1 AND partition >= $2`, [task, count]);
  await db.query(
    // the moved rows keep their claim_at in partitions whose claim floors knew nothing of
    // them: no bound until the next claim there raises it (migration 20261203000100000_claim_floor)
    `UPDATE partition_stats ps SET depth = coalesce(c.depth, 0), in_flight = coalesce(c.running, 0),
       spilled = coalesce(o.n, 0), updated_at = now(), claim_floor = '-infinity'
     FROM (SELECT p FROM generate_series(0, $2 - 1) p) parts
     LEFT JOIN (SELECT partition, count(*) FILTER (WHERE state IN ('queued', 'blocked')) AS depth,
                       count(*) FILTER (WHERE state = 'running') AS running
                FROM executions WHERE task = $1 AND state IN ('blocked', 'queued', 'running') GROUP BY partition) c
       ON c.partition = parts.p
     LEFT JOIN (SELECT partition, count(*) AS n FROM overflow WHERE task = $1 GROUP BY partition) o ON o.partition = parts.p
     WHERE ps.task = $1 AND ps.partition = parts.p`,
    [task, count],
  );
  await db.query('DELETE FROM partition_stats WHERE task = $1 AND partition >= $2', [task, count]);
  await db.query('DELETE FROM partition_owners WHERE task = $1 AND partition >= $2', [task, count]);
  await db.query('DELETE FROM metric_cursor WHERE task = $1 AND partition >= $2', [task, count]);
  return moved.rowCount ?? 0;
}
