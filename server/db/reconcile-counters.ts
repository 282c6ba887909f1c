// Reconciler (seed 003): recomputes one task's counters from the tables — task in_flight
// and running floor, per-partition claim floor,
// per-partition depth / in_flight / spilled, per-key in_flight / queued — records every
// mismatch in reconcile_log and repairs it; then releases rows left waiting on a key
// with a slot that no claimable row of the key will take (sluice_release_stranded), which
// a repaired in_flight can cause. Runs in
// the caller's transaction after locking in the engine's order (task_runtime row →
// partition_stats rows → the task's unfolded slot_deltas, folded → group_slots rows), so
// no claim, finish or enqueue of the task moves a counter between the count and the repair. The counts can read only the task's unfinished rows, through the
// partial indexes (see UNFINISHED): it runs every 30 s holding the task lock, and
// `executions` keeps finished rows for a day. A plain `state IN (…)` filter matches no
// index, so it seq-scanned every kept row, twice per pass. Measured with 10k unfinished
// rows: at 3M kept rows the whole pass now takes 50–62 ms, while the old per-partition
// count alone took 281–343 ms, growing linearly with the kept rows.
import type { Db } from './pool';
import { foldSlotDeltas } from './fold-slot-deltas';

/** The task's ($1) unfinished rows, one arm per partial index so no arm scans finished
 *  rows: claimable (executions_claim_idx), waiting on a key (executions_waiting_idx),
 *  running (executions_running_idx: every task's running rows, ≤ their concurrency) and
 *  blocked behind a stream head (executions_stream_idx; only streams have blocked rows). */
const UNFINISHED = `
  SELECT partition, state, group_keys FROM executions WHERE task = $1 AND state = 'queued' AND waiting_on IS NULL
  UNION ALL
  SELECT partition, state, group_keys FROM executions WHERE task = $1 AND state = 'queued' AND waiting_on IS NOT NULL
  UNION ALL
  SELECT partition, state, group_keys FROM executions WHERE task = $1 AND state = 'running'
  UNION ALL
  SELECT partition, state, group_keys FROM executions WHERE task = $1 AND state = 'blocked' AND stream_key IS NOT NULL`;

export interface Mismatch {
  counter: string;
  partition: number | null;
  groupName: string | null;
  groupKey: string | null;
  recorded: number;
  actual: number;
}

