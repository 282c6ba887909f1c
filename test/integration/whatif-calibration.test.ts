// Calibration of the what-if simulator against real coordinators (issue #20): a small
// W2-shaped workload (tenants × users, a tenant limit and 1 per user, 50% of the traffic on
// one tenant, arriving in batches) runs under config A; from A's recording (read back from
// executions, as the preview does) the simulator predicts config B (tenant limit lowered,
// one tenant overridden up); then B runs on the same schedule and the prediction is
// compared with what B did: throughput (executions ÷ first ready → last finish) and the
// p99 wait (ready → claimed) of each tenant key, the group whose limits changed. The
// preview's presenter (previewTaskWhatIf) is exercised on the same recording.
// The errors are printed; what is asserted is stated beside each assertion.
import { describe, it, expect } from 'vitest';
import { applyTasks, sleep } from '../support/engine-fixtures';
import { coordinatorTestContext, waitFor } from '../support/coordinator-harness';
import { enqueue } from '../../server/services/enqueue';
import { readWhatIfRecording } from '../../server/db/whatif-recording';
import { recordingToArrivals } from '../../server/core/whatif-recording';
import { simulate, type WhatIfTaskConfig } from '../../server/core/whatif-simulator';
import { previewTaskWhatIf } from '../../server/presenters/task-whatif';
import { taskDefinitionSchema, type TaskDefinitionInput } from '../../server/core/task-definition';
import { percentile } from '../../server/core/metrics';

const ctx = coordinatorTestContext();
// 'rec': a task the test handlers (test/support/handlers/record.ts) serve.
const TASK = 'rec';
const TENANTS = ['t0', 't1', 't2', 't3'];
const BATCHES = 8;
const PER_BATCH = 40;
const SLEEP_MS = 40;

const defA: TaskDefinitionInput = {
  name: TASK,
  partitions: 2,
  concurrency: 10,
  timeoutMs: 10_000,
  groups: [
    { name: 'tenant', limit: 3, keyPath: 't' },
    { name: 'user', limit: 1, keyPath: 'u' },
  ],
};
const defB: TaskDefinitionInput = { ...defA, groups: [{ name: 'tenant', limit: 2, keyPath: 't', overrides: { t1: 4 } }, { name: 'user', limit: 1, keyPath: 'u' }] };

/** The same seeded-by-index workload each run: batch b of PER_BATCH, 50% on t0. */
function batch(b: number) {
  return Array.from({ length: PER_BATCH }, (_, i) => {
    const n = b * PER_BATCH + i;
    const t = n % 2 === 0 ? 't0' : TENANTS[1 + (n % 3)]!;
    return { payload: { t, u: `${t}-u${n % 10}`, sleepMs: SLEEP_MS } };
  });
}

async function runWorkload(): Promise<{ start: number }> {
  const start = Date.now();
  for (let b = 0; b < BATCHES; b++) {
    await enqueue(ctx.db.pool, TASK, batch(b));
    await sleep(400);
  }
  await waitFor(
    'the workload to finish',
    async () => Number((await ctx.db.pool.query(`SELECT count(*) AS n FROM executions WHERE task = $1 AND state NOT IN ('succeeded')`, [TASK])).rows[0].n) === 0,
    40_000,
  );
  return { start };
}

async function measured(sinceMs: number) {
  const r = await ctx.db.pool.query<{ t: string; wait_ms: number; ready: Date; finished: Date }>(
    `SELECT groups->>'tenant' AS t, extract(epoch FROM started_at - run_at) * 1000 AS wait_ms, run_at AS ready, finished_at AS finished
     FROM executions WHERE task = $1 AND run_at >= to_timestamp($2 / 1000.0)`,
    [TASK, sinceMs],
  );
  const first = Math.min(...r.rows.map((x) => x.ready.getTime()));
  const last = Math.max(...r.rows.map((x) => x.finished.getTime()));
  const p99 = new Map(TENANTS.map((t) => [t, percentile(r.rows.filter((x) => x.t === t).map((x) => Number(x.wait_ms)), 99)!]));
  return { n: r.rows.length, throughput: (r.rows.length * 1000) / (last - first), p99 };
}

const pct = (predicted: number, actual: number) => (Math.abs(predicted - actual) / Math.max(actual, 1)) * 100;

