// The coordinator's own pg pool. Claims, finishes and maintenance commit asynchronously
// (synchronous_commit = off): every claimer and finisher of a task queues on its
// task_runtime row lock, which is held until commit, so a WAL flush per commit (~1–10 ms
// here) would be the ceiling on claims per second. Losing the last few commits in a
// database crash is safe for these writes: a lost claim leaves the row queued (the
// handler's completion is then fenced and the execution runs again), a lost finish leaves
// it running until its lease expires — both keep at-least-once. Enqueue (the producer's
// acceptance) stays durable.
import pg from 'pg';

export function createCoordinatorPool(connectionString: string, slots: number, log: (m: string) => void): pg.Pool {
  const pool = new pg.Pool({
    connectionString,
    max: Math.min(20, 4 + Math.ceil(slots / 50)),
    application_name: 'sluice-coordinator',
    options: '-c synchronous_commit=off',
  });
  pool.on('error', (err) => log(`idle client error: ${err.message}`));
  // A checked-out client (a maintenance transaction, a claim) whose connection dies emits
  // 'error' on itself; without a listener that crashes the process. Its pending query
  // fails anyway and the pool discards the dead client on release.
  pool.on('connect', (client) => client.on('error', (err) => log(`connection error: ${err.message}`)));
  return pool;
}
