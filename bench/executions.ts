// Executions benchmark: `npm run bench:executions` (`-- --quick` for a seconds-long run,
// `--json FILE` to write {executions_list_p95_ms, execution_detail_p95_ms}). In a fresh
// database on DATABASE_URL's server (or an embedded Postgres), dropped afterwards:
//   1. 5,000,000 executions (quick: 60,000) written with generate_series over 10 tasks
//      and 10,000 tenant keys, in the states a busy system holds them: the oldest ~88%
//      finished (succeeded, 4% dead), then the backlog — queued, scheduled (run_at ahead),
//      blocked behind a stream — with ≤ concurrency running per task, 10% with a stream
//      key, 20% with an idempotency key, plus 5,000 spilled rows in overflow; counters
//      (task_runtime, partition_stats, group_slots) set from the rows; a member owning
//      every partition; then VACUUM ANALYZE (what autovacuum would have done);
//   2. the list — listExecutionPage, what the page, GET /api/v1/executions and the CLI
//      serve (page + counters + capped count on first pages) — for 10 filter shapes,
//      newest first, first page and 20 pages deep by cursor, plus oldest first;
//      p50/p95/max per shape, `executions_list_p95_ms` over all calls;
//   3. the detail — executionDetail incl. sluice_why_waiting, neighbours, owner — for
//      executions in every state; `execution_detail_p95_ms`. Target: p95 < 100 ms for both.
import fs from 'node:fs';
import { startTestPostgres, urlForDatabase } from '../test/support/test-postgres';
import { createPool } from '../server/db/pool';
import { applyConfig } from '../server/services/config-versions';
import { SYSTEM_ACTOR } from '../server/db/audit';
import { percentile } from '../server/core/metrics';
import { registerCoordinator } from '../server/db/coordinator-membership';
import { syncOwnership } from '../server/db/partition-ownership';
import { executionDetail, listExecutionPage, type ExecutionListInput } from '../server/presenters/execution';
import { parseBenchArgs } from './support/bench-args';

const { quick, jsonFile } = parseBenchArgs();

const S = quick ? { total: 60_000, rounds: 3, deepPages: 5, detailRounds: 3 } : { total: 5_000_000, rounds: 10, deepPages: 20, detailRounds: 10 };
const TASKS = Array.from({ length: 10 }, (_, i) => `bench-task-${i}`);
const KEYS = 10_000;
const PARTITIONS = 8;
const CONCURRENCY = 200;
const SPILLED = quick ? 500 : 5_000;
const log = (m: string) => console.log(`[bench:executions] ${m}`);

const pgServer = await startTestPostgres('benchexec');
const url = urlForDatabase(pgServer.adminUrl, pgServer.templateDb);
const pool = createPool(url, 8);

