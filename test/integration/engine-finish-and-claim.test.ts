// sluice_cycle (server/db/sql/functions/sluice_cycle.sql): a finish batch and the
// claim that refills its slots in one call. Checked at the SQL level, with no coordinator between:
// fencing on (id, lease_token), the task's cluster-wide limit, the caller's max, group
// limits seeing the released slots, and that the claim's UPDATE no longer reads the
// backlog (a counter of index tuples read, not timing).
import { describe, it, expect, beforeAll } from 'vitest';
import { testDatabase, type TestDatabase } from './db';
import { applyTasks, claimIndexReads, fakeCoordinator } from '../support/engine-fixtures';
import { enqueue } from '../../server/services/enqueue';
import { claimExecutions } from '../../server/db/claim-executions';
import { finishExecutions } from '../../server/db/finish-executions';
import { finishAndClaimExecutions } from '../../server/db/finish-and-claim-executions';
import { foldSlotDeltas } from '../../server/db/fold-slot-deltas';

let db: TestDatabase;
beforeAll(async () => {
  db = await testDatabase();
});

const inFlight = async (task: string) =>
  Number((await db.pool.query('SELECT in_flight FROM task_counters WHERE task = $1', [task])).rows[0].in_flight);

describe('finish and claim in one call', () => {
  it('refills freed slots in the same call, capped by max and by the task limit', async () => {
    await applyTasks(db.pool, [{ name: 'fc', partitions: 2, concurrency: 5 }]);
    const me = await fakeCoordinator(db.pool, ['fc']);
    await enqueue(db.pool, 'fc', Array.from({ length: 20 }, (_, i) => ({ payload: { i } })));
    const first = await claimExecutions(db.pool, me, 'fc', 5, 60_000);
    expect(first).toHaveLength(5);
    // finishing 2 frees 2 cluster-wide slots: asking for 10 gets 2
    const r1 = await finishAndClaimExecutions(db.pool, me, 'fc', first.slice(0, 2).map((e) => ({ id: e.id, leaseToken: e.leaseToken, outcome: 'succeeded' as const })), 10, 60_000);
    expect([...r1.applied.values()]).toEqual(['succeeded', 'succeeded']);
    expect(r1.claimed).toHaveLength(2);
    expect(await inFlight('fc')).toBe(5);
    // the caller's max caps too: finishing 3, asking for 1
    const r2 = await finishAndClaimExecutions(db.pool, me, 'fc', first.slice(2).map((e) => ({ id: e.id, leaseToken: e.leaseToken, outcome: 'succeeded' as const })), 1, 60_000);
    expect(r2.applied.size).toBe(3);
    expect(r2.claimed).toHaveLength(1);
    expect(await inFlight('fc')).toBe(3);
    // a pure claim (nothing to finish) and a pure finish (max 0) both work
    const r3 = await finishAndClaimExecutions(db.pool, me, 'fc', [], 2, 60_000);
    expect(r3.claimed).toHaveLength(2);
    const held = [...r1.claimed, ...r2.claimed, ...r3.claimed];
    const r4 = await finishAndClaimExecutions(db.pool, me, 'fc', held.map((e) => ({ id: e.id, leaseToken: e.leaseToken, outcome: 'succeeded' as const })), 0, 60_000);
    expect(r4.applied.size).toBe(5);
    expect(r4.claimed).toHaveLength(0);
    expect(await inFlight('fc')).toBe(0);
    const st = await db.pool.query(`SELECT state, count(*)::int AS n FROM executions WHERE task = 'fc' GROUP BY 1 ORDER BY 1`);
    expect(st.rows).toEqual([{ state: 'queued', n: 10 }, { state: 'succeeded', n: 10 }]);
    const ps = await db.pool.query(`SELECT sum(depth)::int AS depth, sum(in_flight)::int AS f, sum(po.processed_total)::int AS done FROM partition_stats ps JOIN partition_outcomes po USING (task, partition) WHERE task = 'fc'`);
    expect(ps.rows[0]).toEqual({ depth: 10, f: 0, done: 10 });
  });

  it('is fenced against a lost lease: the late finish changes nothing and its claim still respects the limit', async () => {
    await applyTasks(db.pool, [{ name: 'fcfence', partitions: 1, concurrency: 1, retry: { maxAttempts: 5, baseDelayMs: 0, maxDelayMs: 0 } }]);
    const a = await fakeCoordinator(db.pool, ['fcfence']);
    await enqueue(db.pool, 'fcfence', [{ payload: { n: 1 } }, { payload: { n: 2 } }]);
    const [lost] = await claimExecutions(db.pool, a, 'fcfence', 1, 60_000);
    await db.pool.query(`UPDATE coordinators SET last_heartbeat_at = now() - interval '1 hour' WHERE id = $1`, [a]);
    const rescued = await finishExecutions(db.pool, 'fcfence', [{ id: lost!.id, leaseToken: lost!.leaseToken, outcome: 'retry', runAt: new Date(Date.now() - 60_000), error: 'lease expired' }], { onlyExpired: true, staleMs: 5_000 });
    expect(rescued.get(lost!.id)).toBe('retry');
    const b = await fakeCoordinator(db.pool, ['fcfence']);
    const [again] = await claimExecutions(db.pool, b, 'fcfence', 1, 60_000);
    expect(again!.id).toBe(lost!.id);
    // a's late completion rides with a claim: fenced, so no slot is freed, so nothing claimed
    await db.pool.query(`UPDATE coordinators SET last_heartbeat_at = now() WHERE id = $1`, [a]);
    await db.pool.query(`UPDATE partition_owners SET owner = $1 WHERE task = 'fcfence'`, [a]);
    const late = await finishAndClaimExecutions(db.pool, a, 'fcfence', [{ id: lost!.id, leaseToken: lost!.leaseToken, outcome: 'succeeded' }], 1, 60_000);
    expect(late.applied.size).toBe(0);
    expect(late.claimed).toHaveLength(0);
    const row = await db.pool.query('SELECT state, attempts, lease_owner, lease_token FROM executions WHERE id = $1', [lost!.id]);
    expect(row.rows[0]).toEqual({ state: 'running', attempts: 2, lease_owner: b, lease_token: again!.leaseToken });
    expect(await inFlight('fcfence')).toBe(1);
  });

  it('sees the group slots the finish released in the same call', async () => {
    await applyTasks(db.pool, [{ name: 'fcgroup', partitions: 1, concurrency: 10, groups: [{ name: 'tenant', limit: 1, keyPath: 't' }] }]);
    const me = await fakeCoordinator(db.pool, ['fcgroup']);
    await enqueue(db.pool, 'fcgroup', [1, 2, 3].map((n) => ({ payload: { t: 'x', n } })));
    const [one] = await claimExecutions(db.pool, me, 'fcgroup', 5, 60_000);
    expect(await claimExecutions(db.pool, me, 'fcgroup', 5, 60_000)).toHaveLength(0); // tenant x saturated
    const r = await finishAndClaimExecutions(db.pool, me, 'fcgroup', [{ id: one!.id, leaseToken: one!.leaseToken, outcome: 'succeeded' }], 5, 60_000);
    expect(r.claimed.map((e) => (e.payload as { n: number }).n)).toEqual([2]);
    await foldSlotDeltas(db.pool, 'fcgroup');
    const gs = await db.pool.query(`SELECT in_flight, queued FROM group_slots WHERE task = 'fcgroup'`);
    expect(gs.rows).toEqual([{ in_flight: 1, queued: 1 }]);
  });

  it('logs a grouped task\'s slot counter moves so that, folded, they are exactly what a finish then a claim would make, outcome by outcome', async () => {
    // Two groups, keys shared between the rows finishing and the rows claimed in the same
    // call, every outcome (a retry and a release are queued again: +queued on their keys).
    await applyTasks(db.pool, [{
      name: 'fcslots', partitions: 2, concurrency: 12,
      groups: [{ name: 'tenant', limit: 6, keyPath: 't' }, { name: 'key', limit: 2, keyPath: 'k' }],
      retry: { maxAttempts: 5, backoff: 'fixed', baseDelayMs: 0 },
    }]);
    const me = await fakeCoordinator(db.pool, ['fcslots']);
    await enqueue(db.pool, 'fcslots', Array.from({ length: 60 }, (_, i) => ({ payload: { t: `t${i % 3}`, k: `k${i % 7}`, i } })));
    // Counters recomputed from the rows (running = in_flight, queued = queued), per key,
    // against group_slots once the logged moves are folded (as a coordinator folds them).
    const mismatches = async () => {
      await foldSlotDeltas(db.pool, 'fcslots');
      return (await db.pool.query(
        `WITH actual AS (
           SELECT k, count(*) FILTER (WHERE state = 'running')::int AS f, count(*) FILTER (WHERE state = 'queued')::int AS q
           FROM executions, unnest(group_keys) AS k WHERE task = 'fcslots' GROUP BY k
         )
         SELECT coalesce(a.k, gs.group_name || '=' || gs.group_key) AS k, gs.in_flight, gs.queued, a.f, a.q
         FROM actual a FULL JOIN (SELECT * FROM group_slots WHERE task = 'fcslots') gs ON a.k = gs.group_name || '=' || gs.group_key
         WHERE coalesce(gs.in_flight, 0) <> coalesce(a.f, 0) OR coalesce(gs.queued, 0) <> coalesce(a.q, 0)`,
      )).rows;
    };
    let running = await claimExecutions(db.pool, me, 'fcslots', 12, 60_000);
    expect(running.length).toBeGreaterThan(0);
    expect(await mismatches()).toEqual([]);
    const outcomes = ['succeeded', 'retry', 'dead', 'release', 'succeeded'] as const;
    for (let round = 0; round < 8 && running.length > 0; round++) {
      const done = running.slice(0, Math.max(1, running.length - 2));
      const items = done.map((e, j) => ({
        id: e.id, leaseToken: e.leaseToken, outcome: outcomes[(round + j) % outcomes.length]!,
        ...(outcomes[(round + j) % outcomes.length] === 'retry' ? { runAt: new Date(Date.now() - 1000), error: 'x' } : {}),
        ...(outcomes[(round + j) % outcomes.length] === 'dead' ? { error: 'x' } : {}),
      }));
      const r = await finishAndClaimExecutions(db.pool, me, 'fcslots', items, 12, 60_000);
      expect(r.applied.size).toBe(done.length);
      expect(await mismatches()).toEqual([]);
      running = [...running.slice(done.length), ...r.claimed];
      // every group limit held
      const over = await db.pool.query(
        `SELECT k, count(*)::int AS n FROM executions, unnest(group_keys) AS k WHERE task = 'fcslots' AND state = 'running'
         GROUP BY k HAVING count(*) > CASE WHEN k LIKE 'tenant=%' THEN 6 ELSE 2 END`,
      );
      expect(over.rows).toEqual([]);
    }
  });

  it('writes each partition_stats row once a cycle: a partition finished in and claimed from gets both moves in one update, the others the finish\'s alone, and the counters match the rows', async () => {
    // Under a held snapshot every read of a counter row walks the versions written since, so
    // a cycle writes one (sluice_finish_partitions.sql). Counted by a row trigger on the
    // table (PG 15's pg_stat_get_xact_* also count earlier transactions not yet reported);
    // the previous build wrote 3 here.
    await applyTasks(db.pool, [{ name: 'fcps', partitions: 2, concurrency: 50, retry: { maxAttempts: 5, backoff: 'fixed', baseDelayMs: 0 } }]);
    const me = await fakeCoordinator(db.pool, ['fcps']);
    await enqueue(db.pool, 'fcps', Array.from({ length: 24 }, (_, i) => ({ payload: { i } })));
    const running = await claimExecutions(db.pool, me, 'fcps', 10, 60_000);
    expect(new Set(running.map((e) => e.partition))).toEqual(new Set([0, 1]));
    const mismatches = async () =>
      (await db.pool.query(
        `SELECT ps.partition, ps.depth::int, ps.in_flight, a.q, a.f FROM partition_stats ps
         CROSS JOIN LATERAL (SELECT count(*) FILTER (WHERE e.state = 'queued')::int AS q, count(*) FILTER (WHERE e.state = 'running')::int AS f
                             FROM executions e WHERE e.task = ps.task AND e.partition = ps.partition) a
         WHERE ps.task = 'fcps' AND (ps.depth <> a.q OR ps.in_flight <> a.f)`,
      )).rows;
    // partition 1 is no longer this member's: its rows still finish here, but nothing is claimed from it
    await db.pool.query(`UPDATE partition_owners SET owner = NULL WHERE task = 'fcps' AND partition = 1`);
    const items = running.map((e, j) => ({
      id: e.id, leaseToken: e.leaseToken, outcome: j % 3 === 0 ? ('retry' as const) : ('succeeded' as const),
      ...(j % 3 === 0 ? { runAt: new Date(Date.now() - 1000), error: 'x' } : {}),
    }));
    await db.pool.query(`
      CREATE TABLE fcps_updates (partition integer NOT NULL);
      CREATE FUNCTION fcps_count() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN IF NEW.task = 'fcps' THEN INSERT INTO fcps_updates VALUES (NEW.partition); END IF; RETURN NEW; END $$;
      CREATE TRIGGER fcps_count AFTER UPDATE ON partition_stats FOR EACH ROW EXECUTE FUNCTION fcps_count();`);
    let updates: unknown[];
    let cycle: Awaited<ReturnType<typeof finishAndClaimExecutions>>;
    try {
      cycle = await finishAndClaimExecutions(db.pool, me, 'fcps', items, 6, 60_000);
      updates = (await db.pool.query(`SELECT partition, count(*)::int AS n FROM fcps_updates GROUP BY 1 ORDER BY 1`)).rows;
    } finally {
      await db.pool.query(`DROP TRIGGER fcps_count ON partition_stats; DROP FUNCTION fcps_count(); DROP TABLE fcps_updates`);
    }
    expect(cycle.applied.size).toBe(10);
    expect(cycle.claimed.length).toBe(6);
    expect(new Set(cycle.claimed.map((e) => e.partition))).toEqual(new Set([0]));
    // partition 0: finished in and claimed from, one update; partition 1: finished in, one
    expect(updates).toEqual([{ partition: 0, n: 1 }, { partition: 1, n: 1 }]);
    expect(await mismatches()).toEqual([]);
    // a claim that claims nothing (partition 0 drained) leaves the moves to sluice_cycle
    const rest = await claimExecutions(db.pool, me, 'fcps', 50, 60_000);
    const all = [...cycle.claimed, ...rest];
    expect(await db.pool.query(`SELECT count(*)::int AS n FROM executions WHERE task = 'fcps' AND partition = 0 AND state = 'queued'`)).toMatchObject({ rows: [{ n: 0 }] });
    const empty = await finishAndClaimExecutions(db.pool, me, 'fcps', all.map((e) => ({ id: e.id, leaseToken: e.leaseToken, outcome: 'succeeded' as const })), 6, 60_000);
    expect(empty.claimed).toEqual([]);
    expect(await mismatches()).toEqual([]);
    expect(await inFlight('fcps')).toBe(0);
  });

  it("the claim's update goes by primary key, not through the task's backlog", async () => {
    await applyTasks(db.pool, [{ name: 'fcscan', partitions: 1, concurrency: 10, backpressure: { maxDepth: 100_000 } }]);
    const me = await fakeCoordinator(db.pool, ['fcscan']);
    await enqueue(db.pool, 'fcscan', Array.from({ length: 3000 }, (_, i) => ({ payload: { i } })));
    // idx_tup_read of the claim index counts every index entry a scan returned; a claim of
    // 10 that filtered the backlog by id read ~3000 of them.
    const { reads, value: got } = await claimIndexReads(db.pool, db.pool, async (c) => {
      let n = 0;
      for (let i = 0; i < 5; i++) {
        const r = await finishAndClaimExecutions(c, me, 'fcscan', [], 10, 60_000);
        n += r.claimed.length;
        await finishExecutions(c, 'fcscan', r.claimed.map((e) => ({ id: e.id, leaseToken: e.leaseToken, outcome: 'succeeded' as const })));
      }
      return n;
    });
    expect(got).toBe(50);
    // 5 claims of 10: the candidate scan reads ~10 live entries (+ dead ones of earlier
    // rounds) per claim; the old plan read the whole backlog (~3000) per claim.
    expect(reads).toBeLessThan(1000);
  });

  it('reports the fenced items of a mixed batch and applies the rest with their errors (the lean reply)', async () => {
    await applyTasks(db.pool, [{ name: 'fcmix', partitions: 1, concurrency: 10, retry: { maxAttempts: 1, baseDelayMs: 0, maxDelayMs: 0 } }]);
    const me = await fakeCoordinator(db.pool, ['fcmix']);
    await enqueue(db.pool, 'fcmix', Array.from({ length: 5 }, (_, i) => ({ payload: { i } })));
    const [ok, dead, lost, ...rest] = await claimExecutions(db.pool, me, 'fcmix', 4, 60_000);
    expect(rest).toHaveLength(1);
    const r = await finishAndClaimExecutions(db.pool, me, 'fcmix', [
      { id: ok!.id, leaseToken: ok!.leaseToken, outcome: 'succeeded' },
      { id: dead!.id, leaseToken: dead!.leaseToken, outcome: 'dead', error: 'Error: boom', stack: 'Error: boom\n    at h', fingerprint: 'fp-boom' },
      { id: lost!.id, leaseToken: '00000000-0000-4000-8000-000000000000', outcome: 'succeeded' }, // not its lease
    ], 10, 60_000);
    expect(r.applied).toEqual(new Map([[ok!.id, 'succeeded'], [dead!.id, 'dead']]));
    // the claimed row carries what a handler needs, nothing more
    expect(r.claimed).toHaveLength(1);
    expect(Object.keys(r.claimed[0]!).sort()).toEqual(['attempts', 'groups', 'id', 'idempotencyKey', 'leaseToken', 'partition', 'payload', 'streamKey']);
    expect(r.claimed[0]).toMatchObject({ attempts: 1, payload: { i: 4 }, groups: {}, streamKey: null });
    const rows = await db.pool.query('SELECT id, state, last_error FROM executions WHERE id = ANY ($1) ORDER BY id', [[ok!.id, dead!.id, lost!.id]]);
    expect(rows.rows).toEqual([
      { id: ok!.id, state: 'succeeded', last_error: null },
      { id: dead!.id, state: 'dead', last_error: 'Error: boom' },
      { id: lost!.id, state: 'running', last_error: null },
    ]);
    const dl = await db.pool.query('SELECT fingerprint, stack FROM dead_letters WHERE execution_id = $1', [dead!.id]);
    expect(dl.rows).toEqual([{ fingerprint: 'fp-boom', stack: 'Error: boom\n    at h' }]);
  });

  it('a batch with no dead row inserts no dead letter statement (its DLQ stats trigger does not fire); a dead row in the batch inserts one, with its letter', async () => {
    await applyTasks(db.pool, [{ name: 'fcdl', partitions: 1, concurrency: 10, retry: { maxAttempts: 1, baseDelayMs: 0, maxDelayMs: 0 } }]);
    const me = await fakeCoordinator(db.pool, ['fcdl']);
    await enqueue(db.pool, 'fcdl', Array.from({ length: 6 }, (_, i) => ({ payload: { i } })));
    // a statement trigger beside the DLQ stats one, counting INSERT statements on dead_letters
    await db.pool.query(`CREATE TABLE fcdl_inserts (n integer NOT NULL); INSERT INTO fcdl_inserts VALUES (0);
      CREATE FUNCTION fcdl_count() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN UPDATE fcdl_inserts SET n = n + 1; RETURN NULL; END $$;
      CREATE TRIGGER fcdl_count AFTER INSERT ON dead_letters FOR EACH STATEMENT EXECUTE FUNCTION fcdl_count();`);
    const inserts = async () => (await db.pool.query<{ n: number }>('SELECT n FROM fcdl_inserts')).rows[0]!.n;
    try {
      const got = await claimExecutions(db.pool, me, 'fcdl', 6, 60_000);
      const item = (e: (typeof got)[number], outcome: 'succeeded' | 'retry' | 'dead') => ({ id: e.id, leaseToken: e.leaseToken, outcome, ...(outcome === 'succeeded' ? {} : { error: `Error: ${e.id}`, fingerprint: `fp-${e.id}` }) });
      await finishAndClaimExecutions(db.pool, me, 'fcdl', [item(got[0]!, 'succeeded'), item(got[1]!, 'succeeded')], 0, 60_000);
      expect(await inserts()).toBe(0);
      await finishAndClaimExecutions(db.pool, me, 'fcdl', [item(got[2]!, 'succeeded'), item(got[3]!, 'dead'), item(got[4]!, 'dead')], 0, 60_000);
      expect(await inserts()).toBe(1);
      const dl = await db.pool.query('SELECT execution_id AS id, last_error, fingerprint, attempts, payload FROM dead_letters WHERE task = $1 ORDER BY execution_id', ['fcdl']);
      expect(dl.rows).toEqual([got[3]!, got[4]!].map((e) => ({ id: e.id, last_error: `Error: ${e.id}`, fingerprint: `fp-${e.id}`, attempts: 1, payload: e.payload })));
      // the DLQ stats (the trigger that no longer fires on empty inserts) count both
      const stats = await db.pool.query<{ n: number }>('SELECT coalesce(sum(count), 0)::int AS n FROM dlq_fingerprint_stats WHERE task = $1', ['fcdl']);
      expect(stats.rows[0]!.n).toBe(2);
    } finally {
      await db.pool.query('DROP TRIGGER fcdl_count ON dead_letters; DROP FUNCTION fcdl_count(); DROP TABLE fcdl_inserts');
    }
  });

  it('sluice_hist_add adds bucket counts to a 17-bucket histogram', async () => {
    const h = async (hist: number[], buckets: number[]) =>
      (await db.pool.query<{ h: string[] }>('SELECT sluice_hist_add($1::bigint[], $2::int[]) AS h', [hist, buckets])).rows[0]!.h.map(Number);
    expect(await h([], [1, 1, 17, 3])).toEqual([2, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]);
    expect(await h([5, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2], [2, 17])).toEqual([5, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3]);
    expect(await h([1, 2], [])).toEqual([1, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    // indexes outside 1..17 count nowhere; NULLs are empty
    expect(await h([], [0, 18, 4])).toEqual([0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    const nulls = await db.pool.query<{ a: string[]; b: string[] }>('SELECT sluice_hist_add(NULL, ARRAY[2]) AS a, sluice_hist_add(ARRAY[3]::bigint[], NULL) AS b');
    expect(nulls.rows[0]!.a.map(Number)).toEqual([0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    expect(nulls.rows[0]!.b.map(Number)).toEqual([3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
  });
});
