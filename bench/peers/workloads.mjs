// The peer benchmark's workloads and the checks run on what a driver saw. Shared by every
// driver (graphile.mjs and pgboss.mjs under Node 24, sluice.ts under the machine's Node), so
// all systems get byte-for-byte the same jobs in the same order and are judged by one code path.
//
// W1  no-op burn-down: `jobs` jobs, no keys, handler returns at once.
// W2  groups: `jobs` jobs over `tenants` tenants × `keysPerTenant` keys, tenant limit
//     `tenantLimit`, per-key limit `keyLimit`; the handler waits `workMs` so that limits bind.
//     Jobs are enqueued tenant-major (all of tenant 0, then tenant 1, …) cycling through the
//     tenant's keys, so an oldest-first claimer meets a saturated tenant and a busy key at the
//     head of the queue: a system with head-of-line blocking runs ≤ tenantLimit at once.
// W4  ordered streams: `streams` × `events`, enqueued round-robin across streams (event 0 of
//     every stream, then event 1, …); each stream must run one at a time in enqueue order.
//
// Every driver records, in its own process, when each handler call started and ended
// (performance.now(), one clock), then `summarize` derives from those records the highest
// concurrency seen per tenant and per key (a sweep over the intervals) and the order
// violations (event s of a stream started before event s-1 of it had ended, or never ran).

/** @typedef {{ index: number, tenant: string | null, key: string | null, stream: string | null, seq: number }} BenchJob */

export const WORKLOADS = ['w1', 'w2', 'w4'];

/**
 * @param {Record<string, string | undefined>} args  parsed --name value pairs
 */
export function workloadSpec(args) {
  const workload = String(args.workload ?? '');
  if (!WORKLOADS.includes(workload)) throw new Error(`--workload must be one of ${WORKLOADS.join(', ')}; got "${workload}"`);
  const int = (name, dflt) => {
    const raw = args[name];
    const n = raw === undefined ? dflt : Number(raw);
    if (!Number.isInteger(n) || n < 0) throw new Error(`--${name} must be a non-negative integer; got "${raw}"`);
    return n;
  };
  return {
    workload,
    jobs: int('jobs', 1000),
    concurrency: int('concurrency', 32),
    tenants: int('tenants', 10),
    keysPerTenant: int('keys-per-tenant', 100),
    tenantLimit: int('tenant-limit', 20),
    keyLimit: int('key-limit', 1),
    workMs: int('work-ms', workload === 'w2' ? 2 : 0),
    streams: int('streams', 200),
    events: int('events', 50),
    timeoutMs: int('timeout-ms', 120_000),
  };
}

/** @returns {BenchJob[]} */
export function buildJobs(spec) {
  const jobs = [];
  if (spec.workload === 'w1') {
    for (let i = 0; i < spec.jobs; i++) jobs.push({ index: i, tenant: null, key: null, stream: null, seq: i });
  } else if (spec.workload === 'w2') {
    if (spec.tenants < 1 || spec.keysPerTenant < 1) throw new Error('W2 needs at least one tenant and one key');
    const perTenant = Math.ceil(spec.jobs / spec.tenants);
    for (let i = 0; i < spec.jobs; i++) {
      const t = Math.floor(i / perTenant);
      const k = (i - t * perTenant) % spec.keysPerTenant;
      jobs.push({ index: i, tenant: `t${t}`, key: `t${t}:k${k}`, stream: null, seq: i });
    }
  } else {
    let i = 0;
    for (let e = 0; e < spec.events; e++) {
      for (let s = 0; s < spec.streams; s++) jobs.push({ index: i++, tenant: null, key: null, stream: `s${s}`, seq: e });
    }
  }
  return jobs;
}

