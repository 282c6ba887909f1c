// Every table bounded (server/core/retention-policy.ts): the coordinators' retention
// service and the control plane's prune-history job delete old rows and keep fresh ones,
// in bounded batches; a dead execution stays while its dead letter exists; the idempotency
// window is one duration for every state.
import { describe, it, expect, beforeAll } from 'vitest';
import { testDatabase, type TestDatabase } from './db';
import { applyTasks, fakeCoordinator } from '../support/engine-fixtures';
import { runServiceOnce } from '../../server/db/maintenance-runner';
import { retention } from '../../server/coordinator/maintenance/retention';
import { pruneHistory } from '../../server/control-plane/services/prune-history';
import { resolveRetention } from '../../server/core/retention-policy';
import { deleteFinishedExecutionsBatch, SUCCEEDED_OR_CANCELED } from '../../server/db/delete-finished-executions';
import pg from 'pg';
import { enqueue } from '../../server/services/enqueue';

let db: TestDatabase;
let coord: string;
const log = () => {};

beforeAll(async () => {
  db = await testDatabase();
  await applyTasks(db.pool, [
    { name: 'rt', partitions: 1 },
    { name: 'short', partitions: 1, retention: { succeededHours: 1 } },
    { name: 'bulk', partitions: 1 },
  ]);
  coord = await fakeCoordinator(db.pool, ['rt', 'short', 'bulk']);
});

/** Inserts a finished execution `hoursAgo` old, with one failed attempt; returns its id. */
async function finished(task: string, state: 'succeeded' | 'canceled' | 'dead', hoursAgo: number, key: string | null = null): Promise<number> {
  const r = await db.pool.query<{ id: string }>(
    `INSERT INTO executions (task, partition, state, payload, idempotency_key, attempts, finished_at)
     VALUES ($1, 0, $2, '{}', $3, 1, now() - make_interval(secs => $4::float8 * 3600)) RETURNING id`,
    [task, state, key, hoursAgo],
  );
  const id = Number(r.rows[0]!.id);
  await db.pool.query(
    `INSERT INTO execution_attempts (execution_id, task, attempt, outcome, error, failed_at) VALUES ($1, $2, 1, 'retry', 'x', now() - make_interval(secs => $3::float8 * 3600))`,
    [id, task, hoursAgo],
  );
  return id;
}

async function deadLetter(executionId: number, task: string): Promise<void> {
  await db.pool.query(
    `INSERT INTO dead_letters (execution_id, task, payload, partition, attempts, last_error, fingerprint, enqueued_at)
     VALUES ($1, $2, '{}', 0, 1, 'boom', 'fp', now() - interval '4 days')`,
    [executionId, task],
  );
}

const ids = async (sql: string, params: unknown[] = []) => (await db.pool.query<{ id: string }>(sql, params)).rows.map((r) => Number(r.id)).sort((a, b) => a - b);
const settings = resolveRetention({}, {});

