// The SQL of one enqueue transaction (services/enqueue.ts runs them in this order, which
// is the engine's lock order minus the task lock enqueue never takes):
//   idempotency advisory locks (sorted) → partition_stats rows (sorted, FOR NO KEY UPDATE)
//   → group_slots rows of a fair share group's keys (sorted upsert) → stream advisory
//   locks (sorted) → INSERT. The other keys' +queued is a slot_deltas row, folded later
//   (addQueuedGroupKeys).
// Depth is read under the partition row lock and written back before commit, so two
// producers racing for the last free depth cannot both get it (exact backpressure).
// The batch goes in with ONE insert statement: ids are drawn in batch order from the
// executions sequence in a MATERIALIZED CTE (no sort between the scan and nextval, so
// id order = batch order), and each row's initial state is computed in the same
// statement — `blocked` when its stream already has an unfinished execution (visible
// because we hold the stream's advisory lock) or an earlier row of this batch.
// Measured on the local PG15 (2 cores): a 1000-row batch with 2 groups and streams
// inserts in ~25 ms; a single-row enqueue is 7 round trips, ~1.5 ms with the commit.
import type { Db } from './pool';

/** Advisory lock key space (two-int form) for idempotency keys. */
const IDEMPOTENCY_LOCK_CLASS = 0x5c1d;

export interface TaskForEnqueue {
  definition: unknown;
  partitions: number;
  active: boolean;
  depths: number[];
  counter: number;
}

/** Task definition + routing inputs in one round trip: depths are the cached counters;
 *  the round-robin counter is drawn from the task's sequence only when routing uses it. */
export async function loadTaskForEnqueue(db: Db, task: string, sequence: string): Promise<TaskForEnqueue | null> {
  const r = await db.query<{ definition: unknown; partitions: number; active: boolean; depths: number[] | null; counter: number | null }>(
    `SELECT t.definition, t.partitions, t.active,
            (SELECT array_agg(ps.depth ORDER BY ps.partition) FROM partition_stats ps WHERE ps.task = t.task) AS depths,
            CASE WHEN t.active AND t.definition -> 'routing' ->> 'strategy' = 'round-robin'
                 THEN nextval(to_regclass($2)) END AS counter
     FROM task_runtime t WHERE t.task = $1`,
    [task, `"${sequence}"`],
  );
  const row = r.rows[0];
  if (!row) return null;
  return { definition: row.definition, partitions: row.partitions, active: row.active, depths: (row.depths ?? []).map(Number), counter: Number(row.counter ?? 0) };
}

export async function lockIdempotencyKeys(db: Db, task: string, keys: readonly string[]): Promise<void> {
  const sorted = [...new Set(keys)].sort();
  if (sorted.length === 0) return;
  await db.query(
    `SELECT pg_advisory_xact_lock($1, hashtext($2 || chr(31) || k)) FROM (SELECT k FROM unnest($3::text[]) k ORDER BY k) s`,
    [IDEMPOTENCY_LOCK_CLASS, task, sorted],
  );
}

export interface ExistingByKey {
  idempotencyKey: string;
  id: number;
  partition: number;
  state: string;
}

/** Executions (and spilled rows) that already carry one of the keys. */
export async function findByIdempotencyKeys(db: Db, task: string, keys: readonly string[]): Promise<ExistingByKey[]> {
  if (keys.length === 0) return [];
  const r = await db.query<ExistingByKey>(
    `SELECT idempotency_key AS "idempotencyKey", id, partition, state FROM executions
     WHERE task = $1 AND idempotency_key = ANY ($2::text[])
     UNION ALL
     SELECT idempotency_key, id, partition, 'spilled' FROM overflow
     WHERE task = $1 AND idempotency_key = ANY ($2::text[])`,
    [task, keys],
  );
  return r.rows;
}

/** Stream keys that still have spilled rows waiting: their new executions spill too. */
export async function streamsWithOverflow(db: Db, task: string, streams: readonly string[]): Promise<Set<string>> {
  if (streams.length === 0) return new Set();
  const r = await db.query<{ k: string }>(
    `SELECT DISTINCT stream_key AS k FROM overflow WHERE task = $1 AND stream_key = ANY ($2::text[])`,
    [task, [...new Set(streams)]],
  );
  return new Set(r.rows.map((x) => x.k));
}

export interface LockedPartition {
  partition: number;
  depth: number;
  spilled: number;
}

