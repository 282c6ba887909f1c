// Pinned outputs of the what-if simulator: fixed-seed recordings (W2-shaped, with every
// limit the simulator models) replayed under several configs, each result reduced to exact
// numbers — a digest of every execution's claim and finish time and partition, and the
// summary figures. Written before the simulator's speed work (issue #20) so that any change
// of what it computes, however small, fails here; a deliberate change of the model updates
// these numbers in the same commit and says why.
import { describe, expect, it } from 'vitest';
import { simulate, WhatIfScratch, type SimulationInput, type WhatIfArrivalColumns, type WhatIfTaskConfig } from './whatif-simulator';
import { thresholdsSchema } from './task-definition';
import { mulberry32 } from './seeded-random';

const thresholds = thresholdsSchema.parse(undefined);

/** n arrivals at `rate`/s: 6 tenants (60% on t0) × 20 users, exponential run times (mean 40 ms). */
function recording(n: number, rate: number, seed: number, opts: { streams?: boolean; priorities?: boolean; costs?: boolean } = {}): WhatIfArrivalColumns {
  const rnd = mulberry32(seed);
  const names: string[] = [];
  for (let t = 0; t < 6; t++) names.push(`t${t}`);
  for (let t = 0; t < 6; t++) for (let u = 0; u < 20; u++) names.push(`t${t}-u${u}`);
  const streamBase = names.length;
  if (opts.streams) for (let s = 0; s < 8; s++) names.push(`s${s}`);
  const tenant = new Int32Array(n);
  const user = new Int32Array(n);
  const cols: WhatIfArrivalColumns = { length: n, at: new Float64Array(n), runMs: new Float64Array(n), partition: new Int32Array(n), names, keys: new Map([['tenant', tenant], ['user', user]]) };
  const stream = opts.streams ? new Int32Array(n).fill(-1) : undefined;
  const priority = opts.priorities ? new Int32Array(n) : undefined;
  const cost = opts.costs ? new Float64Array(n) : undefined;
  let t = 0;
  for (let i = 0; i < n; i++) {
    t += -Math.log(1 - rnd()) * (1000 / rate);
    const tn = rnd() < 0.6 ? 0 : 1 + Math.floor(rnd() * 5);
    cols.at[i] = t;
    cols.runMs[i] = -Math.log(1 - rnd()) * 40;
    cols.partition[i] = i % 2;
    tenant[i] = tn;
    user[i] = 6 + tn * 20 + Math.floor(rnd() * 20);
    if (stream && rnd() < 0.1) stream[i] = streamBase + Math.floor(rnd() * 8);
    if (priority) priority[i] = rnd() < 0.2 ? 1 + Math.floor(rnd() * 3) : 0;
    if (cost) cost[i] = 1 + Math.floor(rnd() * 3);
  }
  return { ...cols, ...(stream ? { stream } : {}), ...(priority ? { priority } : {}), ...(cost ? { cost } : {}) };
}

