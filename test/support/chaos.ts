// The chaos run (test/integration/engine-chaos*.test.ts): 3 coordinator processes work
// through `total` executions with tenant limits and ordered streams while one of them is
// killed -9 at 15/35/55/75% progress and replaced. Afterwards: nothing lost, nothing
// completed twice without a failed-attempt record for the earlier run, no tenant/task limit
// exceeded, no stream out of order or overlapping, counters back to zero. Beside it, a
// rate-limited task (issue #19: 3 tenants at 10/s, burst 2) runs through the same kills: all
// of it finishes and no tenant starts more than limit + burst in any second.
import { expect } from 'vitest';
import { applyTasks, foldAllSlotDeltas } from './engine-fixtures';
import { maxOverlapPerKey, streamViolations, type CoordinatorHarness, type CoordinatorProcess } from './coordinator-harness';
import type { TestDatabase } from '../integration/db';
import { enqueue, type EnqueueInput } from '../../server/services/enqueue';
import { maxInAnyWindow } from '../../server/core/rate-limit';

const STREAMS = 400;
const PER_STREAM = 10;
const TENANTS = 12;
const TENANT_LIMIT = 6;
const CONCURRENCY = 48;
/** The rate-limited task: RATE_TENANTS × RATE_PER executions at RATE per tenant (~5 s of work). */
const RATE = { limit: 10, per: 1000, burst: 2 };
const RATE_TENANTS = 3;
const RATE_PER = 50;

const env = { SLUICE_HEARTBEAT_MS: '250', SLUICE_STALE_MS: '2500', SLUICE_LEASE_GRACE_MS: '2000', SLUICE_POLL_MS: '20' };

export interface ChaosOptions {
  total: number;
  /** Extra environment for the coordinators (e.g. DATABASE_URL through PgBouncer). */
  env?: Record<string, string>;
  label?: string;
}

