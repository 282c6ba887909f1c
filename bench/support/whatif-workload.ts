// The what-if calibration workload (issue #20), shared by `npm run bench:whatif`'s measured
// part (bench/whatif-measured.ts) and the calibration test
// (test/integration/whatif-calibration.test.ts): W2-shaped — tenants × users, a tenant
// limit of 3 and 1 per user, half the traffic on t0 — arriving in batches of PER_BATCH,
// handlers sleeping SLEEP_MS.
import type { TaskDefinitionInput } from '../../server/core/task-definition';

export const WHATIF_TENANTS = ['t0', 't1', 't2', 't3'];
export const WHATIF_PER_BATCH = 40;
export const WHATIF_SLEEP_MS = 40;

/** Config A of the calibration: the recorded one every prediction starts from. */
export function whatIfConfigA(name: string): TaskDefinitionInput {
  return {
    name,
    partitions: 2,
    concurrency: 10,
    timeoutMs: 10_000,
    groups: [
      { name: 'tenant', limit: 3, keyPath: 't' },
      { name: 'user', limit: 1, keyPath: 'u' },
    ],
  };
}

/** Batch b of the same seeded-by-index workload each run: WHATIF_PER_BATCH executions, 50% on t0. */
export function whatIfBatch(b: number) {
  return Array.from({ length: WHATIF_PER_BATCH }, (_, i) => {
    const n = b * WHATIF_PER_BATCH + i;
    const t = n % 2 === 0 ? 't0' : WHATIF_TENANTS[1 + (n % 3)]!;
    return { payload: { t, u: `${t}-u${n % 10}`, sleepMs: WHATIF_SLEEP_MS } };
  });
}