/** Handler-side records: one start and end per run of a job (a job may run twice if a peer redelivers). */
export class RunRecorder {
  constructor(total) {
    this.total = total;
    this.starts = new Float64Array(total).fill(NaN);
    this.ends = new Float64Array(total).fill(NaN);
    this.runs = new Uint32Array(total);
    this.extra = []; // [index, start, end] of second and later runs
    this.done = 0;
    this.firstStart = NaN;
    this.lastEnd = NaN;
    this.onAllDone = null;
    this.crashAt = null;
    this.crashed = false;
    this.lastProgress = NaN;
    this.storeBackAt = NaN;
  }
  /**
   * Crash mode: once `n` jobs have run, print `CRASHPOINT` on stdout (the orchestrator then
   * kills the system's store and starts it again) — see `waitSettled`.
   */
  armCrash(n) {
    this.crashAt = n;
  }
  /** @returns {number} the start time, to pass back to `end` */
  start(index) {
    if (!Number.isInteger(index) || index < 0 || index >= this.total) throw new Error(`job index ${index} out of range`);
    const t = performance.now();
    if (Number.isNaN(this.firstStart)) this.firstStart = t;
    return t;
  }
  end(index, startedAt) {
    this.record(index, startedAt, performance.now());
  }
  /** One finished run with explicit times (what `end` does with the clock; tests use it directly). */
  record(index, startedAt, t) {
    if (!Number.isInteger(index) || index < 0 || index >= this.total) throw new Error(`job index ${index} out of range`);
    if (Number.isNaN(this.firstStart) || startedAt < this.firstStart) this.firstStart = startedAt;
    if (Number.isNaN(this.lastEnd) || t > this.lastEnd) this.lastEnd = t;
    if (this.runs[index] === 0) {
      this.starts[index] = startedAt;
      this.ends[index] = t;
      this.done++;
    } else {
      this.extra.push([index, startedAt, t]);
    }
    this.runs[index]++;
    this.lastProgress = t;
    if (this.crashAt !== null && !this.crashed && this.done >= this.crashAt) {
      this.crashed = true;
      process.stdout.write('CRASHPOINT\n');
    }
    if (this.done === this.total && this.onAllDone) {
      const f = this.onAllDone;
      this.onAllDone = null;
      f();
    }
  }
  /** Resolves when every job has run once, or after `timeoutMs` with `false`. */
  waitAll(timeoutMs) {
    if (this.done === this.total) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.onAllDone = null;
        resolve(false);
      }, timeoutMs);
      this.onAllDone = () => {
        clearTimeout(timer);
        resolve(true);
      };
    });
  }
}

/**
 * Crash mode's end: `true` when every job ran; `false` when `timeoutMs` passed or, after the
 * crash point, no job finished for `settleMs` (what never ran by then is counted lost).
 */
/**
 * Crash mode: the store answered again after the crash. The settle window counts from here at
 * the earliest: how long a killed store takes to come back (crash recovery on a loaded machine
 * can take longer than the window itself) is the store's, not the system's under test.
 */
export function markStoreBack(rec) {
  const t = performance.now();
  if (Number.isNaN(rec.lastProgress) || t > rec.lastProgress) rec.lastProgress = t;
  rec.storeBackAt = t;
}

export async function waitSettled(rec, timeoutMs, settleMs) {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    if (rec.done === rec.total) return true;
    const now = performance.now();
    if (now > deadline || (rec.crashed && now - rec.lastProgress > settleMs)) return false;
    await sleep(100);
  }
}

/** Highest number of intervals open at once, per label; returns the max over labels. */
function maxOverlap(intervals) {
  const byLabel = new Map();
  for (const [label, s, e] of intervals) {
    let list = byLabel.get(label);
    if (!list) byLabel.set(label, (list = []));
    list.push([s, 1], [e, -1]);
  }
  let best = 0;
  for (const list of byLabel.values()) {
    // An end at the same instant as a start closes first: touching intervals do not overlap.
    list.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    let open = 0;
    for (const [, d] of list) {
      open += d;
      if (open > best) best = open;
    }
  }
  return best;
}

/**
 * Everything the orchestrator prints for one system × workload.
 * @param {BenchJob[]} jobs
 * @param {RunRecorder} rec
 * @param {number} t0  performance.now() when workers were started (jobs were already enqueued)
 */