describe('what-if calibration (real coordinators)', () => {
  it('predicts config B from config A’s recording: throughput and per-tenant wait p99', async () => {
    await applyTasks(ctx.db.pool, [defA]);
    await ctx.h.start({ name: 'cal-1', slots: 10 });
    await waitFor('cal-1 to own the task', async () => Number((await ctx.db.pool.query(`SELECT count(*) AS n FROM partition_owners WHERE task = $1 AND owner IS NOT NULL`, [TASK])).rows[0].n) === 2);

    // A warm-up run (a cold coordinator's first seconds are slower than its steady state),
    // then A: record.
    await runWorkload();
    await sleep(3000);
    const a = await runWorkload();
    const measuredA = await measured(a.start - 200);
    expect(measuredA.n).toBe(BATCHES * PER_BATCH);

    // ── predict B from A's recording (the preview's read and conversion)
    const windowMs = Date.now() - a.start + 1500;
    const rec = await readWhatIfRecording(ctx.db.pool, TASK, windowMs, 100_000);
    expect(rec.rows).toHaveLength(BATCHES * PER_BATCH);
    const { arrivals, coverage } = recordingToArrivals(rec.rows, { start: rec.start, end: rec.end, truncated: rec.truncated }, 1);
    expect(coverage).toMatchObject({ measured: BATCHES * PER_BATCH, estimated: 0, tooLittle: false, truncated: false });
    const base = (def: TaskDefinitionInput) => ({
      task: taskDefinitionSchema.parse(def) as WhatIfTaskConfig,
      arrivals,
      coordinators: [10],
      recorded: { partitions: 2, strategy: 'round-robin' as const },
      durationMs: rec.end.getTime() - rec.start.getTime(),
      seed: 1,
    });
    const sim = (def: TaskDefinitionInput) => simulate({ ...base(def), trace: true });
    const predict = (r: ReturnType<typeof sim>) => {
      let first = Infinity;
      let last = 0;
      arrivals.forEach((x, i) => {
        first = Math.min(first, x.at);
        last = Math.max(last, r.trace!.finishAt[i]!);
      });
      return { throughput: (arrivals.length * 1000) / (last - first), p99: new Map(r.keyWaits.filter((k) => k.group === 'tenant').map((k) => [k.key, k.p99WaitMs])) };
    };
    const selfA = predict(sim(defA)); // A replayed under A: the model's own error
    const predB = predict(sim(defB));

    // The preview presenter on the same recording: today (A) vs proposed (B).
    const preview = await previewTaskWhatIf(ctx.db.pool, { task: taskDefinitionSchema.parse(defB) as unknown as Record<string, unknown>, windowHours: (Date.now() - a.start + 1500) / 3_600_000, seed: 1 });
    expect(preview.coverage.executions).toBe(BATCHES * PER_BATCH);
    // t0 (half the traffic) loses a slot: it, or one of its users, is the most affected key.
    expect(preview.keys[0]!.key).toMatch(/^t0/);
    expect(preview.keys.find((k) => k.group === 'tenant' && k.key === 't0')).toBeDefined();
    expect(preview.proposed.waitP99Ms!).toBeGreaterThan(preview.today.waitP99Ms!);

    // ── B: apply, wait for the coordinator to run it, same schedule
    const vB = (await applyTasks(ctx.db.pool, [defB])).version;
    await waitFor('cal-1 to apply B', async () => Number((await ctx.db.pool.query(`SELECT applied_version AS n FROM coordinators WHERE name = 'cal-1'`)).rows[0].n) === vB);
    const b = await runWorkload();
    const measuredB = await measured(b.start - 200);
    expect(measuredB.n).toBe(BATCHES * PER_BATCH);

    const rows = [
      { what: 'A under A (self) throughput', predicted: selfA.throughput, actual: measuredA.throughput },
      ...TENANTS.map((t) => ({ what: `A under A (self) p99 wait tenant=${t}`, predicted: selfA.p99.get(t)!, actual: measuredA.p99.get(t)! })),
      { what: 'B from A throughput', predicted: predB.throughput, actual: measuredB.throughput },
      ...TENANTS.map((t) => ({ what: `B from A p99 wait tenant=${t}`, predicted: predB.p99.get(t)!, actual: measuredB.p99.get(t)! })),
    ].map((r) => ({ ...r, errorPct: pct(r.predicted, r.actual) }));
    console.log(
      '[whatif-calibration]\n' +
        rows.map((r) => `  ${r.what.padEnd(44)} predicted ${r.predicted.toFixed(1).padStart(8)}  measured ${r.actual.toFixed(1).padStart(8)}  error ${r.errorPct.toFixed(1)}%`).join('\n') +
        `\n  whatif_max_error_pct (B from A) ${Math.max(...rows.filter((r) => r.what.startsWith('B')).map((r) => r.errorPct)).toFixed(1)}%`,
    );
    // Asserted: the throughput prediction within 15% (issue #20); in runs on a loaded 2-core
    // machine it was 0.3%, 5.9%, 6.1% and 6.1% off. The per-tenant p99 waits are printed, not
    // asserted: the busy tenant came within 4–25%, the small tenants (waits of 0.2–0.6 s,
    // ~50 executions each) 1–55% — the simulator admits the instant a slot frees, the
    // engine's claim rounds do not, and that matters most where waits are short.
    expect(rows.find((r) => r.what === 'B from A throughput')!.errorPct).toBeLessThan(15);
  }, 90_000);
});
