// Sluice driver for the peer benchmark; runs under the machine's Node with the root's tsx,
// started by bench/peers.ts as `tsx bench/peers/sluice.ts --url URL --workload w1|w2|w4 …`
// with the same arguments as the peers' drivers. It migrates Sluice's schema into the (fresh)
// database it is given, applies one task through the config service, enqueues the workload
// through the enqueue service (batches of 5000), then times one coordinator
// (`startCoordinator`, `slots` = the benchmark's concurrency) until every job's handler has
// run once, and prints one RESULT line (see workloads.mjs).
//
// Tasks: task concurrency = the benchmark's concurrency; backpressure maxDepth raised to
// 10,000,000 so the preloaded backlog is accepted (the default 10,000 per partition would
// reject it); everything else at Sluice's defaults (4 partitions, retries, timeouts).
// W2: groups tenant (limit 20, keyPath "tenant") and key (limit 1, keyPath "key").
// W4: stream keyPath "stream".
// Crash mode (`--crash-at N`, `--settle-ms`): as in bullmq.mjs — CRASHPOINT after N jobs, the
// orchestrator kills the bench's own Postgres (immediate shutdown) and starts it again; jobs
// that never ran once no job finished for `--settle-ms` are the ones lost.
import { migrate } from '../../server/db/migrate';
import { createPool } from '../../server/db/pool';
import { applyConfig } from '../../server/services/config-versions';
import { SYSTEM_ACTOR } from '../../server/db/audit';
import { enqueue, type EnqueueInput } from '../../server/services/enqueue';
import { startCoordinator } from '../../server/coordinator/main';
import type { TaskDefinitionInput } from '../../server/core/task-definition';
import pg from 'pg';
import { workloadSpec, buildJobs, RunRecorder, summarize, parseArgs, runDriver, sleep, waitSettled, markStoreBack, type WorkloadSpec } from './workloads.mjs';

function taskFor(spec: WorkloadSpec, crash: boolean): TaskDefinitionInput {
  // Crash mode: a 5 s task timeout, so a finish lost with the database (the coordinator
  // commits finishes asynchronously) is re-leased within the run's settle window.
  const base = { name: `bench_${spec.workload}`, concurrency: spec.concurrency, backpressure: { maxDepth: 10_000_000 }, ...(crash ? { timeoutMs: 5000 } : {}) };
  if (spec.workload === 'w2') {
    return {
      ...base,
      groups: [
        { name: 'tenant', limit: spec.tenantLimit, keyPath: 'tenant' },
        { name: 'key', limit: spec.keyLimit, keyPath: 'key' },
      ],
    };
  }
  if (spec.workload === 'w4') return { ...base, stream: { keyPath: 'stream' } };
  return base;
}