/** Locks the target partitions' counter rows in partition order and reads depth. */
export async function lockPartitions(db: Db, task: string, partitions: readonly number[]): Promise<LockedPartition[]> {
  const r = await db.query<LockedPartition>(
    `SELECT partition, depth, spilled FROM partition_stats
     WHERE task = $1 AND partition = ANY ($2::int[]) ORDER BY partition FOR NO KEY UPDATE`,
    [task, [...new Set(partitions)]],
  );
  return r.rows;
}

/** +queued on each (group, key) the accepted executions carry. For every group but a fair
 *  share group: one slot_deltas row (its keys one 'group=key' entry per execution and
 *  key), folded into group_slots outside this transaction by sluice_fold_slots, as the
 *  claim's and the finish's moves are, so the enqueue takes none of those rows. Until
 *  2026-12-02 it upserted them all here while it held the partition_stats rows, and every
 *  claim of those partitions waited for it (bench:soak's held snapshot: 34.6 ms per
 *  1,000-row enqueue walking the key rows' versions; docs/benchmarks.md, fifteenth
 *  session). The keys of the group a task shares fairly (task_runtime.groups marks it
 *  `fair`) are still upserted here, sorted: the claim's fair pass finds the waiting keys
 *  by group_slots.queued > 0, and a key enqueued but not yet folded would be missed by it
 *  (a new tenant served oldest-first until the next fold). */
export async function addQueuedGroupKeys(db: Db, task: string, groupKeys: readonly [string, string][]): Promise<void> {
  if (groupKeys.length === 0) return;
  await db.query(`WITH ${queuedMoves('$1', '$2', '$3')} SELECT 1`, [task, groupKeys.map((x) => x[0]), groupKeys.map((x) => x[1])]);
}

/** addQueuedGroupKeys's statement as CTEs: task, group names and keys (one pair per
 *  execution and group) as SQL parameters; nothing is written for an empty list. */
const queuedMoves = (task: string, names: string, keys: string) =>
  `q_pairs AS (
     SELECT x.g, x.k, coalesce((SELECT t.groups FROM task_runtime t WHERE t.task = ${task}) -> x.g ? 'fair', false) AS fair
     FROM unnest(${names}::text[], ${keys}::text[]) AS x(g, k)
   ),
   q_fair AS (
     INSERT INTO group_slots AS gs (task, group_name, group_key, queued, last_used_at)
     SELECT ${task}, g, k, count(*), now() FROM q_pairs WHERE fair
     GROUP BY g, k ORDER BY g, k
     ON CONFLICT (task, group_name, group_key) DO UPDATE SET queued = gs.queued + excluded.queued, last_used_at = now()
   ),
   q_rest AS (
     INSERT INTO slot_deltas (task, keys, d_in_flight, d_queued)
     SELECT ${task}, array_agg(g || '=' || k), 0, 1 FROM q_pairs WHERE NOT fair
     HAVING count(*) > 0
   )`;

/** −queued per 'group=key' for executions that left the backlog without running (a
 *  drained task's backlog, canceled executions): slot_deltas rows, one per distinct count
 *  (its keys those with that count, d_queued = −count), folded as the enqueue's are. Not
 *  clamped at 0: group_slots plus the moves not yet folded is the true count, so a
 *  requeue still to be folded may leave the row at −1 until it lands (sluice_fold_slots.sql). */
export async function removeQueuedGroupKeys(db: Db, task: string, counts: ReadonlyMap<string, number>): Promise<void> {
  if (counts.size === 0) return;
  const keys = [...counts.keys()];
  await db.query(
    `INSERT INTO slot_deltas (task, keys, d_in_flight, d_queued)
     SELECT $1, array_agg(d.gk ORDER BY d.gk), 0, -d.n FROM unnest($2::text[], $3::int[]) AS d(gk, n)
     WHERE d.n <> 0 GROUP BY d.n`,
    [task, keys, keys.map((k) => counts.get(k)!)],
  );
}

export async function lockStreams(db: Db, task: string, streams: readonly string[]): Promise<void> {
  const sorted = [...new Set(streams)].sort();
  if (sorted.length === 0) return;
  // hashtextextended(task ␟ key): the same key space sluice_finish uses for promotion.
  await db.query(
    `SELECT pg_advisory_xact_lock(hashtextextended($1 || chr(31) || k, 0)) FROM (SELECT k FROM unnest($2::text[]) k ORDER BY k) s`,
    [task, sorted],
  );
}