/** FNV-1a over the bytes of the arrays: one number that moves when any value does. */
function digest(...arrays: (Float64Array | Int32Array)[]): string {
  let h = 0x811c9dc5;
  for (const a of arrays) {
    const bytes = new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
    for (let i = 0; i < bytes.length; i++) h = Math.imul(h ^ bytes[i]!, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, '0');
}

function fingerprint(r: ReturnType<typeof simulate>) {
  return {
    trace: digest(r.trace!.claimAt, r.trace!.finishAt, r.trace!.partition),
    throughputPerS: r.throughputPerS,
    wait: r.wait,
    maxDepth: r.maxDepth,
    finished: r.finished,
    backlogAtEnd: r.backlogAtEnd,
    drainMs: r.drainMs,
    peaks: r.peaks,
    depth: digest(Float64Array.from(r.depth.at), ...r.depth.byPartition.map((d) => Float64Array.from(d))),
    keyWaits: r.keyWaits.slice(0, 3).map((k) => [k.group, k.key, k.count, k.p50WaitMs, k.p99WaitMs, k.maxWaitMs]),
    alerts: r.alerts.map((a) => [a.rule, a.subject, a.severity, a.firstFiredAt, a.peakValue]),
  };
}

const base: WhatIfTaskConfig = {
  name: 'pinned',
  partitions: 2,
  concurrency: 12,
  routing: { strategy: 'round-robin' },
  groups: [
    { name: 'tenant', limit: 4, overrides: { t0: 6 }, keyPath: 't' },
    { name: 'user', limit: 1, overrides: {} },
  ],
  thresholds,
};
const recorded = { partitions: 2, strategy: 'round-robin' as const };
const w2 = recording(20_000, 200, 11);
const rated = recording(8_000, 150, 12, { streams: true, priorities: true, costs: true });

const cases: { name: string; input: SimulationInput }[] = [
  { name: 'recorded config, 2 coordinators, hand-off 3 ms', input: { task: base, arrivals: w2, coordinators: [6, 6], recorded, seed: 1, handoffMs: 3, tickMs: 1000 } },
  { name: 'tenant limit 4 → 2 (a backlog)', input: { task: { ...base, groups: [{ ...base.groups[0]!, limit: 2 }, base.groups[1]!] }, arrivals: w2, coordinators: [6, 6], recorded, seed: 1, tickMs: 1000 } },
  { name: 'partitions 2 → 4, least-loaded', input: { task: { ...base, partitions: 4, routing: { strategy: 'least-loaded' } }, arrivals: w2, coordinators: [6, 6], recorded, seed: 1, tickMs: 1000 } },
  { name: 'routing → hash on tenant, one coordinator of 10', input: { task: { ...base, routing: { strategy: 'hash', keyPath: 't' } }, arrivals: w2, coordinators: [10], recorded, seed: 1, handoffMs: 7, tickMs: 1000 } },
  { name: 'random routing over 3 partitions', input: { task: { ...base, partitions: 3, routing: { strategy: 'random' } }, arrivals: w2, coordinators: [5, 7], recorded, seed: 42, tickMs: 1000 } },
  {
    name: 'rates, costs, priorities with aging, streams',
    input: {
      task: {
        ...base,
        priority: { default: 0, agingMs: 200 },
        rate: { limit: 140, per: 1000, burst: 5 },
        groups: [{ ...base.groups[0]!, rate: { limit: 60, per: 1000, burst: 2, overrides: { t1: { limit: 10 } } } }, base.groups[1]!],
      },
      arrivals: rated,
      coordinators: [12],
      recorded,
      seed: 1,
      tickMs: 1000,
    },
  },
  { name: 'fair share with weights', input: { task: { ...base, order: 'fair', groups: [{ ...base.groups[0]!, weights: { t0: 2 } }, base.groups[1]!] }, arrivals: rated, coordinators: [12], recorded, seed: 1, tickMs: 1000 } },
];

const PINNED: Record<string, unknown> = {
  'recorded config, 2 coordinators, hand-off 3 ms': {
    trace: 'f0e41ff1',
    throughputPerS: 197.45527845094614,
    wait: { count: 20000, p50Ms: 1.3649580293131294, p99Ms: 261.7818510139914, maxMs: 523.3810289675021 },
    maxDepth: 17,
    finished: 20000,
    backlogAtEnd: 13,
    drainMs: 170.36189421932795,
    peaks: { running: 12, perCoordinator: [6, 6] },
    depth: 'a0709468',
    keyWaits: [['user', 't0-u5', 617, 21.826831886544824, 334.10347026409363, 450.0002912676682], ['user', 't0-u9', 610, 22.038543151007616, 329.52336499767625, 404.6813893921353], ['user', 't0-u1', 626, 28.42464342144376, 302.5343035837868, 420.17845969833434]],
    alerts: [],
  },
  'tenant limit 4 → 2 (a backlog)': {
    trace: 'fd660310',
    throughputPerS: 197.46516258161896,
    wait: { count: 20000, p50Ms: 0, p99Ms: 204.14476582329007, maxMs: 504.6983833206177 },
    maxDepth: 14,
    finished: 20000,
    backlogAtEnd: 12,
    drainMs: 149.36189421932795,
    peaks: { running: 12, perCoordinator: [6, 6] },
    depth: '4e835bbd',
    keyWaits: [['user', 't0-u1', 626, 10.237640211184043, 274.1332591599785, 321.7518750886811], ['user', 't0-u2', 611, 4.443163111500326, 271.6734178588231, 361.52563950746844], ['user', 't0-u12', 588, 10.789621735777473, 261.0160607119906, 504.6983833206177]],
    alerts: [],
  },
  'partitions 2 → 4, least-loaded': {
    trace: '4c0ba1c2',
    throughputPerS: 197.4453943202733,
    wait: { count: 20000, p50Ms: 0, p99Ms: 210.65051515675077, maxMs: 514.3810289675021 },
    maxDepth: 8,
    finished: 20000,
    backlogAtEnd: 12,
    drainMs: 145.46016295348818,
    peaks: { running: 12, perCoordinator: [6, 6] },
    depth: '41c1f93a',
    keyWaits: [['user', 't0-u8', 614, 9.929630781236938, 268.9436105306959, 376.0146696862066], ['user', 't0-u12', 588, 8.85561212632956, 267.4616083525325, 514.3810289675021], ['user', 't0-u6', 595, 9.938171170722853, 263.575495599056, 290.0422214342361]],
    alerts: [],
  },
  'routing → hash on tenant, one coordinator of 10': {
    trace: '312121f4',
    throughputPerS: 197.39597366690919,
    wait: { count: 20000, p50Ms: 55.79460939277487, p99Ms: 493.67151534166624, maxMs: 711.9667909483396 },
    maxDepth: 82,
    finished: 20000,
    backlogAtEnd: 20,
    drainMs: 213.10990351585497,
    peaks: { running: 10, perCoordinator: [10] },
    depth: '941ee97d',
    keyWaits: [['user', 't0-u15', 588, 99.22287870768923, 588.8403655308794, 632.6111385616241], ['user', 't0-u1', 626, 106.0144093077979, 585.3314914387302, 711.9667909483396], ['user', 't0-u12', 588, 100.1096426716249, 579.2996173135907, 618.2247312695545]],
    alerts: [],
  },
  'random routing over 3 partitions': {
    trace: 'b5a11790',
    throughputPerS: 191.17885547370477,
    wait: { count: 20000, p50Ms: 1718.0643993528538, p99Ms: 5110.884246816262, maxMs: 5283.156872966443 },
    maxDepth: 344,
    finished: 20000,
    backlogAtEnd: 651,
    drainMs: 5161.850400326526,
    peaks: { running: 12, perCoordinator: [5, 7] },
    depth: 'a835713b',
    keyWaits: [['user', 't5-u2', 78, 1591.4647292684513, 5190.109521516177, 5190.109521516177], ['user', 't2-u17', 72, 2171.189600662856, 5185.762290036917, 5185.762290036917], ['user', 't3-u7', 93, 1790.051213038445, 5185.204417049928, 5185.204417049928]],
    alerts: [['hotKey', 'tenant=t0', 'warning', 65000, 0.6829268292682927]],
  },
  'rates, costs, priorities with aging, streams': {
    trace: '051a5630',
    throughputPerS: 69.88714402959042,
    wait: { count: 8000, p50Ms: 30662.36095363082, p99Ms: 108119.81214119791, maxMs: 109731.33228785991 },
    maxDepth: 2127,
    finished: 8000,
    backlogAtEnd: 4265,
    drainMs: 109728.09106784847,
    peaks: { running: 9, perCoordinator: [9] },
    depth: 'c3720bcb',
    keyWaits: [['user', 't0-u11', 261, 59218.70813555137, 109588.86417213909, 109701.40045164234], ['user', 't0-u19', 234, 56852.28815809548, 109435.39011430352, 109660.30075937972], ['user', 't1-u8', 28, 37653.19869630133, 109420.2772716372, 109420.2772716372]],
    alerts: [['hotKey', 'tenant=t0', 'critical', 61000, 0.9714285714285714], ['depth', '', 'warning', 85000, 2127], ['waitP99Ms', '', 'warning', 105000, 107760.23482609194]],
  },
  'fair share with weights': {
    trace: '29e02278',
    throughputPerS: 149.6805847343291,
    wait: { count: 8000, p50Ms: 0, p99Ms: 123.01045180445362, maxMs: 318.79870481155376 },
    maxDepth: 5,
    finished: 8000,
    backlogAtEnd: 1,
    drainMs: 5.540228713012766,
    peaks: { running: 12, perCoordinator: [12] },
    depth: 'c6201d13',
    keyWaits: [['user', 't5-u1', 32, 0, 253.0262606697097, 253.0262606697097], ['user', 't0-u5', 217, 0, 230.43735389886933, 258.6924154424705], ['user', 't0-u14', 248, 0, 199.69467267140135, 232.70269588960582]],
    alerts: [],
  },
};

// Each replay takes about a second (seconds on a loaded machine): a generous timeout.
describe('simulate: pinned outputs (any change of what it computes fails here)', { timeout: 60_000 }, () => {
  it.each(cases)('$name', ({ name, input }) => {
    const got = fingerprint(simulate({ ...input, trace: true }));
    if (process.env.WHATIF_PRINT_PINNED) console.log(JSON.stringify({ [name]: got }));
    expect(got).toEqual(PINNED[name]);
  });

  it('gives the same results with reused scratch buffers (dirty from a larger run) as without', () => {
    const scratch = new WhatIfScratch();
    const summary = (r: ReturnType<typeof simulate>) => ({ ...fingerprint({ ...r, trace: { claimAt: new Float64Array(0), finishAt: new Float64Array(0), partition: new Int32Array(0), coordinator: new Int32Array(0) } }), trace: null });
    // the last stops 1 s after the window with a backlog: its unclaimed executions must not
    // read the claim times the run before left in the buffers
    const cut = { ...cases[5]!.input, horizonMs: 1000 };
    for (const input of [cases[1]!.input, cases[5]!.input, cases[0]!.input, cut]) {
      expect(summary(simulate({ ...input, scratch }))).toEqual(summary(simulate(input)));
    }
  });
});
