// Weighted fair share (issue #19, `order: 'fair'`; the rule: server/core/fair-share.ts)
// with real coordinator processes: two `sluice coordinator` processes run the recording
// handler, and the shares are read from what they recorded (test_runs).
//
// "Fair", precisely: over a window during which every tenant has work waiting — from a
// warm-up (1 s) after both coordinators are up to the moment the first tenant to run dry
// had a task's concurrency of executions left (it started its last `concurrency` then;
// until then at least that much of it was waiting) — the task's capacity split among those
// tenants by weight (equal weights: equally). A tenant's share is its runs finished in the window ÷ all runs
// finished in the window; each must be within 5% (relative) of its fair share.
// Unequal weights are proven at the claim (engine-fair-share-claim.test.ts: 2:4:8 of 14 on
// every refill); with two processes they are not met (docs/operators.md § Claim order,
// "Known limits": the measured shares).
import { describe, it, expect } from 'vitest';
import { applyTasks } from '../support/engine-fixtures';
import { coordinatorTestContext, maxOverlapPerKey, waitFor } from '../support/coordinator-harness';
import { enqueue } from '../../server/services/enqueue';
import { fairShares } from '../../server/core/fair-share';
import { lcg } from '../../bench/support/engine-workloads';

const ctx = coordinatorTestContext();

const WARMUP_MS = 1000;

/** Each tenant's share of the runs finished while every tenant still had work waiting. */
async function sharesWhileAllWait(task: string, since: number, concurrency: number): Promise<{ shares: Map<string, number>; total: number; windowMs: number }> {
  const r = await ctx.db.pool.query<{ t: string; s: number; f: number }>(
    `SELECT groups ->> 'tenant' AS t, started_ms AS s, finished_ms AS f FROM test_runs WHERE task = $1`,
    [task],
  );
  const starts = new Map<string, number[]>();
  for (const x of r.rows) starts.set(x.t, [...(starts.get(x.t) ?? []), Number(x.s)]);
  const from = since + WARMUP_MS;
  const to = Math.min(...[...starts.values()].map((s) => s.sort((a, b) => a - b)[Math.max(0, s.length - concurrency - 1)]!));
  const inWindow = r.rows.filter((x) => Number(x.f) >= from && Number(x.f) <= to);
  const counts = new Map<string, number>();
  for (const x of inWindow) counts.set(x.t, (counts.get(x.t) ?? 0) + 1);
  return { shares: new Map([...counts].map(([t, n]) => [t, n / inWindow.length])), total: inWindow.length, windowMs: to - from };
}

/** Runs a backlog through two coordinators until one tenant has nothing left queued, then stops them. */
async function runUntilOneTenantIsDry(task: string, tenants: string[], slots: number): Promise<number> {
  const a = await ctx.h.start({ name: `${task}-a`, slots, tasks: [task] });
  const b = await ctx.h.start({ name: `${task}-b`, slots, tasks: [task] });
  const bothUp = Date.now();
  await waitFor(
    'a tenant to run dry',
    async () => {
      const q = await ctx.db.pool.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM unnest($2::text[]) AS t(k)
         WHERE NOT EXISTS (SELECT 1 FROM executions e WHERE e.task = $1 AND e.state = 'queued' AND e.groups ->> 'tenant' = t.k)`,
        [task, tenants],
      );
      return q.rows[0]!.n > 0;
    },
    90_000,
    200,
  );
  a.kill('SIGTERM');
  b.kill('SIGTERM');
  await Promise.all([a.exited, b.exited]);
  return bothUp;
}

describe('weighted fair share with real coordinators', () => {
  it('equal weights, one tenant sending 90% of the work: every tenant gets the capacity split equally among those waiting (±5 points)', async () => {
    const concurrency = 12;
    await applyTasks(ctx.db.pool, [
      { name: 'rec', partitions: 4, concurrency, order: 'fair', groups: [{ name: 'tenant', limit: 100, keyPath: 't' }], timeoutMs: 10_000 },
    ]);
    // arrivals interleaved, 90% on t0 (oldest-first would hand t0 ~90% of the capacity)
    const rnd = lcg(7);
    const tenants = ['t0', 't1', 't2', 't3'];
    const inputs = Array.from({ length: 16_000 }, () => ({ payload: { t: rnd() < 0.9 ? 't0' : `t${1 + Math.floor(rnd() * 3)}`, sleepMs: 20 } }));
    for (let i = 0; i < inputs.length; i += 4000) await enqueue(ctx.db.pool, 'rec', inputs.slice(i, i + 4000));
    const since = await runUntilOneTenantIsDry('rec', tenants, 10);

    const { shares, total, windowMs } = await sharesWhileAllWait('rec', since, concurrency);
    const fair = fairShares(tenants.map((key) => ({ key, weight: 1 })));
    const report = JSON.stringify({ total, windowMs, shares: Object.fromEntries(shares) });
    expect(total, report).toBeGreaterThan(500);
    for (const t of tenants) expect(Math.abs(shares.get(t)! - fair.get(t)!), `${t}: ${report}`).toBeLessThanOrEqual(0.05);
    // and every limit stayed exact
    expect((await maxOverlapPerKey(ctx.db.pool, 'rec')).get('*')).toBeLessThanOrEqual(concurrency);
  }, 150_000);

  it('weights 1:2:4: the shares follow the weights (±5 points)', async () => {
    // Failed before the claim read each below-share key through executions_fair_idx and held
    // back the flood's rows while another member's partitions had a below-share key's
    // (2026-11-24: 25.8/29.4/44.8 % and 23.8/30.3/45.9 % against 14.3/28.6/57.1 %).
    const concurrency = 14;
    await applyTasks(ctx.db.pool, [
      { name: 'rec-b', partitions: 4, concurrency, order: 'fair', groups: [{ name: 'tenant', limit: 100, keyPath: 't', weights: { a: 1, b: 2, c: 4 } }], timeoutMs: 10_000 },
    ]);
    const tenants = ['a', 'b', 'c'];
    // equal arrivals: every tenant waits for the whole window
    const inputs = Array.from({ length: 3600 }, (_, i) => ({ payload: { t: tenants[i % 3]!, sleepMs: 20 } }));
    await enqueue(ctx.db.pool, 'rec-b', inputs);
    const since = await runUntilOneTenantIsDry('rec-b', tenants, 10);
    const { shares, total, windowMs } = await sharesWhileAllWait('rec-b', since, concurrency);
    const fair = fairShares([{ key: 'a', weight: 1 }, { key: 'b', weight: 2 }, { key: 'c', weight: 4 }]);
    const report = JSON.stringify({ total, windowMs, shares: Object.fromEntries(shares) });
    console.log('weights 1:2:4 with two coordinators:', report);
    expect(total, report).toBeGreaterThan(300);
    for (const t of tenants) expect(Math.abs(shares.get(t)! - fair.get(t)!), `${t}: ${report}`).toBeLessThanOrEqual(0.05);
    expect((await maxOverlapPerKey(ctx.db.pool, 'rec-b')).get('*')).toBeLessThanOrEqual(concurrency);
  }, 150_000);
});
