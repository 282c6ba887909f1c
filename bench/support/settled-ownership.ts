// Benchmarks time work only once every member owns its share: this waits until the partition
// owners of `tasks` are exactly the rendezvous assignment (server/core/rendezvous.ts) over
// `members`, as the members' ownership loops will settle them. Used by the engine
// bench's burn-downs and bench:fleet.
import type pg from 'pg';
import { assignPartitions } from '../../server/core/rendezvous';

export async function waitForSettledOwnership(pool: pg.Pool, tasks: readonly string[], members: readonly string[], timeoutMs = 30_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const r = await pool.query<{ task: string; partition: number; owner: string | null; partitions: number }>(
      `SELECT t.task, p.p AS partition, o.owner, t.partitions
       FROM task_runtime t CROSS JOIN LATERAL generate_series(0, t.partitions - 1) AS p(p)
       LEFT JOIN partition_owners o ON o.task = t.task AND o.partition = p.p
       WHERE t.task = ANY ($1)`,
      [tasks],
    );
    const owner = new Map<string, string>();
    for (const task of tasks) {
      const partitions = r.rows.find((x) => x.task === task)?.partitions ?? 0;
      for (const [m, ps] of assignPartitions(task, partitions, members)) for (const p of ps) owner.set(`${task}/${p}`, m);
    }
    const seen = new Set(r.rows.map((x) => x.task));
    if (tasks.every((t) => seen.has(t)) && r.rows.every((x) => x.owner === owner.get(`${x.task}/${x.partition}`))) return;
    if (Date.now() > until) throw new Error(`${tasks.join(', ')}: partition ownership did not settle in ${timeoutMs / 1000} s`);
    await new Promise((res) => setTimeout(res, 50));
  }
}
