import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { simulate, type SimulationInput, type WhatIfArrival, type WhatIfTaskConfig } from './whatif-simulator';
import { thresholdsSchema } from './task-definition';

const thresholds = thresholdsSchema.parse(undefined);
const task = (over: Partial<WhatIfTaskConfig> = {}): WhatIfTaskConfig => ({
  name: 't',
  partitions: 1,
  concurrency: 10,
  routing: { strategy: 'round-robin' },
  groups: [],
  thresholds,
  ...over,
});
const run = (input: Partial<SimulationInput> & { arrivals: WhatIfArrival[] }) =>
  simulate({ task: task(), coordinators: [100], seed: 1, trace: true, ...input });
const claims = (r: ReturnType<typeof simulate>) => Array.from(r.trace!.claimAt);
const tenant = (name: string, limit: number, overrides: Record<string, number> = {}) => ({ name, limit, overrides });

describe('simulate: hand-computed schedules', () => {
  it.each<{ name: string; input: Partial<SimulationInput> & { arrivals: WhatIfArrival[] }; claimAt: number[] }>([
    {
      name: 'task concurrency 2: the third waits for the first finish',
      input: { task: task({ concurrency: 2 }), arrivals: [0, 0, 0].map((at) => ({ at, runMs: 100 })) },
      claimAt: [0, 0, 100],
    },
    {
      name: 'coordinator slots bound each coordinator (2 × 1 slot, 2 partitions round-robin)',
      input: { task: task({ partitions: 2 }), coordinators: [1, 1], arrivals: [0, 0, 0, 0].map((at) => ({ at, runMs: 10 })) },
      claimAt: [0, 0, 10, 10],
    },
    {
      // Cluster-wide: one at a time. The finishing coordinator refills first from its own
      // partitions (the engine's finish-and-claim), so #2 (partition 0) runs before #1.
      name: 'task concurrency is cluster-wide across coordinators; the finisher refills first',
      input: { task: task({ partitions: 2, concurrency: 1 }), coordinators: [5, 5], arrivals: [0, 0, 0].map((at) => ({ at, runMs: 10 })) },
      claimAt: [0, 20, 10],
    },
    {
      name: 'group limit 1 with an override of 2 for acme',
      input: {
        task: task({ groups: [tenant('tenant', 1, { acme: 2 })] }),
        arrivals: ['acme', 'acme', 'acme', 'globex', 'globex'].map((k) => ({ at: 0, runMs: 100, keys: { tenant: k } })),
      },
      claimAt: [0, 0, 100, 0, 100],
    },
    {
      name: 'no head-of-line blocking: a saturated key does not hold back a later one',
      input: {
        task: task({ groups: [tenant('tenant', 1)] }),
        arrivals: [
          { at: 0, runMs: 100, keys: { tenant: 'a' } },
          { at: 1, runMs: 100, keys: { tenant: 'a' } },
          { at: 2, runMs: 100, keys: { tenant: 'b' } },
        ],
      },
      claimAt: [0, 100, 2],
    },
    {
      name: 'all or nothing across two groups: the key with room waits for the full one',
      input: {
        task: task({ groups: [tenant('tenant', 5), tenant('user', 1)] }),
        arrivals: [
          { at: 0, runMs: 50, keys: { tenant: 'a', user: 'u1' } },
          { at: 0, runMs: 50, keys: { tenant: 'a', user: 'u1' } },
          { at: 0, runMs: 50, keys: { tenant: 'a', user: 'u2' } },
        ],
      },
      claimAt: [0, 50, 0],
    },
    {
      name: 'a key for a group the config does not declare does not constrain',
      input: { task: task({ groups: [] }), arrivals: [0, 0].map((at) => ({ at, runMs: 10, keys: { tenant: 'a' } })) },
      claimAt: [0, 0],
    },
    {
      name: 'streams run one at a time in arrival order; other work is not held',
      input: {
        arrivals: [
          { at: 0, runMs: 50, stream: 's' },
          { at: 0, runMs: 30, stream: 's' },
          { at: 0, runMs: 10, stream: 's' },
          { at: 5, runMs: 10 },
        ],
      },
      claimAt: [0, 50, 80, 5],
    },
    {
      name: 'released waiting rows are claimed oldest first',
      input: {
        task: task({ concurrency: 10, groups: [tenant('tenant', 1)] }),
        arrivals: [
          { at: 0, runMs: 10, keys: { tenant: 'a' } },
          { at: 1, runMs: 10, keys: { tenant: 'a' } },
          { at: 2, runMs: 10, keys: { tenant: 'a' } },
        ],
      },
      claimAt: [0, 10, 20],
    },
  ])('$name', ({ input, claimAt }) => {
    expect(claims(run(input))).toEqual(claimAt);
  });

  it('reports waits per key, depth over time, throughput and drain time', () => {
    // concurrency 1, four executions of 10 s at 0: claims 0, 10, 20, 30 s.
    const r = run({
      task: task({ concurrency: 1, groups: [tenant('tenant', 10)] }),
      arrivals: [0, 0, 0, 0].map((at, i) => ({ at, runMs: 10_000, keys: { tenant: i < 3 ? 'a' : 'b' } })),
      durationMs: 15_000,
    });
    expect(r.wait).toEqual({ count: 4, p50Ms: 10_000, p99Ms: 30_000, maxMs: 30_000 });
    expect(r.keyWaits.map((k) => [k.key, k.count, k.p50WaitMs, k.p99WaitMs])).toEqual([
      ['b', 1, 30_000, 30_000],
      ['a', 3, 10_000, 20_000],
    ]);
    // t = 15 s: two queued (claimed at 20 s and 30 s); window ends at 15 s: 1 finished.
    expect(r.depth.at[0]).toBe(15_000);
    expect(r.depth.byPartition[0]![0]).toBe(2);
    expect(r.backlogAtEnd).toBe(2);
    expect(r.drainMs).toBe(30_000 - 15_000);
    expect(r.throughputPerS).toBeCloseTo(1 / 15, 6);
    expect(r.finished).toBe(4);
  });

  it('uses the recorded partition while routing is unchanged, and re-routes when it changes', () => {
    const arrivals: WhatIfArrival[] = [0, 0, 0, 0].map((at) => ({ at, runMs: 1, partition: 1 }));
    const same = run({ task: task({ partitions: 2 }), arrivals, recorded: { partitions: 2, strategy: 'round-robin' } });
    expect(Array.from(same.trace!.partition)).toEqual([1, 1, 1, 1]);
    const more = run({ task: task({ partitions: 4 }), arrivals, recorded: { partitions: 2, strategy: 'round-robin' } });
    expect(Array.from(more.trace!.partition)).toEqual([0, 1, 2, 3]);
  });

  it('fires the alert rules the evaluator would (depth critical, alertAfterMs 0)', () => {
    const r = run({
      task: task({ concurrency: 1, thresholds: { ...thresholds, depth: { warning: 1, critical: 2 }, alertAfterMs: 0 } }),
      arrivals: [0, 0, 0, 0, 0].map((at) => ({ at, runMs: 60_000 })),
    });
    const depth = r.alerts.find((a) => a.rule === 'depth');
    expect(depth).toMatchObject({ severity: 'critical', firstFiredAt: 15_000, peakValue: 4 });
    // Nothing waits long enough for the wait rule (30 s warning) before it is seen at 30 s.
    expect(r.alerts.find((a) => a.rule === 'waitP99Ms')?.firstFiredAt).toBeGreaterThanOrEqual(30_000);
  });

  it('is deterministic for a seed (random routing)', () => {
    const arrivals: WhatIfArrival[] = Array.from({ length: 200 }, (_, i) => ({ at: i, runMs: 5 }));
    const input = { task: task({ partitions: 8, routing: { strategy: 'random' as const } }), arrivals };
    const a = run({ ...input, seed: 7 });
    const b = run({ ...input, seed: 7 });
    const c = run({ ...input, seed: 8 });
    expect(Array.from(a.trace!.partition)).toEqual(Array.from(b.trace!.partition));
    expect(Array.from(a.trace!.partition)).not.toEqual(Array.from(c.trace!.partition));
  });

  it('refuses unsorted arrivals and bad coordinators', () => {
    expect(() => run({ arrivals: [{ at: 5, runMs: 1 }, { at: 1, runMs: 1 }] })).toThrow(/sorted/);
    expect(() => run({ arrivals: [], coordinators: [] })).toThrow(/coordinator/);
    expect(() => run({ arrivals: [], coordinators: [0] })).toThrow(/slots/);
  });
});