export interface NewExecutionRow {
  partition: number;
  payload: unknown;
  groups: Record<string, string>;
  streamKey: string | null;
  idempotencyKey: string | null;
  delayMs: number;
  /** Preassigned id (spilled rows drained back keep theirs); null → next from the sequence. */
  id?: number | null;
  enqueuedAt?: Date | null;
  /** W3C traceparent (version 00) the attempts' spans are children of; null: none. */
  traceparent?: string | null;
  /** Priority (higher first) and its lead, priority × the task's agingMs (server/core/priority.ts); absent: 0. */
  priority?: number;
  priorityLeadMs?: number;
}

/**
 * Per partition, the least (delayMs − priorityLeadMs) of rows about to be inserted: their
 * claim_at is run_at − lead with run_at = now() + delay (insertExecutions), so the least
 * claim_at in the partition is now() + this. The partition's claim floor must come down to it
 * in the same transaction, under the partition_stats row lock the enqueue holds
 * (addEnqueueCounters' claimFloorMs; migration 20261203000100000_claim_floor).
 */
export function claimFloorOffsets(rows: readonly NewExecutionRow[]): Map<number, number> {
  const out = new Map<number, number>();
  for (const r of rows) {
    const v = r.delayMs - (r.priorityLeadMs ?? 0);
    const seen = out.get(r.partition);
    if (seen === undefined || v < seen) out.set(r.partition, v);
  }
  return out;
}

/** The claim floor's lowering as the SET clauses of an UPDATE of partition_stats `ps`: to
 *  (now() + offset − 1 ms, id 0) unless it is below that already, the 1 ms a margin over the
 *  microsecond rounding of the insert's own arithmetic; NULL offset: unchanged. */
export const lowerClaimFloorSql = (offsetMs: string) => {
  const at = `((now() AT TIME ZONE 'UTC') + make_interval(secs => ${offsetMs} / 1000.0) - interval '1 millisecond')`;
  return `claim_floor_id = CASE WHEN ${at} <= ps.claim_floor THEN 0 ELSE ps.claim_floor_id END,
           claim_floor = CASE WHEN ${offsetMs} IS NULL THEN ps.claim_floor ELSE least(ps.claim_floor, ${at}) END`;
};

export interface InsertedExecution {
  id: number;
  partition: number;
  state: 'queued' | 'blocked';
}

/**
 * JIT off for the rest of the caller's transaction when a batch is large (the enqueue and
 * the overflow drain call it first in theirs, so the idempotency lookups are covered too). The insert's
 * estimated cost grows with the square of the batch (its CTE joins are estimated far above
 * their rows), and from about 1,000 rows it crosses Postgres' jit_above_cost (100,000) and
 * jit_optimize_above_cost: the server then compiled the statement with LLVM on every call.
 * pg_stat_statements in the engine bench (5,000-row batches, 2026-12-02): 40 calls, 27.1 s
 * of the 33.1 s they took was JIT inlining, optimisation and emission, ~680 ms per call.
 * Below the threshold the cost stays under the limit (no round trip spent). SET LOCAL (not a
 * connection option): it passes a transaction pooler such as PgBouncer, and ends with the
 * transaction. Outside a transaction it would only warn; every caller runs in one.
 */
export const JIT_OFF_FROM_ROWS = 256;
export async function jitOffForLargeBatch(db: Db, rows: number): Promise<void> {
  if (rows >= JIT_OFF_FROM_ROWS) await db.query('SET LOCAL jit = off');
}