describe('retention of executions', () => {
  it('deletes old succeeded, canceled and orphaned dead executions with their attempts, keeps fresh ones and dead ones with a dead letter', async () => {
    const oldSucceeded = await finished('rt', 'succeeded', 48);
    const freshSucceeded = await finished('rt', 'succeeded', 1);
    const oldCanceled = await finished('rt', 'canceled', 8 * 24);
    const freshCanceled = await finished('rt', 'canceled', 2 * 24);
    const deadWithLetter = await finished('rt', 'dead', 30 * 24, 'dead-key');
    await deadLetter(deadWithLetter, 'rt');
    const deadOrphan = await finished('rt', 'dead', 3 * 24);
    const deadOrphanInWindow = await finished('rt', 'dead', 2, 'young-dead');
    // task 'short' keeps succeeded rows 1 h; a keyed one waits for the 24 h idempotency window
    const shortOld = await finished('short', 'succeeded', 3);
    const shortKeyed = await finished('short', 'succeeded', 3, 'k-short');
    const shortKeyedPast = await finished('short', 'succeeded', 25, 'k-past');
    const running = await db.pool.query(`INSERT INTO executions (task, partition, state, payload, enqueued_at) VALUES ('rt', 0, 'queued', '{}', now() - interval '90 days') RETURNING id`);

    const r = await runServiceOnce(db.pool, retention(settings, 7 * 24 * 3_600_000), { intervalMs: 0 }, { coordinatorId: coord, staleMs: 60_000, log });
    expect(r.error).toBeUndefined();
    expect(r.result).toMatchObject({ executions: { succeeded: 3, canceled: 1, dead: 1 }, keysCleared: 1, complete: true });

    const left = await ids(`SELECT id FROM executions`);
    expect(left).toEqual([freshSucceeded, freshCanceled, deadWithLetter, deadOrphanInWindow, shortKeyed, Number(running.rows[0].id)].sort((a, b) => a - b));
    for (const gone of [oldSucceeded, oldCanceled, deadOrphan, shortOld, shortKeyedPast]) expect(left).not.toContain(gone);
    // attempts went with their execution, and only those
    expect(await ids(`SELECT DISTINCT execution_id AS id FROM execution_attempts`)).toEqual(
      [freshSucceeded, freshCanceled, deadWithLetter, deadOrphanInWindow, shortKeyed].sort((a, b) => a - b),
    );
    // the dead row outlived the window: its key no longer dedupes; the young one's still does
    const keys = await db.pool.query(`SELECT id, idempotency_key FROM executions WHERE state = 'dead' ORDER BY id`);
    expect(keys.rows.map((x) => [Number(x.id), x.idempotency_key])).toEqual([
      [deadWithLetter, null],
      [deadOrphanInWindow, 'young-dead'],
    ]);
    const again = await enqueue(db.pool, 'rt', [{ payload: {}, idempotencyKey: 'dead-key' }, { payload: {}, idempotencyKey: 'young-dead' }]);
    expect(again.executions.map((e) => e.deduplicated)).toEqual([false, true]);

    // once the dead letter is gone, the dead execution follows
    await db.pool.query(`DELETE FROM dead_letters WHERE execution_id = $1`, [deadWithLetter]);
    await runServiceOnce(db.pool, retention(settings, 7 * 24 * 3_600_000), { intervalMs: 0 }, { coordinatorId: coord, staleMs: 60_000, log });
    expect(await ids(`SELECT id FROM executions WHERE id = $1`, [deadWithLetter])).toEqual([]);
  });

  it('deletes in batches of at most the batch size, oldest first, until none is left', async () => {
    const made: number[] = [];
    for (let i = 0; i < 25; i++) made.push(await finished('bulk', 'succeeded', 100 - i));
    const fresh = await finished('bulk', 'succeeded', 0.5);
    const first = await deleteFinishedExecutionsBatch(db.pool, 'bulk', 'succeeded', 24 * 3_600_000, 24 * 3_600_000, 7);
    expect(first.n).toBe(7);
    // the oldest seven went
    expect(await ids(`SELECT id FROM executions WHERE task = 'bulk'`)).toEqual([...made.slice(7), fresh]);
    const r = await runServiceOnce(db.pool, retention({ ...settings, batch: 7 }, 7 * 24 * 3_600_000), { intervalMs: 0 }, { coordinatorId: coord, staleMs: 60_000, log });
    expect(r.result).toMatchObject({ executions: { succeeded: 18 }, complete: true });
    expect(await ids(`SELECT id FROM executions WHERE task = 'bulk'`)).toEqual([fresh]);
  });
});