export function summarize(spec, jobs, rec, t0, extra = {}) {
  const intervals = [];
  for (let i = 0; i < jobs.length; i++) if (rec.runs[i] > 0) intervals.push([i, rec.starts[i], rec.ends[i]]);
  for (const r of rec.extra) intervals.push(r);
  const duplicates = rec.extra.length;
  const missing = jobs.length - rec.done;
  const seconds = (rec.done === jobs.length ? rec.lastEnd - t0 : performance.now() - t0) / 1000;
  const out = {
    workload: spec.workload,
    jobs: jobs.length,
    completed: rec.done,
    missing,
    duplicates,
    seconds: Number(seconds.toFixed(3)),
    // A run cut off by its timeout reports the rate it kept up over the window (completed ÷
    // elapsed), flagged by `missing` > 0 (and the driver's `timedOut`).
    jobsPerSecond: seconds > 0 ? Math.round(rec.done / seconds) : 0,
    maxConcurrency: maxOverlap(intervals.map(([, s, e]) => ['all', s, e])),
    maxPerTenant: null,
    maxPerKey: null,
    tenantLimit: null,
    keyLimit: null,
    limitViolations: null,
    orderViolations: null,
    ...extra,
  };
  if (spec.workload === 'w2') {
    out.tenantLimit = spec.tenantLimit;
    out.keyLimit = spec.keyLimit;
    out.maxPerTenant = maxOverlap(intervals.map(([i, s, e]) => [jobs[i].tenant, s, e]));
    out.maxPerKey = maxOverlap(intervals.map(([i, s, e]) => [jobs[i].key, s, e]));
    out.limitViolations = limitViolations(jobs, intervals, spec);
  }
  if (spec.workload === 'w4') out.orderViolations = orderViolations(jobs, rec, spec);
  return out;
}

/**
 * Job starts that found their tenant or key already at its limit: for each start, count the
 * runs of the same tenant (key) open at that instant. A start counts once even if it breaks both.
 */
function limitViolations(jobs, intervals, spec) {
  const events = [];
  for (const [i, s, e] of intervals) events.push([s, 1, i], [e, -1, i]);
  events.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const openTenant = new Map();
  const openKey = new Map();
  let violations = 0;
  for (const [, d, i] of events) {
    const { tenant, key } = jobs[i];
    const t = (openTenant.get(tenant) ?? 0) + d;
    const k = (openKey.get(key) ?? 0) + d;
    openTenant.set(tenant, t);
    openKey.set(key, k);
    if (d === 1 && (t > spec.tenantLimit || k > spec.keyLimit)) violations++;
  }
  return violations;
}

/** Events that started before the previous event of their stream ended, or ran while it never did. */
function orderViolations(jobs, rec, spec) {
  const byStream = new Map();
  for (const j of jobs) {
    let list = byStream.get(j.stream);
    if (!list) byStream.set(j.stream, (list = []));
    list.push(j.index);
  }
  let violations = 0;
  for (const list of byStream.values()) {
    for (let n = 1; n < list.length; n++) {
      const prev = list[n - 1];
      const cur = list[n];
      if (rec.runs[cur] === 0) continue;
      if (rec.runs[prev] === 0 || rec.starts[cur] < rec.ends[prev]) violations++;
    }
  }
  // A redelivered event running again after later events of its stream is out of order too.
  for (const [i, s] of rec.extra) {
    const j = jobs[i];
    const next = j.seq + 1 < spec.events ? i + spec.streams : -1;
    if (next >= 0 && rec.runs[next] > 0 && rec.starts[next] < s) violations++;
  }
  return violations;
}

/** `--name value` pairs (and bare `--flag` as "true"). */
export function parseArgs(argv) {
  const out = {};
  for (let n = 0; n < argv.length; n++) {
    const a = argv[n];
    if (!a.startsWith('--')) throw new Error(`unexpected argument "${a}"`);
    const name = a.slice(2);
    const next = argv[n + 1];
    if (next === undefined || next.startsWith('--')) out[name] = 'true';
    else {
      out[name] = next;
      n++;
    }
  }
  return out;
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** The one line a driver prints on stdout for the orchestrator. */
export function printResult(result) {
  process.stdout.write(`RESULT ${JSON.stringify(result)}\n`);
}

/** Runs a driver's main, printing a RESULT with `error` on failure; exits the process when done. */
export async function runDriver(system, main) {
  let code = 0;
  try {
    const r = await main();
    printResult({ system, ...r });
  } catch (err) {
    code = 1;
    printResult({ system, error: err instanceof Error ? err.message : String(err) });
    process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  }
  process.exit(code);
}
