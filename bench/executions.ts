// Executions benchmark: `npm run bench:executions` (`-- --quick` for a seconds-long run,
// `--json FILE` to write {executions_list_p95_ms, execution_detail_p95_ms, w2_drop_pct}). In a fresh
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
//   4. W2 beside the reads — the engine bench's W2 (bench/support/engine-workloads.ts: 10
//      tenants × 100 keys, 20/tenant 1/key, 2 coordinators in this process) on a fresh task
//      in this same 5M-row database, after an untimed warm-up, in turns (alone first, then
//      reads first, alternating): alone, and with READERS operators each (in a child
//      process, as the control plane is) reading a list page and a detail back to back with
//      THINK_MS between; `w2_drop_pct` =
//      how much lower the median jobs/s with the reads is (negative: faster with reads,
//      i.e. within noise). The list/detail p95 while W2 runs are reported beside it.
//      Target: W2 drops ≤ 10%.
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { startTestPostgres, urlForDatabase } from '../test/support/test-postgres';
import { createPool } from '../server/db/pool';
import { applyConfig } from '../server/services/config-versions';
import { SYSTEM_ACTOR } from '../server/db/audit';
import { percentile } from '../server/core/metrics';
import { registerCoordinator } from '../server/db/coordinator-membership';
import { syncOwnership } from '../server/db/partition-ownership';
import { executionDetail, listExecutionPage, type ExecutionListInput } from '../server/presenters/execution';
import { parseBenchArgs } from './support/bench-args';
import { shapeTimer } from './support/shape-timer';
import { engineBench, lcg, median } from './support/engine-workloads';
import type { TaskDefinitionInput } from '../server/core/task-definition';

const { quick, jsonFile } = parseBenchArgs();

const S = quick
  ? { total: 60_000, rounds: 3, deepPages: 5, detailRounds: 3, w2: 4000, w2Turns: 1 }
  : { total: 5_000_000, rounds: 10, deepPages: 20, detailRounds: 10, w2: 100_000, w2Turns: 3 };
