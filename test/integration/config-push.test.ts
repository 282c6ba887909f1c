// Config push semantics against a real database, through the coordinator's own
// ConfigListener (LISTEN + poll + reload on reconnect): versions apply in increasing
// order only, whatever order notifications arrive in; a missed notification is caught
// by the poll; a killed LISTEN connection (pg_terminate_backend) reconnects and reloads;
// and a partition-count change keeps stream order and loses nothing.
import { describe, it, expect, beforeAll, afterEach } from 'vitest';
import { testDatabase, type TestDatabase } from './db';
import { applyTasks, fakeCoordinator, sleep } from '../support/engine-fixtures';
import { ConfigListener } from '../../server/coordinator/config-listener';
import { registerCoordinator } from '../../server/db/coordinator-membership';
import { insertConfigVersion } from '../../server/db/config-versions';
import { withTransaction } from '../../server/db/pool';
import { applyConfig, currentConfig } from '../../server/services/config-versions';
import { saveTask } from '../../server/services/task-config';
import { enqueue } from '../../server/services/enqueue';
import { claimExecutions } from '../../server/db/claim-executions';
import { finishExecutions } from '../../server/db/finish-executions';
import { SYSTEM_ACTOR } from '../../server/db/audit';
import type { SluiceConfig } from '../../server/core/task-definition';

let db: TestDatabase;
const listeners: ConfigListener[] = [];

beforeAll(async () => {
  db = await testDatabase();
});
afterEach(async () => {
  await Promise.all(listeners.splice(0).map((l) => l.stop()));
});

async function startListener(opts: { pollMs: number; applyDelayMs?: number }) {
  const id = await registerCoordinator(db.pool, { name: `push-${listeners.length}`, host: 'test', pid: process.pid, tasks: [], slots: 1, metricsPort: null });
  const applied: number[] = [];
  const logs: string[] = [];
  const l = new ConfigListener({
    pool: db.pool,
    databaseUrl: db.url,
    coordinatorId: id,
    pollMs: opts.pollMs,
    apply: async (version: number, _config: SluiceConfig) => {
      if (opts.applyDelayMs) await sleep(opts.applyDelayMs);
      applied.push(version);
    },
    log: (m) => logs.push(m),
  });
  listeners.push(l);
  await l.start();
  return { id, applied, logs, listener: l };
}

const appliedVersionOf = async (id: string) =>
  (await db.pool.query<{ v: number | null }>('SELECT applied_version AS v FROM coordinators WHERE id = $1', [id])).rows[0]!.v;

async function push(concurrency: number): Promise<number> {
  const cur = await currentConfig(db.pool);
  const r = await applyConfig(db.pool, SYSTEM_ACTOR, { tasks: [{ name: 'pushed', concurrency }] }, { message: `c=${concurrency}`, basedOn: cur.version });
  return r.version;
}

const notify = (payload: string) => db.pool.query(`SELECT pg_notify('sluice_config', $1)`, [payload]);

async function listenerBackends(): Promise<number[]> {
  const r = await db.pool.query<{ pid: number }>(
    `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'sluice-config-listener'`,
  );
  return r.rows.map((x) => x.pid);
}

describe('push semantics', () => {
  it('applies versions in increasing order only; stale, replayed and future notifications never take it back', async () => {
    await push(1);
    // Slow applies, so notifications pile up while one is running.
    const c = await startListener({ pollMs: 600_000, applyDelayMs: 40 });
    expect(c.applied).toEqual([1]);

    // A burst of versions from several connections at once.
    const burst = await Promise.allSettled([2, 3, 4, 5, 6].map((n) => push(n)));
    // Concurrent applies refuse one another on basedOn; apply the refused ones again in turn.
    for (const r of burst) if (r.status === 'rejected') await push(100 + burst.indexOf(r));
    const latest = (await currentConfig(db.pool)).version!;
    await expect.poll(() => appliedVersionOf(c.id), { timeout: 5000 }).toBe(latest);

    // Out-of-order and replayed notifications after the fact.
    for (const p of ['2', '1', String(latest), String(latest - 1), '999999', 'garbage']) await notify(p);
    await sleep(300);

    expect(c.applied.at(-1)).toBe(latest);
    for (let i = 1; i < c.applied.length; i++) expect(c.applied[i]!).toBeGreaterThan(c.applied[i - 1]!);
    expect(await appliedVersionOf(c.id)).toBe(latest);
    const row = await db.pool.query('SELECT apply_error, apply_ms, applied_at IS NOT NULL AS has_at FROM coordinators WHERE id = $1', [c.id]);
    expect(row.rows[0]).toMatchObject({ apply_error: null, has_at: true });
    expect(row.rows[0].apply_ms).toBeGreaterThanOrEqual(40);
  });

  it('a notification that never arrives is caught up by the poll', async () => {
    const c = await startListener({ pollMs: 200 });
    const before = (await currentConfig(db.pool)).version!;
    // A version stored without NOTIFY: only the poll can find it.
    const silent = await withTransaction(db.pool, (tx) =>
      insertConfigVersion(tx, { config: { tasks: [{ name: 'pushed', concurrency: 77 }] }, author: 'test', authorType: 'system', authorId: null, message: 'silent', basedOn: before }),
    );
    const t0 = Date.now();
    await expect.poll(() => appliedVersionOf(c.id), { timeout: 3000, interval: 20 }).toBe(silent.version);
    expect(Date.now() - t0).toBeLessThan(1500);
    await expect.poll(() => c.logs.some((l) => l.includes(`applied config version ${silent.version} (poll)`)), { timeout: 1000, interval: 10 }).toBe(true);
  });

  it('after its LISTEN connection is killed it reconnects, reloads and catches up (no poll involved)', async () => {
    const c = await startListener({ pollMs: 600_000 });
    const [pid] = await listenerBackends();
    expect(pid).toBeDefined();
    const killed = await db.pool.query<{ ok: boolean }>('SELECT pg_terminate_backend($1) AS ok', [pid]);
    expect(killed.rows[0]!.ok).toBe(true);
    // Pushed while the listener is gone: its NOTIFY reaches nobody.
    const v = await push(55);
    const t0 = Date.now();
    await expect.poll(() => appliedVersionOf(c.id), { timeout: 5000, interval: 20 }).toBe(v);
    expect(Date.now() - t0).toBeLessThan(3000);
    expect(c.logs.some((l) => l.includes('config listener disconnected'))).toBe(true);
    // Caught up by the reload after reconnecting — or, when the reconnect won the race with
    // the push (it can be back within milliseconds on an idle server), by that push's NOTIFY
    // on the new connection (a fresh-clone CI run, 2026-12-07); never by the poll.
    await expect
      .poll(() => c.logs.find((l) => l.includes(`applied config version ${v} (`)), { timeout: 1000, interval: 10 })
      .toMatch(new RegExp(`applied config version ${v} \\((reconnect|notify)\\)`));
    // And it listens again: the next push arrives by NOTIFY.
    const [again] = await listenerBackends();
    expect(again).toBeDefined();
    expect(again).not.toBe(pid);
    const v2 = await push(56);
    await expect.poll(() => appliedVersionOf(c.id), { timeout: 2000, interval: 10 }).toBe(v2);
    // The listener logs after its applied_version write commits, so the row can be seen
    // a moment before the line is written: wait for the line, do not race it.
    await expect.poll(() => c.logs.some((l) => l.includes(`applied config version ${v2} (notify)`)), { timeout: 1000, interval: 10 }).toBe(true);
  });
});

