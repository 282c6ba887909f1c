// The what-if calibration workload (issue #20), shared by `npm run bench:whatif`'s measured
// part (bench/whatif-measured.ts) and the calibration test
// (test/integration/whatif-calibration.test.ts): W2-shaped — tenants × users, a tenant
// limit of 3 and 1 per user, half the traffic on t0 — arriving in batches of PER_BATCH,
// handlers sleeping SLEEP_MS.
import pg from 'pg';
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

/**
 * The calibration's producer: its own small pool whose commits do not wait for the WAL's
 * fsync (`synchronous_commit = off`, per session). An execution's wait is measured from its
 * run_at, the enqueue transaction's start, but nobody can claim it before that transaction
 * commits: on this machine a 40-row enqueue took 5–23 ms and a batch's pick-up (first start −
 * run_at) was within 2 ms of it in 380 of 400 timed batches; twice in 400 others the pick-up
 * was 196 and 399 ms while the only statement running was a COMMIT in IO:WALSync (2026-12-03).
 * A disk stall on the producer's commit is not something a config change moves, nor the
 * engine's scheduling that the simulator is calibrated against, and one such batch was a
 * small tenant's whole p99 (A again vs A 45% apart). The coordinators' own commits are asynchronous already
 * (server/db/coordinator-pool.ts).
 */
export function whatIfProducerPool(url: string): pg.Pool {
  return new pg.Pool({ connectionString: url, max: 2, application_name: 'whatif-producer', options: '-c synchronous_commit=off' });
}