export async function insertExecutions(db: Db, task: string, rows: readonly NewExecutionRow[]): Promise<InsertedExecution[]> {
  if (rows.length === 0) return [];
  const r = await db.query<InsertedExecution & { ord: number }>(
    `WITH src AS (
       SELECT t.* FROM unnest($2::int[], $3::jsonb[], $4::jsonb[], $5::text[], $6::text[], $7::float8[], $8::bigint[], $9::timestamptz[], $10::text[], $11::int[], $12::bigint[])
         WITH ORDINALITY AS t(partition, payload, groups, stream_key, idem, delay_ms, pre_id, enqueued_at, traceparent, priority, lead_ms, ord)
     ),
     ids AS MATERIALIZED (
       SELECT s.ord, coalesce(s.pre_id, nextval('executions_id_seq')) AS id FROM src s
     ),
     -- order: fair (issue #19): the group the task shares fairly; each row's key of it is
     -- its fair_key ('group=key', as in group_keys), executions_fair_idx's per-key entry.
     -- MATERIALIZED: read once per statement. Referenced once, the CTE was inlined into the
     -- per-row subquery below and task_runtime read once per inserted row; that row is
     -- updated by every claim and finish, so under a held snapshot each read walks every
     -- version since (bench:soak, 2026-12-01: 315,650 buffer reads and 534 ms per
     -- 1,650-row enqueue while a snapshot was held; 191 per row).
     fg AS MATERIALIZED (SELECT g.key AS name FROM task_runtime tr CROSS JOIN LATERAL jsonb_each(tr.groups) AS g WHERE tr.task = $1 AND g.value ? 'fair' LIMIT 1),
     ins AS (
       INSERT INTO executions (id, task, partition, state, payload, groups, group_keys, stream_key, idempotency_key, run_at, enqueued_at, traceparent, priority, priority_lead_ms, fair_key)
       SELECT ids.id, $1, s.partition,
              CASE WHEN s.stream_key IS NULL THEN 'queued'
                   WHEN row_number() OVER (PARTITION BY s.stream_key ORDER BY s.ord) > 1 THEN 'blocked'
                   WHEN EXISTS (SELECT 1 FROM executions h
                                WHERE h.task = $1 AND h.stream_key = s.stream_key
                                  AND h.state IN ('blocked', 'queued', 'running')) THEN 'blocked'
                   ELSE 'queued' END,
              s.payload, s.groups,
              ARRAY(SELECT j.k || '=' || j.v FROM jsonb_each_text(s.groups) AS j(k, v) ORDER BY j.k),
              s.stream_key, s.idem,
              now() + make_interval(secs => s.delay_ms / 1000.0),
              coalesce(s.enqueued_at, now()), s.traceparent, s.priority, s.lead_ms,
              (SELECT fg.name || '=' || (s.groups ->> fg.name) FROM fg)
       FROM src s JOIN ids USING (ord)
       RETURNING id, partition, state
     )
     SELECT ids.ord, ins.id, ins.partition, ins.state FROM ins JOIN ids USING (id) ORDER BY ids.ord`,
    [
      task,
      rows.map((x) => x.partition),
      rows.map((x) => JSON.stringify(x.payload ?? null)),
      rows.map((x) => JSON.stringify(x.groups)),
      rows.map((x) => x.streamKey),
      rows.map((x) => x.idempotencyKey),
      rows.map((x) => x.delayMs),
      rows.map((x) => x.id ?? null),
      rows.map((x) => x.enqueuedAt ?? null),
      rows.map((x) => x.traceparent ?? null),
      rows.map((x) => x.priority ?? 0),
      rows.map((x) => x.priorityLeadMs ?? 0),
    ],
  );
  return r.rows.map(({ id, partition, state }) => ({ id, partition, state }));
}

/** Parks executions in the overflow table (spill); ids come from the executions sequence. */
export async function insertOverflow(db: Db, task: string, rows: readonly NewExecutionRow[]): Promise<{ id: number; partition: number }[]> {
  if (rows.length === 0) return [];
  const r = await db.query<{ id: number; partition: number; ord: number }>(
    `WITH src AS (
       SELECT t.* FROM unnest($2::int[], $3::jsonb[], $4::jsonb[], $5::text[], $6::text[], $7::float8[], $8::text[], $9::int[], $10::bigint[])
         WITH ORDINALITY AS t(partition, payload, groups, stream_key, idem, delay_ms, traceparent, priority, lead_ms, ord)
     ),
     ids AS MATERIALIZED (SELECT s.ord, nextval('executions_id_seq') AS id FROM src s),
     ins AS (
       INSERT INTO overflow (id, task, partition, payload, groups, group_keys, stream_key, idempotency_key, run_at, traceparent, priority, priority_lead_ms)
       SELECT ids.id, $1, s.partition, s.payload, s.groups,
              ARRAY(SELECT j.k || '=' || j.v FROM jsonb_each_text(s.groups) AS j(k, v) ORDER BY j.k),
              s.stream_key, s.idem, now() + make_interval(secs => s.delay_ms / 1000.0), s.traceparent, s.priority, s.lead_ms
       FROM src s JOIN ids USING (ord)
       RETURNING id, partition
     )
     SELECT ids.ord, ins.id, ins.partition FROM ins JOIN ids USING (id) ORDER BY ids.ord`,
    [
      task,
      rows.map((x) => x.partition),
      rows.map((x) => JSON.stringify(x.payload ?? null)),
      rows.map((x) => JSON.stringify(x.groups)),
      rows.map((x) => x.streamKey),
      rows.map((x) => x.idempotencyKey),
      rows.map((x) => x.delayMs),
      rows.map((x) => x.traceparent ?? null),
      rows.map((x) => x.priority ?? 0),
      rows.map((x) => x.priorityLeadMs ?? 0),
    ],
  );
  return r.rows.map(({ id, partition }) => ({ id, partition }));
}

