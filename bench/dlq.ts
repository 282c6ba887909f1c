// DLQ benchmark: `npm run bench:dlq` (`-- --quick` for a seconds-long run, `--json FILE`
// to write {list_p95_ms, replay_per_s}). In a fresh database on DATABASE_URL's server (or
// an embedded Postgres), dropped afterwards:
//   1. 1M dead letters (quick: 20k) written with generate_series: 20 tasks, 200 error
//      fingerprints with a skewed spread, 1,000 tenants, 10% with a stream key, dead_at
//      over 14 days, error texts of a few shapes; then ANALYZE;
//   2. the list — listDeadLetterPage (the page's list + its capped count, what the page
//      and GET /api/v1/dead-letters serve) — for a mix of filters (none, task,
//      fingerprint, task+fingerprint, group, stream, error text, time range, not
//      replayed) on the first page and 20 pages deep by cursor; p50/p95/max per shape,
//      `list_p95_ms` over all calls. Target: < 100 ms at 1M. The fingerprint groups
//      (a full aggregate over the filtered rows) are reported beside it;
//   3. replay at unlimited rate of the 100k (quick: 5k) dead letters of one task through
//      the real path: createReplayJob (freeze) + runReplayJobs (enqueue via the engine's
//      enqueue, 500 per batch); `replay_per_s` = dead letters replayed per second from
//      the request to the last one recorded (freeze included).
import fs from 'node:fs';
import { startTestPostgres, urlForDatabase } from '../test/support/test-postgres';
import { createPool } from '../server/db/pool';
import { applyConfig } from '../server/services/config-versions';
import { SYSTEM_ACTOR } from '../server/db/audit';
import { percentile } from '../server/core/metrics';
import { listDeadLetterPage, listFingerprintGroups, type DeadLetterListInput } from '../server/presenters/dead-letters';
import { createReplayJob } from '../server/services/dead-letter-replay';
import { runReplayJobs } from '../server/services/dead-letter-replay-runner';
import { parseBenchArgs } from './support/bench-args';
import { shapeTimer } from './support/shape-timer';

const { quick, jsonFile } = parseBenchArgs();

const S = quick
  ? { total: 20_000, replay: 5_000, rounds: 3, deepPages: 5, groupRounds: 2 }
  : { total: 1_000_000, replay: 100_000, rounds: 15, deepPages: 20, groupRounds: 5 };
const TASKS = Array.from({ length: 19 }, (_, i) => `bench-task-${String(i).padStart(2, '0')}`);
const REPLAY_TASK = 'bench-replay';
const log = (m: string) => console.log(`[bench:dlq] ${m}`);

const pgServer = await startTestPostgres('benchdlq');
const url = urlForDatabase(pgServer.adminUrl, pgServer.templateDb);
const pool = createPool(url, 8);