/** The read load beside W2: operators each reading a list page and a detail, then pausing. */
const READERS = 4;
const THINK_MS = 200;
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
  const benchTasks: TaskDefinitionInput[] = TASKS.map((name) => ({
    name,
    partitions: PARTITIONS,
    concurrency: CONCURRENCY,
    groups: [{ name: 'tenant', limit: 20, keyPath: 'tenant', overrides: { t7: 40 } }],
    stream: { keyPath: 'order' },
    backpressure: { maxDepth: 10_000_000 },
  }));
  await applyConfig(pool, SYSTEM_ACTOR, { tasks: benchTasks });

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
  await pool.query(`UPDATE task_counters t SET in_flight = coalesce((SELECT count(*) FROM executions e WHERE e.task = t.task AND e.state = 'running'), 0)`);
  await pool.query(`INSERT INTO partition_stats (task, partition, depth, in_flight, spilled)
     SELECT task, partition, count(*) FILTER (WHERE state IN ('queued', 'blocked')), count(*) FILTER (WHERE state = 'running'), 0
       FROM executions GROUP BY task, partition
     ON CONFLICT (task, partition) DO UPDATE SET depth = excluded.depth, in_flight = excluded.in_flight, claim_floor = '-infinity'`);
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
  const { times, all, timed } = shapeTimer();
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

  // 4. W2 alone and beside the reads, in turns. The bench's own member (registered above
  // with a heartbeat an hour ahead) serves only the bench tasks, so W2's coordinators own
  // W2's partitions by themselves.
  const engine = engineBench({ pool, url, quick, tasks: benchTasks });
  const rnd = lcg(42);
  const alone: number[] = [];
  const withReads: number[] = [];
  const w2List: number[] = [];
  const w2Detail: number[] = [];
  let reads = 0;
  let readMs = 0;
  // The readers run in a child process (bench/support/read-load.ts), as the control plane
  // serves these reads apart from the coordinators: in this process they would share the
  // coordinators' event loop, which no deployment does.
  const loadConfig = JSON.stringify({
    url,
    readers: READERS,
    thinkMs: THINK_MS,
    shapes: shapes.map(([, filter, order]) => [filter, order]),
    ids: ids.map(([, id]) => id),
  });
  const startReadLoad = () => {
    const child = spawn(process.execPath, [path.join(import.meta.dirname, '..', 'node_modules', 'tsx', 'dist', 'cli.mjs'), path.join(import.meta.dirname, 'support', 'read-load.ts'), loadConfig], {
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    let out = '';
    let onReady!: () => void;
    const ready = new Promise<void>((res, rej) => {
      onReady = res;
      child.once('exit', (code) => rej(new Error(`read load exited (${code}) before it was ready`)));
    });
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.startsWith('ready\n')) onReady();
    });
    const exited = new Promise<void>((res) => child.once('close', () => res()));
    return {
      ready,
      async stop(): Promise<{ list: number[]; detail: number[]; reads: number; ms: number }> {
        child.stdin.end();
        await exited;
        const line = out.split('\n').find((l) => l.startsWith('{'));
        if (!line) throw new Error(`the read load printed no figures: ${out.slice(0, 500)}`);
        return JSON.parse(line);
      },
    };
  };
  // A warm-up burn-down first, untimed: the first one in a process runs the coordinator's
  // code cold (two quick runs without it measured the second, read-loaded run 8% and 18%
  // faster than the first, alone). Then the order alternates between turns.
  await engine.runW2('w2-warmup', S.w2, rnd);
  const runAlone = async (turn: number) => alone.push((await engine.runW2(`w2-alone-${turn + 1}`, S.w2, rnd)).perS);
  for (let turn = 0; turn < S.w2Turns; turn++) {
    if (turn % 2 === 0) await runAlone(turn);
    const load = startReadLoad();
    await load.ready;
    try {
      const b = await engine.runW2(`w2-reads-${turn + 1}`, S.w2, rnd);
      withReads.push(b.perS);
    } finally {
      const got = await load.stop();
      w2List.push(...got.list);
      w2Detail.push(...got.detail);
      reads += got.reads;
      readMs += got.ms;
    }
    if (turn % 2 === 1) await runAlone(turn);
    log(`W2 turn ${turn + 1}: alone ${Math.round(alone[turn]!)} jobs/s, beside the reads ${Math.round(withReads[turn]!)} jobs/s (${(100 * (1 - withReads[turn]! / alone[turn]!)).toFixed(1)}% drop)`);
  }
  const w2Alone = median(alone);
  const w2WithReads = median(withReads);
  const w2DropPct = 100 * (1 - w2WithReads / w2Alone);
  const w2ListP95 = percentile(w2List, 95)!;
  const w2DetailP95 = percentile(w2Detail, 95)!;
  log(
    `W2 (${S.w2.toLocaleString('en-US')} jobs, median of ${S.w2Turns}): alone ${Math.round(w2Alone)} jobs/s, beside ${READERS} readers ` +
      `(${(reads / (readMs / 1000)).toFixed(1)} reads/s) ${Math.round(w2WithReads)} jobs/s: w2_drop_pct ${w2DropPct.toFixed(1)}% (target ≤ 10%)`,
  );
  log(`while W2 ran: list p95 ${w2ListP95.toFixed(1)} ms over ${w2List.length} calls, detail p95 ${w2DetailP95.toFixed(1)} ms over ${w2Detail.length} calls`);

  const result = {
    executions_list_p95_ms: Math.round(listP95 * 10) / 10,
    execution_detail_p95_ms: Math.round(detailP95 * 10) / 10,
    w2_drop_pct: Math.round(w2DropPct * 10) / 10,
    w2_alone_jobs_per_s: Math.round(w2Alone),
    w2_with_reads_jobs_per_s: Math.round(w2WithReads),
    w2_reads_per_s: Math.round((reads / (readMs / 1000)) * 10) / 10,
    executions_list_p95_ms_during_w2: Math.round(w2ListP95 * 10) / 10,
    execution_detail_p95_ms_during_w2: Math.round(w2DetailP95 * 10) / 10,
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