export interface PartitionEnqueueDelta {
  partition: number;
  accepted: number;
  spilled: number;
  shed: number;
  /** Staged backpressure: the partition's stage once these are in (core/backpressure-stages.ts);
   *  a change from the stored bp_stage counts in bp_stage_changes. Absent: unchanged. */
  stage?: string;
  /** The accepted rows' least claim_at − now() in ms (claimFloorOffsets): the partition's
   *  claim floor comes down to it. Absent: nothing claimable was inserted here. */
  claimFloorMs?: number;
}

/** Executions a committed enqueue made claimable at once: NOTIFY sluice_enqueue with the
 *  task name wakes idle coordinators (config-listener.ts). Delivered only on commit. */
export const ENQUEUE_CHANNEL = 'sluice_enqueue';

/** Moves the (already locked) partition counters for what this transaction enqueued,
 *  and with `wake` queues the sluice_enqueue notification in the same round trip.
 *  `throttled`: the accepted executions were delayed by the throttle policy (counted
 *  in throttled_total, the backpressure chart's "throttled /s").
 *  `groupKeys`: the early-insert enqueue (services/enqueue.ts) passes the accepted rows'
 *  (group, key) pairs, and their +queued delta row (addQueuedGroupKeys) goes in the same
 *  statement: one round trip saved. */
export async function addEnqueueCounters(
  db: Db,
  task: string,
  deltas: readonly PartitionEnqueueDelta[],
  wake = false,
  throttled = false,
  groupKeys: readonly [string, string][] = [],
): Promise<void> {
  const d = deltas.filter((x) => x.accepted + x.spilled + x.shed > 0);
  if (d.length === 0) return;
  await db.query(
    `WITH ${queuedMoves('$1', '$9', '$10')},
     moved AS (
       UPDATE partition_stats ps
       SET depth = ps.depth + d.accepted, spilled = ps.spilled + d.spilled,
           arrivals_total = ps.arrivals_total + d.accepted + d.spilled + d.shed,
           spilled_total = ps.spilled_total + d.spilled, shed_total = ps.shed_total + d.shed,
           throttled_total = ps.throttled_total + CASE WHEN $7 THEN d.accepted ELSE 0 END, updated_at = now(),
           bp_stage = coalesce(d.stage, ps.bp_stage),
           bp_stage_changes = ps.bp_stage_changes + (coalesce(d.stage, ps.bp_stage) <> ps.bp_stage)::int,
           ${lowerClaimFloorSql('d.floor_ms')}
       FROM unnest($2::int[], $3::int[], $4::int[], $5::int[], $8::text[], $11::float8[]) AS d(partition, accepted, spilled, shed, stage, floor_ms)
       WHERE ps.task = $1 AND ps.partition = d.partition
     )
     SELECT CASE WHEN $6 THEN pg_notify('${ENQUEUE_CHANNEL}', $1) END`,
    [
      task, d.map((x) => x.partition), d.map((x) => x.accepted), d.map((x) => x.spilled), d.map((x) => x.shed), wake, throttled,
      d.map((x) => x.stage ?? null), groupKeys.map((x) => x[0]), groupKeys.map((x) => x[1]),
      d.map((x) => (x.accepted > 0 ? (x.claimFloorMs ?? null) : null)),
    ],
  );
}

/** Counts executions a reject turned away (after the rollback, in its own statement); the
 *  partitions that rejected are in the policy stage (a change counts in bp_stage_changes). */
export async function addRejectedCounters(db: Db, task: string, rejected: ReadonlyMap<number, number>): Promise<void> {
  if (rejected.size === 0) return;
  await db.query(
    `UPDATE partition_stats ps SET rejected_total = ps.rejected_total + d.n,
       bp_stage = 'policy', bp_stage_changes = ps.bp_stage_changes + (ps.bp_stage <> 'policy')::int
     FROM unnest($2::int[], $3::int[]) AS d(partition, n) WHERE ps.task = $1 AND ps.partition = d.partition`,
    [task, [...rejected.keys()], [...rejected.values()]],
  );
}