try {
  await applyConfig(pool, SYSTEM_ACTOR, {
    tasks: TASKS.map((name) => ({
      name,
      partitions: PARTITIONS,
      concurrency: CONCURRENCY,
      groups: [{ name: 'tenant', limit: 20, keyPath: 'tenant', overrides: { t7: 40 } }],
      stream: { keyPath: 'order' },
      backpressure: { maxDepth: 10_000_000 },
    })),
  });

  // 1. Seed. Row g (1..total): task g % 10, tenant g % 10000 (skewed a little toward low
  // keys), finished below the backlog line, the backlog above it.
  const t0 = Date.now();
  const backlogFrom = Math.floor(S.total * 0.88);
  const chunk = 250_000;
  for (let from = 1; from <= S.total; from += chunk) {
    const to = Math.min(S.total, from + chunk - 1);
    await pool.query(
      `INSERT INTO executions (id, task, partition, state, payload, groups, group_keys, stream_key, idempotency_key, attempts,
                               run_at, enqueued_at, started_at, finished_at, last_error, lease_owner, lease_expires_at)
       SELECT g, ($3::text[])[1 + g % 10], (g / 10) % ${PARTITIONS}, x.state,
              jsonb_build_object('tenant', x.tenant, 'order', 'ord-' || (g % 200000), 'amount', g % 9973, 'customer', jsonb_build_object('id', g % 50000)),
              jsonb_build_object('tenant', x.tenant), ARRAY['tenant=' || x.tenant],
              CASE WHEN g % 10 = 3 THEN 'ord-' || (g % 200000) END,
              CASE WHEN g % 5 = 1 THEN 'req-' || g END,
              CASE WHEN x.state IN ('succeeded', 'running') THEN 1 WHEN x.state = 'dead' THEN 3 WHEN x.state = 'queued' AND g % 7 = 0 THEN 1 ELSE 0 END,
              CASE WHEN x.state = 'queued' AND g % 7 = 0 THEN now() + interval '10 minutes' ELSE x.at END,
              x.at, CASE WHEN x.state IN ('succeeded', 'dead', 'running') THEN x.at + interval '20 ms' END,
              CASE WHEN x.state IN ('succeeded', 'dead') THEN x.at + interval '80 ms' END,
              CASE WHEN x.state = 'dead' THEN 'Error: upstream 503 for order ord-' || (g % 200000) END,
              NULL, CASE WHEN x.state = 'running' THEN now() + interval '5 minutes' END
         FROM generate_series($1::bigint, $2::bigint) g
         CROSS JOIN LATERAL (SELECT
              't' || (CASE WHEN g % 3 = 0 THEN g % 100 ELSE g % ${KEYS} END) AS tenant,
              now() - make_interval(secs => (($4::bigint - g) * 3600.0 * 24 / $4::bigint)) AS at,
              CASE WHEN g < $5 THEN (CASE WHEN g % 25 = 0 THEN 'dead' ELSE 'succeeded' END)
                   WHEN g % ${Math.max(1, Math.floor((S.total * 0.12) / (CONCURRENCY * 10 * 0.8)))} = 0 THEN 'running'
                   WHEN g % 10 = 3 AND g % 4 <> 0 THEN 'blocked'
                   ELSE 'queued' END AS state) x`,
      [from, to, TASKS, S.total, backlogFrom],
    );
  }
  await pool.query(`SELECT setval('executions_id_seq', $1)`, [S.total]);
  // running rows beyond a task's concurrency go back to queued (the claim never over-admits)
  await pool.query(`UPDATE executions e SET state = 'queued', started_at = NULL, lease_expires_at = NULL FROM (
      SELECT id, row_number() OVER (PARTITION BY task ORDER BY id) AS rn FROM executions WHERE state = 'running') r
    WHERE e.id = r.id AND r.rn > ${CONCURRENCY * 0.8}`);
  await pool.query(
    `INSERT INTO overflow (task, partition, payload, groups, group_keys, enqueued_at)
     SELECT ($2::text[])[1 + g % 10], g % ${PARTITIONS}, jsonb_build_object('tenant', 't' || (g % ${KEYS})), jsonb_build_object('tenant', 't' || (g % ${KEYS})),
            ARRAY['tenant=t' || (g % ${KEYS})], now() FROM generate_series(1, $1::int) g`,
    [SPILLED, TASKS],
  );
  // counters from the rows, as enqueue / claim / finish keep them
  await pool.query(`UPDATE task_runtime t SET in_flight = coalesce((SELECT count(*) FROM executions e WHERE e.task = t.task AND e.state = 'running'), 0)`);
  await pool.query(`INSERT INTO partition_stats (task, partition, depth, in_flight, spilled)
     SELECT task, partition, count(*) FILTER (WHERE state IN ('queued', 'blocked')), count(*) FILTER (WHERE state = 'running'), 0
       FROM executions GROUP BY task, partition
     ON CONFLICT (task, partition) DO UPDATE SET depth = excluded.depth, in_flight = excluded.in_flight`);
  await pool.query(`UPDATE partition_stats ps SET spilled = o.n FROM (SELECT task, partition, count(*) AS n FROM overflow GROUP BY 1, 2) o
     WHERE ps.task = o.task AND ps.partition = o.partition`);
  await pool.query(`INSERT INTO group_slots (task, group_name, group_key, in_flight, queued)
     SELECT task, 'tenant', groups->>'tenant', count(*) FILTER (WHERE state = 'running'), count(*) FILTER (WHERE state IN ('queued', 'blocked'))
       FROM executions WHERE state IN ('queued', 'blocked', 'running') GROUP BY 1, 2, 3
     ON CONFLICT (task, group_name, group_key) DO UPDATE SET in_flight = excluded.in_flight, queued = excluded.queued`);
  const me = await registerCoordinator(pool, { name: 'bench', host: 'bench', pid: process.pid, tasks: TASKS, slots: 100, metricsPort: null });
  await syncOwnership(pool, me, TASKS.flatMap((task) => Array.from({ length: PARTITIONS }, (_, partition) => ({ task, partition }))), 60_000);
  await pool.query(`UPDATE coordinators SET last_heartbeat_at = now() + interval '1 hour' WHERE id = $1`, [me]);
  await pool.query('VACUUM ANALYZE executions');
  await pool.query('VACUUM ANALYZE overflow');
  const states = await pool.query<{ state: string; n: number }>(`SELECT state, count(*)::int AS n FROM executions GROUP BY 1 ORDER BY 1`);
  log(`seeded ${S.total.toLocaleString('en-US')} executions (${states.rows.map((r) => `${r.state} ${r.n.toLocaleString('en-US')}`).join(', ')}; spilled ${SPILLED}) in ${((Date.now() - t0) / 1000).toFixed(1)} s`);

  // 2. The list.
  const some = async (sql: string) => Number((await pool.query<{ id: string }>(sql)).rows[0]!.id);
  const streamRow = (await pool.query<{ task: string; stream_key: string }>(`SELECT task, stream_key FROM executions WHERE state = 'blocked' LIMIT 1`)).rows[0]!;
  const idem = (await pool.query<{ task: string; idempotency_key: string }>(`SELECT task, idempotency_key FROM executions WHERE idempotency_key IS NOT NULL ORDER BY id LIMIT 1 OFFSET $1`, [Math.floor(S.total / 10)])).rows[0]!;
  const at = (await pool.query<{ at: Date }>(`SELECT enqueued_at AS at FROM executions WHERE id = $1`, [Math.floor(S.total / 2)])).rows[0]!.at;
  const shapes: [string, ExecutionListInput['filter'], ('newest' | 'oldest')?][] = [
    ['none', {}],
    ['task', { task: TASKS[3]! }],
    ['task+queued', { task: TASKS[4]!, state: 'queued' }],
    ['running', { state: 'running' }],
    ['task+dead', { task: TASKS[5]!, state: 'dead' }],
    ['group (rare key)', { group: 'tenant=t4417' }],
    ['group+queued (hot key)', { group: 'tenant=t7', state: 'queued' }],
    ['stream', { task: streamRow.task, stream: streamRow.stream_key }],
    ['idempotency key', { idempotencyKey: idem.idempotency_key }],
    ['payload match', { task: TASKS[6]!, payload: 'customer.id=1234' }],
    ['enqueued range', { enqueuedFrom: new Date(at.getTime() - 600_000), enqueuedTo: at }],
    ['oldest first (task)', { task: TASKS[2]! }, 'oldest'],
  ];
  const times = new Map<string, number[]>();
  const all: number[] = [];
  const timed = async <T>(shape: string, fn: () => Promise<T>): Promise<T> => {
    const s = performance.now();
    const out = await fn();
    const ms = performance.now() - s;
    all.push(ms);
    (times.get(shape) ?? times.set(shape, []).get(shape)!).push(ms);
    return out;
  };
  for (const [, filter, order] of shapes) await listExecutionPage(pool, { filter, order: order ?? 'newest', limit: 50 }); // warm-up
  for (let round = 0; round < S.rounds; round++) {
    for (const [name, filter, order] of shapes) {
      let page = await timed(`${name} · first page`, () => listExecutionPage(pool, { filter, order: order ?? 'newest', limit: 50 }));
      if (round === 0) {
        for (let p = 0; p < S.deepPages && page.nextCursor !== null; p++) {
          const cursor = page.nextCursor;
          page = await timed(`${name} · deep pages`, () => listExecutionPage(pool, { filter, order: order ?? 'newest', limit: 50, cursor }));
        }
      }
    }
  }
  const fmt = (v: number | null) => (v === null ? '—' : v.toFixed(1).padStart(7));
  log('list (listExecutionPage, 50 rows; first pages include counters and the capped count):');
  for (const [k, v] of times) log(`  ${k.padEnd(40)} n=${String(v.length).padStart(3)}  p50 ${fmt(percentile(v, 50))}  p95 ${fmt(percentile(v, 95))}  max ${fmt(Math.max(...v))} ms`);
  const listP95 = percentile(all, 95)!;
  log(`list p95 over ${all.length} calls: ${listP95.toFixed(1)} ms (target < 100 ms)`);

  // 3. The detail with why-waiting, for each state.
  const ids: [string, number][] = [
    ['queued', await some(`SELECT id FROM executions WHERE state = 'queued' AND run_at <= now() ORDER BY id DESC LIMIT 1 OFFSET 100`)],
    ['queued (hot key)', await some(`SELECT id FROM executions WHERE state = 'queued' AND groups->>'tenant' = 't7' ORDER BY id DESC LIMIT 1`)],
    ['scheduled', await some(`SELECT id FROM executions WHERE state = 'queued' AND run_at > now() LIMIT 1`)],
    ['blocked', await some(`SELECT id FROM executions WHERE state = 'blocked' LIMIT 1`)],
    ['running', await some(`SELECT id FROM executions WHERE state = 'running' LIMIT 1`)],
    ['dead', await some(`SELECT id FROM executions WHERE state = 'dead' ORDER BY id LIMIT 1 OFFSET 1000`)],
    ['succeeded', await some(`SELECT id FROM executions WHERE state = 'succeeded' ORDER BY id LIMIT 1 OFFSET ${Math.floor(S.total / 3)}`)],
    ['spilled', await some(`SELECT id FROM overflow ORDER BY id LIMIT 1`)],
  ];
  const detailTimes = new Map<string, number[]>();
  const detailAll: number[] = [];
  for (const [, id] of ids) await executionDetail(pool, { id }, { includePayload: true }); // warm-up
  for (let r = 0; r < S.detailRounds; r++) {
    for (const [name, id] of ids) {
      const s = performance.now();
      const d = await executionDetail(pool, { id }, { includePayload: true });
      const ms = performance.now() - s;
      if (!d.whyWaiting) throw new Error(`no why-waiting reply for ${name} ${id}`);
      detailAll.push(ms);
      (detailTimes.get(name) ?? detailTimes.set(name, []).get(name)!).push(ms);
      if (r === 0) log(`  detail ${name.padEnd(18)} → ${d.whyWaiting.reason}: ${d.whyWaiting.text}`);
    }
  }
  for (const [k, v] of detailTimes) log(`  detail ${k.padEnd(18)} p50 ${fmt(percentile(v, 50))}  p95 ${fmt(percentile(v, 95))}  max ${fmt(Math.max(...v))} ms`);
  const detailP95 = percentile(detailAll, 95)!;
  log(`detail p95 over ${detailAll.length} calls: ${detailP95.toFixed(1)} ms (target < 100 ms)`);

  const result = {
    executions_list_p95_ms: Math.round(listP95 * 10) / 10,
    execution_detail_p95_ms: Math.round(detailP95 * 10) / 10,
    executions: S.total,
    keys: KEYS,
    list_calls: all.length,
    detail_calls: detailAll.length,
    list_p95_by_shape_ms: Object.fromEntries([...times].map(([k, v]) => [k, Math.round(percentile(v, 95)! * 10) / 10])),
    quick,
  };
  console.log(JSON.stringify(result));
  if (jsonFile) fs.writeFileSync(jsonFile, JSON.stringify(result, null, 2) + '\n');
} finally {
  await pool.end();
  await pgServer.stop();
}
