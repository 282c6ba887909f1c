// One-off comparison for docs/benchmarks.md (issue 16): the Overview cards' window totals
// read from metric_rollups (task-total rows among every partition's) vs metric_rollup_series,
// on 16 tasks × 64 partitions × 10 minutes of 10 s buckets. `npx tsx bench/support/window-totals-plans.ts`
import { startTestPostgres, urlForDatabase } from '../../test/support/test-postgres';
import { createPool } from '../../server/db/pool';
import { rollupMetricSeries } from '../../server/db/rollup-metric-series';

const pgServer = await startTestPostgres('benchwt');
const pool = createPool(urlForDatabase(pgServer.adminUrl, pgServer.templateDb), 2);
try {
  const now = new Date();
  const tasks = Array.from({ length: 16 }, (_, i) => `t${i}`);
  await pool.query(
    `INSERT INTO metric_rollups (resolution_s, task, bucket, partition, samples, covered_ms, last_at, depth_last, depth_max, depth_sum,
                                 in_flight_last, in_flight_max, spilled_max, arrivals, processed, failed, retried, dead_lettered, shed, rejected)
     SELECT 10, t, b, p, 1, 10000, b, 5, 5, 5, 1, 1, 0, 10, 10, 0, 0, 0, 0, 0
     FROM unnest($1::text[]) t
     CROSS JOIN generate_series(to_timestamp(floor(extract(epoch FROM $2::timestamptz) / 10) * 10) - interval '10 minutes', $2::timestamptz, interval '10 seconds') b
     CROSS JOIN generate_series(-1, 63) p`,
    [tasks, now],
  );
  await rollupMetricSeries(pool, 10, new Date(now.getTime() - 3600_000));
  await pool.query('ANALYZE metric_rollups; ANALYZE metric_rollup_series');
  const since = new Date(now.getTime() - 5 * 60_000);
  const SUMS = `sum(arrivals)::bigint, sum(processed)::bigint, sum(failed)::bigint, sum(retried)::bigint, sum(dead_lettered)::bigint, sum(covered_ms)::bigint, max(latency_p99_ms)`;
  const forms = {
    rollups: `SELECT task, ${SUMS} FROM metric_rollups WHERE resolution_s = 10 AND bucket >= $1 AND partition = -1 GROUP BY task`,
    series: `SELECT task, ${SUMS} FROM metric_rollup_series WHERE resolution_s = 10 AND bucket >= $1 AND covered_ms IS NOT NULL GROUP BY task`,
  };
  for (const [name, sql] of Object.entries(forms)) {
    const same = await pool.query(sql.replace('SELECT task,', 'SELECT task, count(*) AS n,'), [since]);
    const times: number[] = [];
    for (let i = 0; i < 30; i++) {
      const plan = await pool.query<{ 'QUERY PLAN': { 'Execution Time': number; Plan: { 'Shared Hit Blocks'?: number } }[] }>(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${sql}`, [since]);
      times.push(plan.rows[0]!['QUERY PLAN'][0]!['Execution Time']);
    }
    times.sort((a, b) => a - b);
    const text = await pool.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS) ${sql}`, [since]);
    console.log(`${name}: ${same.rowCount} tasks, median ${times[15]!.toFixed(2)} ms, p95 ${times[28]!.toFixed(2)} ms (execution time, 30 runs)`);
    console.log(text.rows.map((r) => `    ${r['QUERY PLAN']}`).join('\n'));
  }
} finally {
  await pool.end();
  await pgServer.stop();
}