describe('simulate: never runs more than a limit allows (property)', () => {
  const arb = fc.record({
    partitions: fc.integer({ min: 1, max: 4 }),
    concurrency: fc.integer({ min: 1, max: 6 }),
    strategy: fc.constantFrom('round-robin' as const, 'random' as const, 'least-loaded' as const, 'hash' as const),
    coordinators: fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 1, maxLength: 3 }),
    limitA: fc.integer({ min: 1, max: 3 }),
    limitB: fc.integer({ min: 1, max: 3 }),
    override: fc.integer({ min: 1, max: 4 }),
    arrivals: fc.array(
      fc.record({
        at: fc.integer({ min: 0, max: 200 }),
        runMs: fc.integer({ min: 0, max: 60 }),
        a: fc.option(fc.constantFrom('x', 'y', 'z'), { nil: undefined }),
        b: fc.option(fc.constantFrom('1', '2'), { nil: undefined }),
        stream: fc.option(fc.constantFrom('s1', 's2'), { nil: undefined }),
      }),
      { maxLength: 60 },
    ),
    seed: fc.integer(),
  });

  it('holds task concurrency, coordinator slots, group limits (overrides too) and stream order', () => {
    fc.assert(
      fc.property(arb, (c) => {
        const groups = [tenant('a', c.limitA, { x: c.override }), tenant('b', c.limitB)];
        const arrivals: WhatIfArrival[] = [...c.arrivals]
          .sort((p, q) => p.at - q.at)
          .map((x) => {
            const keys: Record<string, string> = {};
            if (x.a) keys.a = x.a;
            if (x.b) keys.b = x.b;
            return { at: x.at, runMs: x.runMs, keys, ...(x.stream ? { stream: x.stream } : {}), routingKey: x.a ?? 'none' };
          });
        const owners = Array.from({ length: c.partitions }, (_, p) => p % c.coordinators.length);
        const r = simulate({
          task: task({ partitions: c.partitions, concurrency: c.concurrency, routing: c.strategy === 'hash' ? { strategy: 'hash', keyPath: 'k' } : { strategy: c.strategy }, groups }),
          arrivals,
          coordinators: c.coordinators,
          owners,
          seed: c.seed,
          trace: true,
        });
        const t = r.trace!;
        // Everything runs (no deadlock) and nothing starts before it is ready.
        arrivals.forEach((a, i) => {
          expect(t.claimAt[i]).toBeGreaterThanOrEqual(a.at);
          expect(t.finishAt[i]).toBe(t.claimAt[i]! + a.runMs);
          expect(owners[t.partition[i]!]).toBe(t.coordinator[i]);
        });
        // Sweep: finishes before starts at the same instant (a slot is freed, then reused).
        const events = arrivals.flatMap((_, i) => [
          { at: t.finishAt[i]!, d: -1, i },
          { at: t.claimAt[i]!, d: +1, i },
        ]);
        events.sort((p, q) => p.at - q.at || p.d - q.d);
        const count = new Map<string, number>();
        const bump = (k: string, d: number, max: number) => {
          const v = (count.get(k) ?? 0) + d;
          count.set(k, v);
          if (v > max) throw new Error(`${k} ran ${v} at once, limit ${max}`);
        };
        for (const e of events) {
          const a = arrivals[e.i]!;
          bump('task', e.d, c.concurrency);
          bump(`coord:${t.coordinator[e.i]}`, e.d, c.coordinators[t.coordinator[e.i]!]!);
          if (a.keys?.a) bump(`a:${a.keys.a}`, e.d, a.keys.a === 'x' ? c.override : c.limitA);
          if (a.keys?.b) bump(`b:${a.keys.b}`, e.d, c.limitB);
          if (a.stream) bump(`stream:${a.stream}`, e.d, 1);
        }
        // Stream order: claims of one stream follow arrival order.
        for (const s of ['s1', 's2']) {
          const idx = arrivals.map((a, i) => (a.stream === s ? i : -1)).filter((i) => i >= 0);
          for (let k = 1; k < idx.length; k++) expect(t.claimAt[idx[k]!]).toBeGreaterThanOrEqual(t.finishAt[idx[k - 1]!]!);
        }
        expect(r.peaks.running).toBeLessThanOrEqual(c.concurrency);
      }),
      { numRuns: 300, seed: 20 },
    );
  });
});