await runDriver('sluice', async () => {
  const args = parseArgs(process.argv.slice(2));
  const spec = workloadSpec(args);
  const url = args.url;
  if (!url) throw new Error('--url is required');
  const jobs = buildJobs(spec);
  const rec = new RunRecorder(jobs.length);
  const crashAt = args['crash-at'] === undefined ? null : Number(args['crash-at']);
  const settleMs = Number(args['settle-ms'] ?? 20_000);
  const task = taskFor(spec, crashAt !== null);

  await migrate(url);
  const pool = createPool(url, 4);
  try {
    await applyConfig(pool, SYSTEM_ACTOR, { tasks: [task] }, { message: 'bench:peers' });
    const enqueueStarted = performance.now();
    for (let n = 0; n < jobs.length; n += 5000) {
      const batch: EnqueueInput[] = jobs.slice(n, n + 5000).map((j) => ({
        payload: j.tenant ? { i: j.index, tenant: j.tenant, key: j.key } : j.stream ? { i: j.index, stream: j.stream } : { i: j.index },
      }));
      const r = await enqueue(pool, task.name, batch);
      const notQueued = r.executions.filter((e) => e.state !== 'queued' && e.state !== 'blocked').length;
      if (notQueued > 0 || r.shed > 0) throw new Error(`enqueue did not queue ${notQueued + r.shed} of ${batch.length} executions (backpressure)`);
    }
    const enqueueSeconds = (performance.now() - enqueueStarted) / 1000;

    const handler = async (payload: unknown) => {
      const i = (payload as { i: number }).i;
      const started = rec.start(i);
      if (spec.workMs > 0) await sleep(spec.workMs);
      rec.end(i, started);
    };
    if (crashAt !== null) rec.armCrash(crashAt);
    // The coordinator's last log lines: printed with the result when a crash run lost work.
    const logTail: string[] = [];
    const t0 = performance.now();
    const coordinator = await startCoordinator({
      databaseUrl: url,
      handlers: { [task.name]: handler },
      slots: spec.concurrency,
      metricsPort: null,
      log: (m) => {
        logTail.push(`${((performance.now() - t0) / 1000).toFixed(2)}s ${m}`);
        if (logTail.length > 40) logTail.shift();
        process.stderr.write(`[sluice] ${m}\n`);
      },
    });
    const storeWatch = crashAt === null ? null : watchStoreBack(url, rec, spec.timeoutMs);
    const finished = crashAt === null ? await rec.waitAll(spec.timeoutMs) : await waitSettled(rec, spec.timeoutMs, settleMs);
    const lost = jobs.length - rec.done;
    const result = summarize(spec, jobs, rec, t0, {
      ...(crashAt === null
        ? { timedOut: !finished }
        : {
            crashAt,
            crashed: rec.crashed,
            lost,
            storeBackSeconds: Number.isNaN(rec.storeBackAt ?? NaN) ? null : Number((((rec.storeBackAt as number) - t0) / 1000).toFixed(2)),
            ...(lost > 0 ? { diagnosis: { ...(await diagnose(pool, task.name)), coordinatorLog: logTail } } : {}),
          }),
      enqueueSeconds: Number(enqueueSeconds.toFixed(3)),
      settings: { slots: spec.concurrency, taskConcurrency: spec.concurrency, partitions: 4, ...(spec.workload === 'w2' ? { groups: { tenant: spec.tenantLimit, key: spec.keyLimit } } : {}) },
    });
    await storeWatch?.stop();
    await coordinator.stop();
    const left = await pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM executions WHERE task = $1 AND state <> 'succeeded'`, [task.name]);
    result.leftInDatabase = left.rows[0]?.n ?? -1;
    return result;
  } finally {
    await pool.end();
  }
});

/**
 * Crash mode: once the crash point has passed, try a fresh connection every 100 ms; the first
 * that answers marks the store back (the settle window counts from there at the earliest).
 */
function watchStoreBack(url: string, rec: RunRecorder, timeoutMs: number): { stop(): Promise<void> } {
  let stopped = false;
  const done = (async () => {
    const deadline = performance.now() + timeoutMs;
    while (!stopped && !rec.crashed && performance.now() < deadline) await sleep(50);
    // The kill takes a moment to land: a connection that answers before it is not "back".
    let sawDown = false;
    while (!stopped && performance.now() < deadline) {
      const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1000 });
      try {
        await c.connect();
        await c.query('SELECT 1');
        if (sawDown) {
          markStoreBack(rec);
          return;
        }
      } catch {
        sawDown = true;
      } finally {
        await c.end().catch(() => {});
      }
      await sleep(100);
    }
  })();
  return {
    async stop() {
      stopped = true;
      await done;
    },
  };
}

/** What the database holds of a crash run that lost work: the rows by state, the owners. */
async function diagnose(pool: pg.Pool, task: string): Promise<Record<string, unknown>> {
  try {
    const states = await pool.query<{ state: string; n: number }>(`SELECT state, count(*)::int AS n FROM executions WHERE task = $1 GROUP BY state ORDER BY state`, [task]);
    const owners = await pool.query(`SELECT partition, owner FROM partition_owners WHERE task = $1 ORDER BY partition`, [task]);
    return { states: Object.fromEntries(states.rows.map((r) => [r.state, r.n])), owners: owners.rows };
  } catch (e) {
    return { diagnoseFailed: (e as Error).message };
  }
}