export async function runChaos(ctx: { readonly db: TestDatabase; readonly h: CoordinatorHarness }, o: ChaosOptions): Promise<void> {
  await applyTasks(ctx.db.pool, [
    {
      name: 'chaos',
      partitions: 8,
      concurrency: CONCURRENCY,
      timeoutMs: 10_000,
      groups: [{ name: 'tenant', limit: TENANT_LIMIT, keyPath: 't' }],
      stream: { keyPath: 's' },
      retry: { maxAttempts: 25, baseDelayMs: 5, maxDelayMs: 50, jitter: 0.5 },
      backpressure: { maxDepth: 100_000 },
    },
    {
      name: 'chaos-rate',
      partitions: 4,
      concurrency: 20,
      timeoutMs: 10_000,
      groups: [{ name: 'tenant', limit: 20, keyPath: 't', rate: RATE }],
      retry: { maxAttempts: 25, baseDelayMs: 5, maxDelayMs: 50, jitter: 0.5 },
    },
  ]);
  await enqueue(ctx.db.pool, 'chaos-rate', Array.from({ length: RATE_PER * RATE_TENANTS }, (_, i) => ({ payload: { t: `r${i % RATE_TENANTS}`, sleepMs: 1 } })));
  const inputs: EnqueueInput[] = [];
  for (let q = 0; q < PER_STREAM; q++) for (let s = 0; s < STREAMS; s++) inputs.push({ payload: { t: `t${s % TENANTS}`, s: `s${s}`, seq: q, sleepMs: 1 } });
  for (let i = inputs.length; i < o.total; i++) inputs.push({ payload: { t: `t${i % TENANTS}`, sleepMs: i % 50 === 0 ? 30 : 1 } });
  for (let i = 0; i < inputs.length; i += 2000) await enqueue(ctx.db.pool, 'chaos', inputs.slice(i, i + 2000));

  let n = 0;
  const live: CoordinatorProcess[] = [];
  for (let i = 0; i < 3; i++) live.push(await ctx.h.start({ name: `m${n++}`, slots: 24, env: { ...env, ...o.env } }));
  // Kill phase up to 60 s, then up to 40 s for the survivors to finish (the machine may be
  // shared; on an idle one the whole run takes well under a minute).
  const deadline = Date.now() + 60_000;
  let kills = 0;
  const succeeded = async () => Number((await ctx.db.pool.query(`SELECT count(*) AS n FROM executions WHERE task = 'chaos' AND state = 'succeeded'`)).rows[0].n);
  let done = 0;
  // Kills at fixed points of progress (15, 35, 55, 75% succeeded), not on a timer: the
  // engine burns 20k down in ~10 s on an idle machine, where a 1.5 s timer saw the run
  // finish after its second kill; at these points a kill always meets work in flight.
  const killAt = [0.15, 0.35, 0.55, 0.75].map((f) => Math.floor(f * o.total));
  while (Date.now() < deadline && kills < killAt.length) {
    await new Promise((r) => setTimeout(r, 100));
    done = await succeeded();
    if (done === o.total) break;
    if (done < killAt[kills]!) continue;
    const victim = live.splice(Math.floor(Math.random() * live.length), 1)[0]!;
    victim.kill('SIGKILL');
    await victim.exited;
    kills++;
    live.push(await ctx.h.start({ name: `m${n++}`, slots: 24, env: { ...env, ...o.env } }));
  }
  const rateDone = async () => Number((await ctx.db.pool.query(`SELECT count(*) AS n FROM executions WHERE task = 'chaos-rate' AND state = 'succeeded'`)).rows[0].n);
  while (Date.now() < deadline + 40_000 && ((done = await succeeded()) < o.total || (await rateDone()) < RATE_PER * RATE_TENANTS)) await new Promise((r) => setTimeout(r, 500));
  expect(kills).toBeGreaterThanOrEqual(3);
  expect(done).toBe(o.total);

  const states = await ctx.db.pool.query(`SELECT state, count(*)::int AS n FROM executions WHERE task = 'chaos' GROUP BY state`);
  expect(states.rows).toEqual([{ state: 'succeeded', n: o.total }]);

  // Every execution ran; an execution that ran more than once has a failed-attempt
  // record (lease lost) for each earlier attempt.
  const unexplained = await ctx.db.pool.query(
    `SELECT r.execution_id, r.attempt FROM test_runs r JOIN executions e ON e.id = r.execution_id
     WHERE r.attempt < e.attempts AND NOT EXISTS (SELECT 1 FROM execution_attempts a WHERE a.execution_id = r.execution_id AND a.attempt = r.attempt)`,
  );
  expect(unexplained.rows).toEqual([]);
  const dupAttempt = await ctx.db.pool.query(`SELECT execution_id, attempt FROM test_runs GROUP BY 1, 2 HAVING count(*) > 1`);
  expect(dupAttempt.rows).toEqual([]);
  const missing = await ctx.db.pool.query(`SELECT count(*)::int AS n FROM executions e WHERE task = 'chaos' AND NOT EXISTS (SELECT 1 FROM test_runs r WHERE r.execution_id = e.id)`);
  expect(missing.rows[0].n).toBe(0);

  const overlap = await maxOverlapPerKey(ctx.db.pool, 'chaos');
  expect(overlap.get('*')).toBeLessThanOrEqual(CONCURRENCY);
  for (let t = 0; t < TENANTS; t++) expect(overlap.get(`tenant=t${t}`)).toBeLessThanOrEqual(TENANT_LIMIT);
  expect(await streamViolations(ctx.db.pool, 'chaos')).toEqual([]);
  const counters = await ctx.db.pool.query(`SELECT sum(depth)::int AS d, sum(in_flight)::int AS f FROM partition_stats WHERE task = 'chaos'`);
  expect(counters.rows[0]).toEqual({ d: 0, f: 0 });
  // Per-key counters: the moves every member logged (slot_deltas), the killed ones' too, each
  // added once — what a killed member did not fold is still logged, so folding what is left
  // brings every key of the finished task back to nothing running and nothing queued.
  await foldAllSlotDeltas(ctx.db.pool);
  const slots = await ctx.db.pool.query(`SELECT group_name || '=' || group_key AS k, in_flight, queued FROM group_slots WHERE task = 'chaos' AND (in_flight <> 0 OR queued <> 0)`);
  expect(slots.rows).toEqual([]);
  // The rate-limited task: everything finished, and no tenant above limit + burst in any
  // window of the interval — on the claims' own clock (started_at, the last attempt's) and on
  // the recorded handler starts (every completed attempt; a slack for claim → handler).
  expect(await rateDone()).toBe(RATE_PER * RATE_TENANTS);
  for (let t = 0; t < RATE_TENANTS; t++) {
    const claims = await ctx.db.pool.query<{ ms: number }>(
      `SELECT extract(epoch FROM started_at) * 1000 AS ms FROM executions WHERE task = 'chaos-rate' AND payload ->> 't' = $1 ORDER BY 1`,
      [`r${t}`],
    );
    expect(maxInAnyWindow(claims.rows.map((r) => Number(r.ms)), RATE.per - 1), `r${t} claims`).toBeLessThanOrEqual(RATE.limit + RATE.burst);
    const runs = await ctx.db.pool.query<{ ms: number }>(`SELECT started_ms AS ms FROM test_runs WHERE task = 'chaos-rate' AND groups ->> 'tenant' = $1 ORDER BY 1`, [`r${t}`]);
    expect(maxInAnyWindow(runs.rows.map((r) => Number(r.ms)), RATE.per - 150), `r${t} handler starts`).toBeLessThanOrEqual(RATE.limit + RATE.burst);
  }
  const lost = await ctx.db.pool.query(`SELECT count(*)::int AS n FROM execution_attempts WHERE task = 'chaos'`);
  console.log(`chaos${o.label ? ` (${o.label})` : ''}: ${kills} kills, ${lost.rows[0].n} lease-lost attempts re-run, max in flight ${overlap.get('*')}`);
}