describe('partition-count changes', () => {
  it('shrinking and growing partitions keeps every stream in order and loses nothing', async () => {
    const streams = ['a', 'b', 'c', 'd', 'e'];
    await applyTasks(db.pool, [{ name: 'repart', partitions: 6, concurrency: 4, stream: { keyPath: 's' } }]);
    const enqueued: number[] = [];
    for (let i = 0; i < 12; i++) {
      const r = await enqueue(db.pool, 'repart', streams.map((s) => ({ payload: { s, i } })));
      enqueued.push(...r.executions.map((e) => e.id!));
    }
    const coord = await fakeCoordinator(db.pool, ['repart']);
    // Some are running when the partitions change.
    const running = await claimExecutions(db.pool, coord, 'repart', 3, 60_000);
    expect(running).toHaveLength(3);

    const done: { s: string; i: number }[] = [];
    let pending = running;
    const drainSome = async (rounds: number) => {
      for (let r = 0; r < rounds && pending.length > 0; r++) {
        const ok = await finishExecutions(db.pool, 'repart', pending.map((e) => ({ id: e.id, leaseToken: e.leaseToken, outcome: 'succeeded' as const })));
        expect(ok.size).toBe(pending.length);
        done.push(...pending.map((e) => e.payload as { s: string; i: number }));
        pending = await claimExecutions(db.pool, coord, 'repart', 4, 60_000);
      }
    };
    const resize = async (partitions: number) => {
      const cur = await currentConfig(db.pool);
      await saveTask(db.pool, SYSTEM_ACTOR, { mode: 'update', task: { name: 'repart', partitions, concurrency: 4, stream: { keyPath: 's' } }, basedOn: cur.version, message: `partitions ${partitions}` });
      await fakeCoordinatorOwnsAll(coord);
    };
    const fakeCoordinatorOwnsAll = async (id: string) => {
      const { syncOwnership } = await import('../../server/db/partition-ownership');
      const p = (await db.pool.query<{ partitions: number }>(`SELECT partitions FROM task_runtime WHERE task = 'repart'`)).rows[0]!.partitions;
      await syncOwnership(db.pool, id, Array.from({ length: p }, (_, i) => ({ task: 'repart', partition: i })), 60_000);
    };

    await resize(2);
    const rows = await db.pool.query(`SELECT count(*)::int AS n FROM executions WHERE task = 'repart' AND partition >= 2`);
    expect(rows.rows[0]).toEqual({ n: 0 });
    await drainSome(4);
    await resize(8);
    await drainSome(1000);

    expect(done).toHaveLength(enqueued.length);
    for (const s of streams) {
      expect(done.filter((d) => d.s === s).map((d) => d.i)).toEqual([...Array(12).keys()]);
    }
    const left = await db.pool.query(`SELECT state, count(*)::int AS n FROM executions WHERE task = 'repart' GROUP BY state`);
    expect(left.rows).toEqual([{ state: 'succeeded', n: enqueued.length }]);
    const stats = await db.pool.query(`SELECT count(*)::int AS parts, sum(depth)::int AS depth, sum(in_flight)::int AS in_flight FROM partition_stats WHERE task = 'repart'`);
    expect(stats.rows[0]).toEqual({ parts: 8, depth: 0, in_flight: 0 });
  });
});
