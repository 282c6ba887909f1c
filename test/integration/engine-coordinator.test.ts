// Real coordinator processes (bin/sluice.js coordinator) against a test database:
// group limits and stream order end to end, lease reclaim after kill -9, rebalance on
// join/leave with one owner per partition, config applied live (NOTIFY, poll fallback,
// never older), graceful drain on SIGTERM, and /metrics.
import { describe, it, expect } from 'vitest';
import { applyTasks, sleep } from '../support/engine-fixtures';
import { coordinatorTestContext, maxOverlapPerKey, streamViolations, waitFor } from '../support/coordinator-harness';
import { enqueue } from '../../server/services/enqueue';

const ctx = coordinatorTestContext();

const count = async (sql: string, params: unknown[] = []) => Number((await ctx.db.pool.query(sql, params)).rows[0].n);

describe('coordinator processes', () => {
  it('run groups and streams within limits and in order, reclaim leases after kill -9, rebalance, apply config live', async () => {
    const base = {
      name: 'rec',
      partitions: 6,
      concurrency: 8,
      timeoutMs: 5000,
      groups: [{ name: 'tenant', limit: 2, keyPath: 't' }],
      stream: { keyPath: 's' },
      retry: { maxAttempts: 5, baseDelayMs: 10, maxDelayMs: 50 },
    };
    await applyTasks(ctx.db.pool, [base, { name: 'rec-b', partitions: 2 }]);
    const a = await ctx.h.start({ name: 'a', slots: 6, metricsPort: 0 });
    const b = await ctx.h.start({ name: 'b', slots: 6 });

    // ownership: every partition owned, split between a and b
    const owners = async () =>
      (await ctx.db.pool.query(`SELECT o.partition, c.name FROM partition_owners o LEFT JOIN coordinators c ON c.id = o.owner WHERE o.task = 'rec' ORDER BY 1`)).rows as { partition: number; name: string | null }[];
    await waitFor('a and b to share rec', async () => {
      const o = await owners();
      return o.every((x) => x.name) && new Set(o.map((x) => x.name)).size === 2;
    });

    // 1. limits and order
    const inputs = [];
    for (let i = 0; i < 120; i++) inputs.push({ payload: { t: `t${i % 4}`, sleepMs: 15 } });
    for (let s = 0; s < 6; s++) for (let q = 0; q < 8; q++) inputs.push({ payload: { s: `s${s}`, seq: q, sleepMs: 5, failTimes: q === 3 ? 1 : 0 } });
    await enqueue(ctx.db.pool, 'rec', inputs);
    await waitFor('168 runs', async () => (await count(`SELECT count(DISTINCT execution_id) AS n FROM test_runs WHERE task = 'rec'`)) === 168, 40_000);
    const overlap = await maxOverlapPerKey(ctx.db.pool, 'rec');
    expect(overlap.get('*')).toBeLessThanOrEqual(8);
    for (let t = 0; t < 4; t++) expect(overlap.get(`tenant=t${t}`)).toBeLessThanOrEqual(2);
    expect(overlap.get('tenant=t0')).toBe(2);
    expect(await streamViolations(ctx.db.pool, 'rec')).toEqual([]);
    const retried = await count(`SELECT count(*) AS n FROM execution_attempts WHERE task = 'rec' AND error LIKE '%planned failure%'`);
    expect(retried).toBe(6);

    // 2. /metrics
    const port = Number((await ctx.db.pool.query(`SELECT metrics_port FROM coordinators WHERE name = 'a'`)).rows[0].metrics_port);
    const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    expect(text).toMatch(/# TYPE sluice_executions_claimed_total counter/);
    expect(text).toMatch(/sluice_claim_duration_seconds_bucket\{task="rec",le="\+Inf"\} \d+/);

    // 3. kill -9 mid-run: its leases are reclaimed by b, nothing is lost
    await enqueue(ctx.db.pool, 'rec', Array.from({ length: 12 }, (_, i) => ({ payload: { t: `k${i}`, sleepMs: 1500 } })));
    await waitFor('a to run some of them', async () => (await count(`SELECT count(*) AS n FROM executions e JOIN coordinators c ON c.id = e.lease_owner WHERE c.name = 'a' AND e.state = 'running'`)) > 0);
    a.kill('SIGKILL');
    await a.exited;
    await waitFor('all 180 succeeded', async () => (await count(`SELECT count(*) AS n FROM executions WHERE task = 'rec' AND state = 'succeeded'`)) === 180, 30_000);
    const lost = await count(`SELECT count(*) AS n FROM execution_attempts WHERE task = 'rec' AND error LIKE 'lease lost%'`);
    expect(lost).toBeGreaterThan(0);
    await waitFor('b to own every partition', async () => (await owners()).every((x) => x.name === 'b'));

    // 4. a new member joins: partitions move, never two owners (one column), log shows release before take
    const c = await ctx.h.start({ name: 'c', slots: 4 });
    await waitFor('b and c to share rec', async () => new Set((await owners()).map((x) => x.name)).size === 2);
    const log = await ctx.db.pool.query(`SELECT partition, event, owner FROM partition_owner_log WHERE task = 'rec' ORDER BY id`);
    const holder = new Map<number, string | null>();
    for (const row of log.rows) {
      if (row.event === 'take') {
        // a take only happens on a free partition, or one whose owner went stale (a)
        const prev = holder.get(row.partition);
        if (prev) {
          const stale = await count(`SELECT count(*) AS n FROM coordinators WHERE id = $1 AND name = 'a'`, [prev]);
          expect(stale).toBe(1);
        }
        holder.set(row.partition, row.owner);
      } else if (holder.get(row.partition) === row.owner) {
        holder.set(row.partition, null);
      }
    }

    // 5. config live: NOTIFY path, then the poll fallback (a version stored without NOTIFY), never older
    const applied = async () => (await ctx.db.pool.query(`SELECT name, applied_version FROM coordinators WHERE stopped_at IS NULL AND name IN ('b','c') ORDER BY name`)).rows;
    const v2 = (await applyTasks(ctx.db.pool, [{ ...base, concurrency: 3 }, { name: 'rec-b', partitions: 2 }])).version;
    await waitFor('notify applied', async () => (await applied()).every((r: { applied_version: number }) => r.applied_version === v2), 5000, 20);
    await ctx.db.pool.query(`INSERT INTO config_versions (version, config, author, message) SELECT version + 1, config, 'test', 'no notify' FROM config_versions WHERE version = $1`, [v2]);
    await waitFor('poll applied', async () => (await applied()).every((r: { applied_version: number }) => r.applied_version === v2 + 1), 5000, 50);
    await ctx.db.pool.query(`SELECT pg_notify('sluice_config', '1')`);
    await sleep(300);
    expect((await applied()).map((r: { applied_version: number }) => r.applied_version)).toEqual([v2 + 1, v2 + 1]);
    const rows = await ctx.db.pool.query(`SELECT apply_ms, apply_error, applied_at FROM coordinators WHERE name = 'b'`);
    expect(rows.rows[0].apply_error).toBeNull();
    expect(rows.rows[0].applied_at).not.toBeNull();

    // 6. SIGTERM drains: in-flight work finishes, partitions are released, the row says stopped
    await enqueue(ctx.db.pool, 'rec', Array.from({ length: 4 }, (_, i) => ({ payload: { t: `d${i}`, sleepMs: 400 } })));
    await waitFor('c or b running them', async () => (await count(`SELECT count(*) AS n FROM executions WHERE task = 'rec' AND state = 'running'`)) > 0);
    c.kill('SIGTERM');
    expect(await c.exited).toBe(0);
    const cRow = await ctx.db.pool.query(`SELECT stopped_at FROM coordinators WHERE name = 'c'`);
    expect(cRow.rows[0].stopped_at).not.toBeNull();
    await waitFor('all 184 succeeded', async () => (await count(`SELECT count(*) AS n FROM executions WHERE task = 'rec' AND state = 'succeeded'`)) === 184, 15_000);
    await waitFor('b owns every partition again', async () => (await owners()).every((x) => x.name === 'b'));
    void b;
  }, 120_000);
});