describe('retention under a held snapshot', () => {
  it('each batch goes on from the last one\'s finished_at, so it does not walk the index entries of the rows the run already deleted', async () => {
    await applyTasks(db.pool, [{ name: 'held', partitions: 1 }]);
    await db.pool.query(
      `INSERT INTO executions (task, partition, state, payload, attempts, finished_at)
       SELECT 'held', 0, 'succeeded', '{}', 1, now() - interval '50 hours' - make_interval(secs => ((i * 7919) % 6000) / 1000.0)
       FROM generate_series(1, 6000) i`, // finish order ≠ insert order, as in a live queue: index neighbours on other heap pages
    );
    const holder = new pg.Client({ connectionString: db.url });
    await holder.connect();
    try {
      await holder.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
      await holder.query('SELECT count(*) FROM executions');
      let from: Date | null = null;
      let gone = 0;
      while (gone < 5500) {
        const b = await deleteFinishedExecutionsBatch(db.pool, 'held', 'succeeded', 3_600_000, 3_600_000, 500, from);
        expect(b.n).toBe(500);
        expect(b.last).not.toBeNull();
        if (from) expect(b.last!.getTime()).toBeGreaterThanOrEqual(from.getTime());
        from = b.last;
        gone += b.n;
      }
      // the next batch, from the cursor and from the start (each rolled back)
      // the next batch's walk of executions_finished_idx, from the cursor and from the start
      // (each rolled back): the index scan node's buffers
      const walk = async (start: Date | string) => {
        const c = await db.pool.connect();
        try {
          await c.query('BEGIN');
          const plan = await c.query(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${SUCCEEDED_OR_CANCELED}`, ['held', 'succeeded', 3_600_000, 3_600_000, 500, start]);
          type Node = { 'Index Name'?: string; 'Actual Rows': number; 'Shared Hit Blocks': number; 'Shared Read Blocks': number; Plans?: Node[] };
          const find = (n: Node): Node | undefined => (n['Index Name'] === 'executions_finished_idx' ? n : n.Plans?.map(find).find(Boolean));
          const scan = find(plan.rows[0]['QUERY PLAN'][0].Plan)!;
          return { rows: scan['Actual Rows'], buffers: scan['Shared Hit Blocks'] + scan['Shared Read Blocks'] };
        } finally {
          await c.query('ROLLBACK');
          c.release();
        }
      };
      const onwards = await walk(from!);
      const fromStart = await walk('-infinity');
      expect(onwards.rows).toBe(500);
      expect(fromStart.rows).toBe(500);
      // ~one heap page per row it deletes; from the start also the 5,500 deleted rows'
      // entries and heap tuples again (measured: 505 against 6,020 buffers)
      expect(onwards.buffers, JSON.stringify({ onwards, fromStart })).toBeLessThan(1000);
      expect(fromStart.buffers, JSON.stringify({ onwards, fromStart })).toBeGreaterThan(5 * onwards.buffers);
      // the rest goes
      expect((await deleteFinishedExecutionsBatch(db.pool, 'held', 'succeeded', 3_600_000, 3_600_000, 500, from)).n).toBe(500);
    } finally {
      await holder.query('ROLLBACK');
      await holder.end();
    }
  });
});

describe('retention of history', () => {
  it('partition_owner_log, reconcile_log and task_breaker_events (coordinator), dlq_events, resolved alerts with their events, finished webhook deliveries and replay jobs, audit (control plane)', async () => {
    const old = `now() - interval '20 days'`;
    await db.pool.query(`INSERT INTO partition_owner_log (task, partition, event, at) VALUES ('rt', 99, 'take', ${old}), ('rt', 99, 'release', now())`);
    await db.pool.query(`INSERT INTO reconcile_log (task, counter, recorded, actual, at) VALUES ('rt', 'a', 1, 0, ${old}), ('rt', 'b', 1, 0, now())`);
    await db.pool.query(`INSERT INTO task_breaker_events (task, from_state, to_state, reason, at) VALUES ('rt', 'closed', 'open', 'old', ${old}), ('rt', 'open', 'half-open', 'fresh', now())`);
    await db.pool.query(`INSERT INTO dlq_events (task, kind, removed, limit_value, at) VALUES ('rt', 'retention', 1, 14, ${old}), ('rt', 'retention', 2, 14, now())`);
    const alert = (status: string, resolvedAt: string | null) =>
      db.pool.query<{ id: string }>(
        `INSERT INTO alerts (key, task, rule, severity, status, since, last_observed_at, resolved_at)
         VALUES (gen_random_uuid()::text, 'rt', 'depth', 'warning', $1, now() - interval '30 days', now(), ${resolvedAt ?? 'NULL'}) RETURNING id`,
        [status],
      );
    const oldResolved = Number((await alert('resolved', old)).rows[0]!.id);
    const freshResolved = Number((await alert('resolved', 'now()')).rows[0]!.id);
    const oldFiring = Number((await alert('firing', null)).rows[0]!.id);
    await db.pool.query(`INSERT INTO alert_events (alert_id, type, at) VALUES ($1, 'fired', ${old}), ($2, 'fired', ${old}), ($3, 'fired', ${old})`, [oldResolved, freshResolved, oldFiring]);
    const target = await db.pool.query<{ id: string }>(`INSERT INTO webhook_targets (name, url, created_by) VALUES ('t', 'http://127.0.0.1:9/x', 'test') RETURNING id`);
    await db.pool.query(
      `INSERT INTO webhook_deliveries (target_id, event, payload, status, created_at) VALUES
         ($1, 'old-delivered', '{}', 'delivered', ${old}), ($1, 'old-failed', '{}', 'failed', ${old}),
         ($1, 'old-pending', '{}', 'pending', ${old}), ($1, 'fresh-delivered', '{}', 'delivered', now())`,
      [target.rows[0]!.id],
    );
    await db.pool.query(
      `INSERT INTO dlq_replay_jobs (state, scope, filter, created_by_type, created_by_label, finished_at) VALUES
         ('completed', 'ids', '{}', 'cli', 'old', ${old}), ('completed', 'ids', '{}', 'cli', 'fresh', now()), ('paused', 'ids', '{}', 'cli', 'open', NULL)`,
    );
    await db.pool.query(
      `INSERT INTO audit_log (actor_type, actor_label, action, target_type, at) VALUES
         ('cli', 'a', 'ancient', 't', now() - interval '500 days'), ('cli', 'a', 'recent', 't', ${old})`,
    );

    const c = await runServiceOnce(db.pool, retention(settings, 7 * 24 * 3_600_000), { intervalMs: 0 }, { coordinatorId: coord, staleMs: 60_000, log });
    expect(c.result).toMatchObject({ partitionOwnerLog: 1, reconcileLog: 1, breakerEvents: 1 });
    const p = await runServiceOnce(db.pool, pruneHistory(() => ({ ...settings, batch: 1 })), { intervalMs: 0, namespace: 'cp:' }, { log });
    expect(p.error).toBeUndefined();
    expect(p.result).toEqual({ deleted: { dlq_events: 1, alerts: 1, webhook_deliveries: 2, dlq_replay_jobs: 1, audit_log: 1 }, complete: true });

    const q = async (sql: string) => (await db.pool.query(sql)).rows.map((r) => Object.values(r)[0]);
    expect(await q(`SELECT event FROM partition_owner_log WHERE task = 'rt' AND partition = 99`)).toEqual(['release']);
    expect(await q(`SELECT counter FROM reconcile_log WHERE task = 'rt'`)).toEqual(['b']);
    expect(await q(`SELECT reason FROM task_breaker_events WHERE task = 'rt'`)).toEqual(['fresh']);
    expect(await q(`SELECT removed FROM dlq_events`)).toEqual([2]);
    expect((await q(`SELECT id FROM alerts ORDER BY id`)).map(Number)).toEqual([freshResolved, oldFiring]);
    expect((await q(`SELECT alert_id FROM alert_events ORDER BY alert_id`)).map(Number)).toEqual([freshResolved, oldFiring]);
    expect(await q(`SELECT event FROM webhook_deliveries ORDER BY event`)).toEqual(['fresh-delivered', 'old-pending']);
    expect(await q(`SELECT created_by_label FROM dlq_replay_jobs ORDER BY created_by_label`)).toEqual(['fresh', 'open']);
    expect(await q(`SELECT action FROM audit_log WHERE action IN ('ancient', 'recent')`)).toEqual(['recent']);
  });
});
