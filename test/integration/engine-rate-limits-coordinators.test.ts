// Rate limits (issue #19) across several real coordinator processes: 3 `sluice
// coordinator` processes work one backlog whose tenants are rate-limited per key (one with
// an override); the record handler writes each run's start time. Checked afterwards: no key
// ever started more than limit + burst in any window of the interval (handler start times,
// with a slack for the time between the claim and the handler's first line; the claim's own
// started_at, the instant the claim read the rates, to the millisecond), each key's burst ran at once, the override's key ran at
// its own higher rate, and the long-run rate per key is its limit.
import { describe, it, expect } from 'vitest';
import { coordinatorTestContext, waitFor } from '../support/coordinator-harness';
import { applyTasks } from '../support/engine-fixtures';
import { enqueue } from '../../server/services/enqueue';
import { maxInAnyWindow } from '../../server/core/rate-limit';

const ctx = coordinatorTestContext();
const PER = 1000;
const RATE = { limit: 5, per: PER, burst: 2 };
const ACME = { limit: 12, burst: 3 };
const RUN_MS = 4000;
/** Handler start − claim: the least slack for the handler-start windows (the measured spread when larger). */
const HANDLER_SLACK_MS = 150;

describe('rate limits across coordinators', () => {
  it('never above limit + burst per key in any window; burst at once; the override wins; the steady rate is the limit', async () => {
    await applyTasks(ctx.db.pool, [
      {
        name: 'rec',
        partitions: 6,
        concurrency: 60,
        groups: [{ name: 'tenant', limit: 60, keyPath: 'tenant', rate: { ...RATE, overrides: { acme: ACME } } }],
        backpressure: { maxDepth: 100_000 },
      },
    ]);
    const keys = ['acme', 't1', 't2', 't3'];
    // more than RUN_MS can drain, interleaved so every key is at the head
    const inputs = Array.from({ length: 100 }, (_, i) => keys.map((tenant) => ({ payload: { tenant, i, sleepMs: 2 } }))).flat();
    await enqueue(ctx.db.pool, 'rec', inputs);
    await Promise.all([0, 1, 2].map((i) => ctx.h.start({ name: `r${i}`, slots: 20, tasks: ['rec'] })));
    const t0 = Date.now();
    await waitFor('the run', async () => Date.now() - t0 > RUN_MS, RUN_MS + 5000);
    await ctx.h.stopAll();

    const runs = await ctx.db.pool.query<{ tenant: string; started_ms: number; claimed_ms: number; pid: number }>(
      `SELECT r.groups ->> 'tenant' AS tenant, r.started_ms, extract(epoch FROM e.started_at) * 1000 AS claimed_ms, r.pid
       FROM test_runs r JOIN executions e ON e.id = r.execution_id WHERE r.task = 'rec' ORDER BY r.started_ms`,
    );
    expect(new Set(runs.rows.map((r) => r.pid)).size).toBeGreaterThanOrEqual(2); // work really spread over processes
    const summary: Record<string, unknown> = {};
    for (const key of keys) {
      const spec = key === 'acme' ? { ...RATE, ...ACME } : RATE;
      const mine = runs.rows.filter((r) => r.tenant === key);
      const starts = mine.map((r) => Number(r.started_ms)).sort((a, b) => a - b);
      const claims = mine.map((r) => Number(r.claimed_ms)).sort((a, b) => a - b);
      const span = claims[claims.length - 1]! - claims[0]!;
      // Handler starts lag their claims by a delay that varies with the box's load; in any
      // window shorter than the interval by that variation they cannot outnumber the claims'
      // limit (CI at load 4–6 saw 8 starts of a 5 + 2 key within 850 ms while its claims kept
      // to 7: a delay spread past the fixed 150 ms this used). The slack is the measured
      // spread, at least 150 ms; the claims' own window is the exact check.
      const delays = mine.map((r) => Number(r.started_ms) - Number(r.claimed_ms));
      const slack = Math.min(PER - 1, Math.max(HANDLER_SLACK_MS, Math.ceil(Math.max(...delays) - Math.min(...delays))));
      summary[key] = { n: mine.length, maxHandlerWindow: maxInAnyWindow(starts, PER - slack), slackMs: slack, maxClaimWindow: maxInAnyWindow(claims, PER - 1), spanMs: Math.round(span) };
      expect(maxInAnyWindow(claims, PER - 1), key).toBeLessThanOrEqual(spec.limit + spec.burst);
      expect(maxInAnyWindow(starts, PER - slack), key).toBeLessThanOrEqual(spec.limit + spec.burst);
      // the burst: burst + 1 claimed together at the start (one claim, same instant)
      expect(claims[spec.burst]! - claims[0]!, key).toBeLessThan(50);
      // the steady rate: after the burst, one per T; the last claim is (n − burst − 1) × T after the first
      const steady = (mine.length - spec.burst - 1) / (span / PER);
      expect(steady, key).toBeLessThanOrEqual(spec.limit * 1.02);
      expect(steady, key).toBeGreaterThan(spec.limit * 0.8);
    }
    console.log('rate limits across coordinators:', JSON.stringify(summary));
    // the override wins: acme ran at its own rate, well above the others'
    const n = (k: string) => runs.rows.filter((r) => r.tenant === k).length;
    expect(n('acme')).toBeGreaterThan(2 * n('t1'));
  }, 60_000);

  it('burst 0 at 40/s with real coordinators: never above the limit in any window, and it keeps running', async () => {
    // Before the claim loop waited rateWakeMs after a claim the rate cut short, it slept its
    // poll interval (50 ms by default): with no burst to absorb a late claim, the key started
    // about once per poll, ~20/s for a 40/s limit (≈ 36/s with the wake on an idle machine).
    // The wait itself is asserted in claim-loop-rate-wake.test.ts: a rate bound here failed
    // under load: 18.6/s at load 7–11 in CI, while without the wake a 500 ms poll still gave
    // 7.9/s at load 10, a slow finish's round trip waking the loop in its place.
    await applyTasks(ctx.db.pool, [
      { name: 'rec-b', partitions: 2, concurrency: 10, groups: [{ name: 'tenant', limit: 10, keyPath: 'tenant', rate: { limit: 40, per: PER, burst: 0 } }], backpressure: { maxDepth: 100_000 } },
    ]);
    await enqueue(ctx.db.pool, 'rec-b', Array.from({ length: 400 }, (_, i) => ({ payload: { tenant: 'solo', i, sleepMs: 1 } })));
    await ctx.h.start({ name: 'solo', slots: 10, tasks: ['rec-b'], env: { SLUICE_POLL_MS: '50' } });
    const t0 = Date.now();
    await waitFor('the run', async () => Date.now() - t0 > 3000, 8000);
    await ctx.h.stopAll();
    const r = await ctx.db.pool.query<{ ms: number }>(
      `SELECT extract(epoch FROM started_at) * 1000 AS ms FROM executions WHERE task = 'rec-b' AND started_at IS NOT NULL ORDER BY started_at`,
    );
    const claims = r.rows.map((x) => Number(x.ms));
    const steady = (claims.length - 1) / ((claims[claims.length - 1]! - claims[0]!) / PER);
    console.log('burst 0 at 40/s:', JSON.stringify({ n: claims.length, steady }));
    expect(maxInAnyWindow(claims, PER - 1)).toBeLessThanOrEqual(40);
    expect(steady).toBeLessThanOrEqual(40 * 1.02);
    expect(claims.length).toBeGreaterThan(10);
  }, 60_000);
});