export async function reconcileTask(db: Db, task: string): Promise<Mismatch[]> {
  const locked = await db.query('SELECT 1 FROM task_runtime WHERE task = $1 FOR UPDATE', [task]);
  if (locked.rows.length === 0) return [];
  // The task's counters row (migration 20261207000100000_task_counters) is created with its
  // task_runtime row; a task without one (nothing should leave it so) gets it here, at 0,
  // and the checks below set it right. Read after the lock, in its own statement.
  await db.query('INSERT INTO task_counters (task) VALUES ($1) ON CONFLICT (task) DO NOTHING', [task]);
  const rt = await db.query<{ in_flight: number }>('SELECT in_flight FROM task_counters WHERE task = $1', [task]);
  await db.query('SELECT 1 FROM partition_stats WHERE task = $1 ORDER BY partition FOR UPDATE', [task]);
  // The per-key counters are group_slots plus the moves claims and finishes logged and
  // nobody folded yet (slot_deltas): fold them first, waiting for a fold in progress (with
  // the task lock held no claim or finish logs more), so what is compared is the whole sum.
  await foldSlotDeltas(db, task, { wait: true });
  await db.query('SELECT 1 FROM group_slots WHERE task = $1 ORDER BY group_name, group_key FOR UPDATE', [task]);
  const out: Mismatch[] = [];

  const running = await db.query<{ n: number; floor_above: boolean; floor_ms: number; earliest_ms: number | null }>(
    `SELECT r.n, coalesce(r.earliest < t.running_floor, false) AS floor_above,
            extract(epoch FROM t.running_floor) * 1000 AS floor_ms, extract(epoch FROM r.earliest) * 1000 AS earliest_ms
     FROM task_counters t,
          (SELECT count(*)::int AS n, min(started_at) FILTER (WHERE cardinality(group_keys) > 0) AS earliest
           FROM executions WHERE task = $1 AND state = 'running') r
     WHERE t.task = $1`,
    [task],
  );
  const actualInFlight = running.rows[0]!.n;
  if (actualInFlight !== rt.rows[0]!.in_flight) {
    out.push({ counter: 'task.in_flight', partition: null, groupName: null, groupKey: null, recorded: rt.rows[0]!.in_flight, actual: actualInFlight });
    await db.query('UPDATE task_counters SET in_flight = $2 WHERE task = $1', [task, actualInFlight]);
  }
  // The running floor (migration 20261202000200000_running_floor) must be at or before the
  // start of every running row with a key: the claim reads keys in use from it. After one, a
  // key's running execution would go uncounted, so it is moved back (and logged, as epoch
  // milliseconds: nothing should move it there). Compared in SQL (microseconds).
  if (running.rows[0]!.floor_above) {
    out.push({ counter: 'task.running_floor', partition: null, groupName: null, groupKey: null, recorded: Math.floor(Number(running.rows[0]!.floor_ms)), actual: Math.floor(Number(running.rows[0]!.earliest_ms)) });
    await db.query(
      `UPDATE task_counters SET running_floor = (SELECT min(started_at) FROM executions WHERE task = $1 AND state = 'running' AND cardinality(group_keys) > 0) WHERE task = $1`,
      [task],
    );
  }

  // The claim floor (migration 20261203000100000_claim_floor) must be at or before the
  // (claim_at, id) of every claimable row of its partition: every scan of the head starts
  // there, and a row before it would never be claimed. After one, it is reset to no bound
  // (the next claim there raises it; logged as epoch milliseconds, recorded the effective
  // floor: nothing should move it there). Under the task lock and every partition row lock,
  // so no claim raises it and no producer lowers it meanwhile; compared in SQL (microseconds).
  // (each partition's effective floor as the claim reads it: sluice_claim_floors)
  const floors = await db.query<{ partition: number; floor_ms: number; earliest_ms: number }>(
    `WITH parts AS (SELECT array_agg(partition ORDER BY partition) AS p FROM partition_stats WHERE task = $1)
     SELECT x.part AS partition, extract(epoch FROM x.at) * 1000 AS floor_ms, extract(epoch FROM c.claim_at) * 1000 AS earliest_ms
     FROM parts
     CROSS JOIN LATERAL sluice_claim_floors($1, parts.p, (SELECT t.claim_floor_low FROM task_counters t WHERE t.task = $1)) f
     CROSS JOIN LATERAL unnest(parts.p, f.ats, f.ids) AS x(part, at, id)
     CROSS JOIN LATERAL (
       SELECT e.claim_at, e.id FROM executions e
       WHERE e.task = $1 AND e.partition = x.part AND e.state = 'queued' AND e.waiting_on IS NULL
       ORDER BY e.claim_at, e.id LIMIT 1) c
     WHERE (c.claim_at, c.id) < (x.at, x.id)
     ORDER BY x.part`,
    [task],
  );
  // an 'infinity' floor (no claimable row when it was raised) is logged as the largest safe integer
  const ms = (v: number) => (Number.isFinite(Number(v)) ? Math.floor(Number(v)) : Number.MAX_SAFE_INTEGER);
  for (const f of floors.rows) {
    out.push({ counter: 'partition.claim_floor', partition: f.partition, groupName: null, groupKey: null, recorded: ms(f.floor_ms), actual: ms(f.earliest_ms) });
  }
  if (floors.rows.length > 0) {
    await db.query(`UPDATE partition_stats SET claim_floor = '-infinity', claim_floor_id = 0 WHERE task = $1 AND partition = ANY ($2::int[])`, [
      task, floors.rows.map((f) => f.partition),
    ]);
  }

  const parts = await db.query<{ partition: number; depth: number; in_flight: number; spilled: number; a_depth: number; a_running: number; a_spilled: number }>(
    `SELECT ps.partition, ps.depth, ps.in_flight, ps.spilled,
            coalesce(c.depth, 0)::bigint AS a_depth, coalesce(c.running, 0)::int AS a_running, coalesce(o.n, 0)::bigint AS a_spilled
     FROM partition_stats ps
     LEFT JOIN (SELECT partition, count(*) FILTER (WHERE state IN ('queued', 'blocked')) AS depth,
                       count(*) FILTER (WHERE state = 'running') AS running
                FROM (${UNFINISHED}) u GROUP BY partition) c
       ON c.partition = ps.partition
     LEFT JOIN (SELECT partition, count(*) AS n FROM overflow WHERE task = $1 GROUP BY partition) o ON o.partition = ps.partition
     WHERE ps.task = $1 ORDER BY ps.partition`,
    [task],
  );
  for (const p of parts.rows) {
    const fix: [string, number, number][] = [
      ['partition.depth', p.depth, p.a_depth],
      ['partition.in_flight', p.in_flight, p.a_running],
      ['partition.spilled', p.spilled, p.a_spilled],
    ];
    const wrong = fix.filter(([, rec, act]) => rec !== act);
    if (wrong.length === 0) continue;
    for (const [counter, recorded, actual] of wrong) out.push({ counter, partition: p.partition, groupName: null, groupKey: null, recorded, actual });
    await db.query('UPDATE partition_stats SET depth = $3, in_flight = $4, spilled = $5, updated_at = now() WHERE task = $1 AND partition = $2', [
      task, p.partition, p.a_depth, p.a_running, p.a_spilled,
    ]);
  }

  const keys = await db.query<{ group_name: string; group_key: string; in_flight: number | null; queued: number | null; a_in_flight: number; a_queued: number }>(
    `WITH actual AS (
       SELECT split_part(k, '=', 1) AS group_name, substr(k, strpos(k, '=') + 1) AS group_key,
              count(*) FILTER (WHERE state = 'running')::int AS a_in_flight,
              count(*) FILTER (WHERE state IN ('queued', 'blocked'))::int AS a_queued
       FROM (${UNFINISHED}) u, unnest(u.group_keys) AS k
       GROUP BY k
     )
     SELECT coalesce(a.group_name, gs.group_name) AS group_name, coalesce(a.group_key, gs.group_key) AS group_key,
            gs.in_flight, gs.queued, coalesce(a.a_in_flight, 0) AS a_in_flight, coalesce(a.a_queued, 0) AS a_queued
     FROM actual a FULL JOIN (SELECT * FROM group_slots WHERE task = $1) gs
       ON gs.group_name = a.group_name AND gs.group_key = a.group_key
     WHERE gs.in_flight IS DISTINCT FROM coalesce(a.a_in_flight, 0) OR gs.queued IS DISTINCT FROM coalesce(a.a_queued, 0)
     ORDER BY 1, 2`,
    [task],
  );
  for (const k of keys.rows) {
    if ((k.in_flight ?? 0) !== k.a_in_flight) out.push({ counter: 'group.in_flight', partition: null, groupName: k.group_name, groupKey: k.group_key, recorded: k.in_flight ?? 0, actual: k.a_in_flight });
    if ((k.queued ?? 0) !== k.a_queued) out.push({ counter: 'group.queued', partition: null, groupName: k.group_name, groupKey: k.group_key, recorded: k.queued ?? 0, actual: k.a_queued });
  }
  if (keys.rows.length > 0) {
    await db.query(
      `INSERT INTO group_slots AS gs (task, group_name, group_key, in_flight, queued, last_used_at)
       SELECT $1, g, k, f, q, now() FROM unnest($2::text[], $3::text[], $4::int[], $5::int[]) AS x(g, k, f, q) ORDER BY g, k
       ON CONFLICT (task, group_name, group_key) DO UPDATE SET in_flight = excluded.in_flight, queued = excluded.queued`,
      [task, keys.rows.map((k) => k.group_name), keys.rows.map((k) => k.group_key), keys.rows.map((k) => k.a_in_flight), keys.rows.map((k) => k.a_queued)],
    );
  }
  // Rows still waiting on a key with a slot nothing else will take (a finish should have
  // released them): let them go, and log how many as a mismatch of the 'waiting' count
  // (expected 0). A slot counts as taken by a row of the key already released into the
  // claim index and not yet claimed (sluice_release_stranded.sql says why: counting it as
  // room, the sweep sluice_release_waiting logged a false repair in the demo).
  const released = await db.query<{ n: number }>('SELECT sluice_release_stranded($1) AS n', [task]);
  const n = Number(released.rows[0]!.n);
  if (n > 0) out.push({ counter: 'group.waiting_with_room', partition: null, groupName: null, groupKey: null, recorded: n, actual: 0 });
  if (out.length > 0) {
    await db.query(
      `INSERT INTO reconcile_log (task, counter, partition, group_name, group_key, recorded, actual)
       SELECT $1, * FROM unnest($2::text[], $3::int[], $4::text[], $5::text[], $6::bigint[], $7::bigint[])`,
      [task, out.map((m) => m.counter), out.map((m) => m.partition), out.map((m) => m.groupName), out.map((m) => m.groupKey), out.map((m) => m.recorded), out.map((m) => m.actual)],
    );
  }
  return out;
}

export async function reconcilableTasks(db: Db): Promise<string[]> {
  const r = await db.query<{ task: string }>('SELECT task FROM task_runtime ORDER BY task');
  return r.rows.map((x) => x.task);
}