try {
  await applyConfig(pool, SYSTEM_ACTOR, {
    tasks: [
      ...TASKS.map((name) => ({ name, partitions: 2 })),
      { name: REPLAY_TASK, partitions: 8, concurrency: 100, groups: [{ name: 'tenant', limit: 10, keyPath: 'tenant' }], stream: { keyPath: 'order' }, backpressure: { maxDepth: 10_000_000 } },
    ],
  });

  // 1. Seed. The replay task's rows are the last S.replay ids; the rest spread over 19 tasks.
  const t0 = Date.now();
  const chunk = 100_000;
  const others = S.total - S.replay;
  for (let from = 1; from <= S.total; from += chunk) {
    const to = Math.min(S.total, from + chunk - 1);
    await pool.query(
      `INSERT INTO dead_letters (execution_id, task, payload, groups, stream_key, partition, attempts, last_error, stack, fingerprint, enqueued_at, dead_at)
       SELECT nextval('executions_id_seq'),
              CASE WHEN g > $3 THEN $4 ELSE ($5::text[])[1 + (g % 19)] END,
              jsonb_build_object('order', 'ord-' || (g % 50000), 'tenant', 't' || (g % 1000), 'amount', g % 9973),
              jsonb_build_object('tenant', 't' || (g % 1000)),
              CASE WHEN g % 10 = 0 THEN 'ord-' || (g % 50000) END,
              g % 8, 3,
              CASE (g % 5)
                WHEN 0 THEN 'TimeoutError: upstream https://api.example.com/v1/items/' || g || ' timed out after ' || (g % 30000) || ' ms'
                WHEN 1 THEN 'CardDeclinedError: card declined for invoice inv_' || g || ' (code do_not_honor)'
                WHEN 2 THEN 'SMTPError: 550 5.1.1 mailbox unavailable <user' || g || '@example.com>'
                WHEN 3 THEN 'TypeError: Cannot read properties of undefined (reading ''' || chr((97 + g % 26)::int) || 'rows'')'
                ELSE 'Error: connection reset by peer while writing batch ' || g
              END,
              'Error' || chr(10) || '    at handler (src/jobs/handler.ts:' || (g % 400) || ':7)' || chr(10) || '    at run (src/worker.ts:88:5)',
              -- skewed: fingerprint k gets ~1/(k+1) of the rows (a few big groups, a long tail)
              'fp' || lpad(to_hex(floor(200 * power(((g * 2654435761) % 1000003) / 1000003.0, 3))::int), 4, '0'),
              now() - make_interval(secs => (($1::bigint - g) * 1209600.0 / $1::bigint)) - interval '1 minute',
              now() - make_interval(secs => (($1::bigint - g) * 1209600.0 / $1::bigint))
         FROM generate_series($2::bigint, $6::bigint) g`,
      [S.total, from, others, REPLAY_TASK, TASKS, to],
    );
  }
  // A live table is vacuumed by autovacuum (visibility map set, so index-only counts stay
  // index-only); a freshly bulk-loaded one is not yet: vacuum it like autovacuum would.
  await pool.query('VACUUM ANALYZE dead_letters');
  log(`seeded ${S.total.toLocaleString('en-US')} dead letters in ${((Date.now() - t0) / 1000).toFixed(1)} s`);

  // 2. The list.
  const sample = (await pool.query<{ fingerprint: string; stream_key: string; dead_at: Date }>(
    `SELECT fingerprint, (SELECT stream_key FROM dead_letters WHERE stream_key IS NOT NULL LIMIT 1) AS stream_key,
            (SELECT dead_at FROM dead_letters ORDER BY dead_at DESC LIMIT 1 OFFSET $1) AS dead_at
       FROM dead_letters WHERE fingerprint = 'fp0003' LIMIT 1`,
    [Math.floor(S.total / 3)],
  )).rows[0]!;
  const shapes: [string, DeadLetterListInput['filter']][] = [
    ['none', {}],
    ['task', { task: TASKS[3]! }],
    ['fingerprint (big)', { fingerprint: 'fp0000' }],
    ['fingerprint (tail)', { fingerprint: 'fp00b4' }],
    ['task+fingerprint', { task: TASKS[5]!, fingerprint: 'fp0003' }],
    ['group', { group: 'tenant=t417' }],
    ['stream', { stream: sample.stream_key }],
    ['text (common)', { q: 'timed out' }],
    ['text (rare)', { q: 'inv_123457 ' }],
    ['time range', { from: new Date(sample.dead_at.getTime() - 3_600_000), to: sample.dead_at }],
    ['not replayed', { status: 'pending' }],
    ['task+text', { task: TASKS[7]!, q: 'mailbox' }],
  ];
  const { times, all, timed } = shapeTimer();
  for (const [, filter] of shapes) await listDeadLetterPage(pool, { filter, limit: 50 }); // warm-up
  for (let round = 0; round < S.rounds; round++) {
    for (const [name, filter] of shapes) {
      let page = await timed(`${name} · first page`, () => listDeadLetterPage(pool, { filter, limit: 50 }));
      if (round === 0) {
        for (let p = 0; p < S.deepPages && page.nextCursor; p++) {
          const cursor = page.nextCursor;
          page = await timed(`${name} · deep pages`, () => listDeadLetterPage(pool, { filter, limit: 50, cursor }));
        }
      }
    }
  }
  const fmt = (v: number | null) => (v === null ? '—' : v.toFixed(1).padStart(7));
  log('list (listDeadLetterPage, 50 rows; first pages include the capped count):');
  for (const [k, v] of times) log(`  ${k.padEnd(34)} n=${String(v.length).padStart(3)}  p50 ${fmt(percentile(v, 50))}  p95 ${fmt(percentile(v, 95))}  max ${fmt(Math.max(...v))} ms`);
  const listP95 = percentile(all, 95)!;
  log(`list p95 over ${all.length} calls: ${listP95.toFixed(1)} ms (target < 100 ms at 1M)`);

  const groupTimes: Record<string, number[]> = {};
  for (let r = 0; r < S.groupRounds; r++) {
    for (const [name, filter] of [['none', {}], ['task', { task: TASKS[3]! }], ['time range', shapes[9]![1]]] as const) {
      const s = performance.now();
      await listFingerprintGroups(pool, { filter, limit: 10 });
      (groupTimes[name] ??= []).push(performance.now() - s);
    }
  }
  for (const [k, v] of Object.entries(groupTimes)) log(`fingerprint groups (${k}): p50 ${fmt(percentile(v, 50))}  max ${fmt(Math.max(...v))} ms`);

  // 3. Replay at unlimited rate.
  const r0 = Date.now();
  const created = await createReplayJob(pool, SYSTEM_ACTOR, { scope: { filter: { task: REPLAY_TASK } }, ratePerSecond: null });
  const frozenMs = Date.now() - r0;
  const run = await runReplayJobs(pool, { owner: 'bench', jobId: created.job!.id, deadline: Date.now() + 15 * 60_000 });
  const totalMs = Date.now() - r0;
  const done = run.jobs[0]!;
  if (done.outcome !== 'completed' || done.replayed !== S.replay) throw new Error(`replay did not complete: ${JSON.stringify(run.jobs)}`);
  const execs = (await pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM executions WHERE task = $1`, [REPLAY_TASK])).rows[0]!.n;
  if (execs !== S.replay) throw new Error(`expected ${S.replay} executions, found ${execs}`);
  const replayPerS = S.replay / (totalMs / 1000);
  log(`replay ${S.replay.toLocaleString('en-US')} (unlimited rate): freeze ${frozenMs} ms, total ${(totalMs / 1000).toFixed(1)} s → ${replayPerS.toFixed(0)} dead letters/s (runner only: ${(S.replay / ((totalMs - frozenMs) / 1000)).toFixed(0)}/s)`);

  const result = {
    list_p95_ms: Math.round(listP95 * 10) / 10,
    replay_per_s: Math.round(replayPerS),
    dead_letters: S.total,
    replayed: S.replay,
    list_calls: all.length,
    fingerprint_groups_p50_ms: Object.fromEntries(Object.entries(groupTimes).map(([k, v]) => [k, Math.round(percentile(v, 50)! * 10) / 10])),
    quick,
  };
  console.log(JSON.stringify(result));
  if (jsonFile) fs.writeFileSync(jsonFile, JSON.stringify(result, null, 2) + '\n');
} finally {
  await pool.end();
  await pgServer.stop();
}
