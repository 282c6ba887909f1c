import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { fitHandlerTimes, MIN_P99_SAMPLES, simulate, toArrivalColumns, type SimulationInput, type WhatIfArrival, type WhatIfTaskConfig } from './whatif-simulator';
import { thresholdsSchema } from './task-definition';
import { maxInAnyWindow } from './rate-limit';

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

  it.each<{ name: string; input: Partial<SimulationInput> & { arrivals: WhatIfArrival[] }; claimAt: number[] }>([
    {
      // T = 500 ms: the first starts (an idle scope is full), the rest one per T.
      name: 'task rate 2/s, burst 0: one start every 500 ms',
      input: { task: task({ rate: { limit: 2, per: 1000, burst: 0 } }), arrivals: [0, 0, 0, 0].map((at) => ({ at, runMs: 10 })) },
      claimAt: [0, 500, 1000, 1500],
    },
    {
      // burst 1: two at once, then the TAT (1000) − burst × T = 500, then every 500.
      name: 'task rate 2/s, burst 1: two at once, then one per 500 ms',
      input: { task: task({ rate: { limit: 2, per: 1000, burst: 1 } }), arrivals: [0, 0, 0, 0].map((at) => ({ at, runMs: 10 })) },
      claimAt: [0, 0, 500, 1000],
    },
    {
      // a: 1/s; b overridden to 2/s (T = 500). A rate-held key does not hold back another.
      name: 'per-key rate 1/s with an override of 2/s for b',
      input: {
        task: task({ groups: [{ ...tenant('tenant', 10), rate: { limit: 1, per: 1000, burst: 0, overrides: { b: { limit: 2 } } } }] }),
        arrivals: ['a', 'a', 'b', 'b', 'b'].map((k) => ({ at: 0, runMs: 10, keys: { tenant: k } })),
      },
      claimAt: [0, 1000, 0, 500, 1000],
    },
    {
      // 10/s (T = 100): a cost-5 row starts on any allowance and puts the key 500 ms in
      // debt; the next (cost 1) starts at 500, the one after at 600.
      name: 'rate cost: a costly row is admitted, then the key waits off its debt',
      input: {
        task: task({ groups: [{ ...tenant('tenant', 10), rate: { limit: 10, per: 1000, burst: 0, overrides: {} } }] }),
        arrivals: [5, 1, 1].map((cost) => ({ at: 0, runMs: 10, cost, keys: { tenant: 'a' } })),
      },
      claimAt: [0, 500, 600],
    },
    {
      // concurrency 1; #2 (priority 1, aging 1 s: claim key 20 − 1000) goes before the older #1 and #3.
      name: 'priority: a higher priority is claimed first among the ready',
      input: {
        task: task({ concurrency: 1, priority: { default: 0, agingMs: 1000 } }),
        arrivals: [
          { at: 0, runMs: 100 },
          { at: 10, runMs: 100 },
          { at: 20, runMs: 100, priority: 1 },
          { at: 30, runMs: 100 },
        ],
      },
      claimAt: [0, 200, 100, 300],
    },
    {
      // aging: #1 (priority 0, ready at 100) has waited 4.9 s when the slot frees, more
      // than one level (1 s): its claim key 100 beats #2's 2000 − 1000.
      name: 'priority ages: a long wait outranks a later higher priority',
      input: {
        task: task({ concurrency: 1, priority: { default: 0, agingMs: 1000 } }),
        arrivals: [
          { at: 0, runMs: 5000 },
          { at: 100, runMs: 100 },
          { at: 2000, runMs: 100, priority: 1 },
        ],
      },
      claimAt: [0, 5000, 5100],
    },
    {
      // Two keyless rows hold both slots until 100; then each freed slot goes to the key
      // furthest below its share (L = 2 ÷ 2; ties: the older head), not to the oldest row.
      name: 'fair share: equal weights split the slots between keys',
      input: {
        task: task({ concurrency: 2, order: 'fair', groups: [tenant('tenant', 10)] }),
        arrivals: [
          { at: 0, runMs: 100 },
          { at: 0, runMs: 100 },
          ...['a', 'a', 'a', 'a', 'b', 'b'].map((k) => ({ at: 1, runMs: 100, keys: { tenant: k } })),
        ],
      },
      claimAt: [0, 0, 100, 200, 300, 300, 100, 200],
    },
    {
      name: 'fifo on the same arrivals: oldest first',
      input: {
        task: task({ concurrency: 2, groups: [tenant('tenant', 10)] }),
        arrivals: [
          { at: 0, runMs: 100 },
          { at: 0, runMs: 100 },
          ...['a', 'a', 'a', 'a', 'b', 'b'].map((k) => ({ at: 1, runMs: 100, keys: { tenant: k } })),
        ],
      },
      claimAt: [0, 0, 100, 100, 200, 200, 300, 300],
    },
    {
      // weight 3 : 1 of 4 slots: L = 4 ÷ (3 + 1) = 1; a is taken while (r + 1) ÷ 3 ≤ b's
      // (0 + 1) ÷ 1 (ties: the older head), so each round is a, a, a, b.
      name: 'fair share: weights 3 : 1 give a three slots of four',
      input: {
        task: task({ concurrency: 4, order: 'fair', groups: [{ ...tenant('tenant', 10), weights: { a: 3 } }] }),
        arrivals: [
          ...[0, 0, 0, 0].map((at) => ({ at, runMs: 100 })),
          ...['a', 'a', 'a', 'a', 'a', 'a', 'b', 'b', 'b', 'b', 'b', 'b'].map((k) => ({ at: 1, runMs: 100, keys: { tenant: k } })),
        ],
      },
      claimAt: [0, 0, 0, 0, 100, 100, 100, 200, 200, 200, 100, 200, 300, 300, 300, 300],
    },
  ])('limits of issue #19: $name', ({ input, claimAt }) => {
    expect(claims(run(input))).toEqual(claimAt);
  });

  it('a rate wake-up that finds the slot spent waits for the next slot (parked rows are never lost)', () => {
    // tenant rate 1/s, burst 1 (T = 1 s); user limit 1. #0, #1 spend the burst at 0 (TAT 2000).
    // #2 (u2) and #3 (u5) are parked; the wake at 1000 releases #2, which waits on u2 (held
    // by #4 until 3030), so nothing is due for #3. At 3030 #4 and #5 finish: #2 starts with
    // allowance 1 (a wake is set for now: allowance 0 left) and #6 (waiting on u6) takes
    // that 0; the wake then finds −1 and waits for the next slot: TAT 5030 − T = 4030.
    const A = (at: number, t: string, u: string, runMs: number): WhatIfArrival => ({ at, runMs, keys: { tenant: t, user: u } });
    const r = run({
      task: task({ groups: [{ ...tenant('tenant', 10), rate: { limit: 1, per: 1000, burst: 1, overrides: {} } }, tenant('user', 1)] }),
      arrivals: [A(0, 'a', 'u1', 100), A(0, 'a', 'u4', 100), A(10, 'a', 'u2', 10), A(20, 'a', 'u5', 10), A(30, 'b', 'u2', 3000), A(40, 'b', 'u6', 2990), A(50, 'a', 'u6', 10)],
    });
    expect(claims(r)).toEqual([0, 0, 3030, 4030, 30, 40, 3030]);
    expect(r.finished).toBe(7);
  });

  it('hand-off latency: a freed slot is claimed handoffMs after the finish; finishes stay at claim + run', () => {
    const r = run({ task: task({ concurrency: 1 }), handoffMs: 5, arrivals: [0, 0, 0].map((at) => ({ at, runMs: 100 })) });
    expect(claims(r)).toEqual([0, 105, 210]);
    expect(Array.from(r.trace!.finishAt)).toEqual([100, 205, 310]);
    expect(() => run({ arrivals: [], handoffMs: -1 })).toThrow(/handoffMs/);
  });

  it('pick-up latency: a claim takes an execution pickupMs after it is ready; a freed slot waits for it', () => {
    // concurrency 1, pickup 20: #0 at 20; #1 (ready 0) when #0 frees at 120; #2 (ready 50,
    // claimable 70) at 220; #3 ready 310, claimable 330 though the slot is free from 320.
    const r = run({
      task: task({ concurrency: 1 }),
      pickupMs: 20,
      arrivals: [
        { at: 0, runMs: 100 },
        { at: 0, runMs: 100 },
        { at: 50, runMs: 100 },
        { at: 310, runMs: 10 },
      ],
    });
    expect(claims(r)).toEqual([20, 120, 220, 330]);
    expect(r.wait).toMatchObject({ count: 4, maxMs: 170 });
    expect(() => run({ arrivals: [], pickupMs: Number.NaN })).toThrow(/pickupMs/);
  });

  it('drawn hand-offs: each freed slot is claimed one of the samples after the finish (seeded)', () => {
    const input = { task: task({ concurrency: 1 }), handoffSamplesMs: [3, 50], arrivals: Array.from({ length: 40 }, () => ({ at: 0, runMs: 10 })) };
    const r = run(input);
    const gaps = new Set<number>();
    for (let i = 1; i < 40; i++) gaps.add(r.trace!.claimAt[i]! - r.trace!.finishAt[i - 1]!);
    expect([...gaps].sort((a, b) => a - b)).toEqual([3, 50]);
    // finishes stay at claim + run
    for (let i = 0; i < 40; i++) expect(r.trace!.finishAt[i]).toBe(r.trace!.claimAt[i]! + 10);
    expect(claims(run(input))).toEqual(claims(r));
    expect(claims(run({ ...input, seed: 2 }))).not.toEqual(claims(r));
    expect(() => run({ ...input, handoffSamplesMs: [1, -1] })).toThrow(/handoffSamplesMs\[1\]/);
  });

  it('drawn pick-ups: the rows that became ready together become claimable together, one draw per ready instant, in ready order', () => {
    // one sample: exactly pickupMs
    const ready = [0, 0, 10, 10, 10, 300].map((at) => ({ at, runMs: 5 }));
    expect(claims(run({ pickupSamplesMs: [7], arrivals: ready }))).toEqual([7, 7, 17, 17, 17, 307]);
    // two samples (0 or 40): each instant's rows share their draw, and a later instant never
    // becomes claimable before an earlier one
    const input = { pickupSamplesMs: [0, 40], arrivals: Array.from({ length: 40 }, (_, i) => ({ at: Math.floor(i / 2) * 100 + (i >= 20 ? 10 : 0), runMs: 1 })) };
    const c = claims(run(input));
    for (let i = 0; i < 40; i += 2) expect(c[i + 1]).toBe(c[i]);
    for (let i = 1; i < 40; i++) expect(c[i]!).toBeGreaterThanOrEqual(c[i - 1]!);
    // 100 ms apart, each instant's delay is its draw: both samples come up
    expect(new Set(c.slice(0, 20).map((x, i) => x - input.arrivals[i]!.at))).toEqual(new Set([0, 40]));
    expect(claims(run({ ...input, seed: 2 }))).not.toEqual(c);
    expect(() => run({ pickupSamplesMs: [1, -2], arrivals: ready })).toThrow(/pickupSamplesMs\[1\]/);
  });

  it('the completer: a finish waits for its batch — flushMs after the first, or until no other handler runs', () => {
    // concurrency 3, flushMs 5. #0 ends at 10 while #1 and #2 run: its batch waits for the
    // timer, written at 15, when #3 starts. #3 ends at 27 (timer set for 32); #1 and #2 end
    // at 30, and the last of them leaves nothing running: the batch (#3, #1, #2) goes out at
    // 30, not at 32.
    const arrivals = [10, 30, 30, 12].map((runMs) => ({ at: 0, runMs }));
    const r = run({ task: task({ concurrency: 3 }), completer: { flushMs: 5 }, arrivals });
    expect(claims(r)).toEqual([0, 0, 0, 15]);
    expect(Array.from(r.trace!.finishAt)).toEqual([15, 30, 30, 30]);
    // without the completer the slots free at claim + run
    const plain = run({ task: task({ concurrency: 3 }), arrivals });
    expect(claims(plain)).toEqual([0, 0, 0, 10]);
    expect(Array.from(plain.trace!.finishAt)).toEqual([10, 30, 30, 22]);
    // the only handler running: written the moment it ends; handlerMs replaces runMs
    expect(Array.from(run({ completer: { flushMs: 5 }, arrivals: [{ at: 0, runMs: 10 }] }).trace!.finishAt)).toEqual([10]);
    expect(Array.from(run({ completer: { flushMs: 5 }, handlerMs: [4], arrivals: [{ at: 0, runMs: 10 }] }).trace!.finishAt)).toEqual([4]);
    // a hand-off counts from the written finish
    expect(claims(run({ task: task({ concurrency: 3 }), completer: { flushMs: 5 }, handoffMs: 2, arrivals }))).toEqual([0, 0, 0, 17]);
    expect(() => run({ completer: { flushMs: -1 }, arrivals })).toThrow(/flushMs/);
    expect(() => run({ completer: { flushMs: 5 }, handlerMs: [1, 2], arrivals })).toThrow(/handlerMs has 2 entries/);
    expect(() => run({ completer: { flushMs: 5 }, handlerMs: [1, 2, Number.NaN, 4], arrivals })).toThrow(/handlerMs\[2\]/);
  });

  it('the completer: one drawn hand-off per written batch — its rows’ slots free together, as the one sluice_cycle that writes them claims once', () => {
    // Concurrency 2, two rows at a time every 100 ms, each pair's handlers end together and
    // are written as one batch; two more rows wait behind each pair. Drawn hand-offs of 1 or
    // 9 ms: the pair waiting behind a batch starts at one instant (the batch's draw), and
    // across 20 batches both draws come up. Drawn per row (before 2026-12-07), a batch's rows
    // freed their slots apart, so rows claimed in one engine cycle started apart in the
    // replay, and the batches after them split (bench:whatif's limit down, t0: the model's
    // mean run 0.8 ms long, its p99 8–19% high; docs/benchmarks.md, twentieth session).
    const arrivals: WhatIfArrival[] = [];
    for (let b = 0; b < 20; b++) for (let k = 0; k < 4; k++) arrivals.push({ at: b * 100, runMs: 10 });
    const r = run({ task: task({ concurrency: 2 }), completer: { flushMs: 5 }, handoffSamplesMs: [1, 9], arrivals });
    const c = claims(r);
    const gaps = new Set<number>();
    for (let b = 0; b < 20; b++) {
      const i = b * 4;
      expect(c[i + 1], `batch ${b}: first pair`).toBe(c[i]);
      expect(c[i + 3], `batch ${b}: the pair behind it starts together`).toBe(c[i + 2]);
      gaps.add(c[i + 2]! - r.trace!.finishAt[i]!);
    }
    expect(gaps).toEqual(new Set([1, 9]));
  });

  it('fitted handler times: one offset off the recorded run times, so the replay’s mean run time is the recording’s', () => {
    // What the engine recorded for the schedule above: run = finish − claim = 15, 30, 30, 15.
    const recorded = [15, 30, 30, 15].map((runMs) => ({ at: 0, runMs }));
    const input = { task: task({ concurrency: 3 }), coordinators: [100], seed: 1, completer: { flushMs: 5 }, arrivals: recorded };
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const replayRuns = (h?: Float64Array) => {
      const t = simulate({ ...input, ...(h ? { handlerMs: h } : {}), trace: true }).trace!;
      return recorded.map((_, i) => t.finishAt[i]! - t.claimAt[i]!);
    };
    // replayed with the recorded run times as handler times, the flush waits come on top:
    // the mean run comes out longer than recorded (26.25 against 22.5)
    expect(mean(replayRuns())).toBe(26.25);
    const handlerMs = fitHandlerTimes(input);
    // the same offset off every execution (the recorded spread is kept) …
    const offsets = recorded.map((r, i) => r.runMs - handlerMs[i]!);
    expect(offsets[0]!).toBeGreaterThan(2);
    for (const o of offsets) expect(o).toBeCloseTo(offsets[0]!, 9);
    // … that brings the replay's mean run time to the recording's (22.5 ms) within 1 ms
    expect(Math.abs(mean(replayRuns(handlerMs)) - 22.5)).toBeLessThan(1);
    // never below zero
    expect(Array.from(fitHandlerTimes({ ...input, arrivals: [{ at: 0, runMs: 0 }, { at: 0, runMs: 40 }] })).every((h) => h >= 0)).toBe(true);
  });

  it('reads arrivals as columns exactly as objects', () => {
    const arrivals: WhatIfArrival[] = Array.from({ length: 300 }, (_, i) => ({
      at: i * 3,
      runMs: (i * 37) % 50,
      partition: i % 2,
      keys: { tenant: `t${i % 3}`, user: `u${i % 7}` },
      ...(i % 5 === 0 ? { stream: `s${i % 2}` } : {}),
      priority: i % 4 === 0 ? 2 : 0,
      cost: 1 + (i % 2),
    }));
    const input = {
      task: task({ partitions: 2, concurrency: 4, priority: { default: 0, agingMs: 50 }, groups: [{ ...tenant('tenant', 2), rate: { limit: 20, per: 1000, burst: 2, overrides: {} } }, tenant('user', 1)] }),
      coordinators: [2, 3],
      recorded: { partitions: 2, strategy: 'round-robin' as const },
    };
    const a = run({ ...input, arrivals });
    const b = simulate({ ...input, arrivals: toArrivalColumns(arrivals), seed: 1, trace: true });
    expect(Array.from(b.trace!.claimAt)).toEqual(Array.from(a.trace!.claimAt));
    expect(b.keyWaits).toEqual(a.keyWaits);
  });

  it('says when a key has too few waits for its p99 to be a percentile', () => {
    const arrivals: WhatIfArrival[] = Array.from({ length: MIN_P99_SAMPLES + 20 }, (_, i) => ({ at: i, runMs: 1, keys: { tenant: i < 20 ? 'small' : 'big' } }));
    const r = run({ task: task({ groups: [tenant('tenant', 5)] }), arrivals });
    expect(r.keyWaits.find((k) => k.key === 'small')).toMatchObject({ count: 20, p99FewSamples: true });
    expect(r.keyWaits.find((k) => k.key === 'big')).toMatchObject({ count: MIN_P99_SAMPLES, p99FewSamples: false });
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
    // Rate limits (integer emission intervals T, so start times stay whole numbers and the
    // window count is exact): the task's and group a's per key (override for x).
    taskRate: fc.option(fc.record({ t: fc.integer({ min: 1, max: 20 }), limit: fc.integer({ min: 1, max: 4 }), burst: fc.integer({ min: 0, max: 2 }) }), { nil: undefined }),
    keyRate: fc.option(fc.record({ t: fc.integer({ min: 1, max: 30 }), limit: fc.integer({ min: 1, max: 3 }), burst: fc.integer({ min: 0, max: 2 }), tx: fc.integer({ min: 1, max: 30 }) }), { nil: undefined }),
    fair: fc.boolean(),
    agingMs: fc.integer({ min: 1, max: 100 }),
    flushMs: fc.option(fc.integer({ min: 0, max: 20 }), { nil: undefined }),
    arrivals: fc.array(
      fc.record({
        at: fc.integer({ min: 0, max: 200 }),
        runMs: fc.integer({ min: 0, max: 60 }),
        a: fc.option(fc.constantFrom('x', 'y', 'z'), { nil: undefined }),
        b: fc.option(fc.constantFrom('1', '2'), { nil: undefined }),
        stream: fc.option(fc.constantFrom('s1', 's2'), { nil: undefined }),
        priority: fc.integer({ min: 0, max: 3 }),
      }),
      { maxLength: 60 },
    ),
    seed: fc.integer(),
  });

  it('holds task concurrency, coordinator slots, group limits (overrides too), rate limits and stream order, fifo or fair, with priorities', () => {
    fc.assert(
      fc.property(arb, (c) => {
        const keyRate = c.keyRate
          ? { limit: c.keyRate.limit, per: c.keyRate.t * c.keyRate.limit, burst: c.keyRate.burst, overrides: { x: { per: c.keyRate.tx * c.keyRate.limit } } }
          : undefined;
        const groups = [{ ...tenant('a', c.limitA, { x: c.override }), ...(keyRate ? { rate: keyRate } : {}) }, tenant('b', c.limitB)];
        const taskRate = c.taskRate ? { limit: c.taskRate.limit, per: c.taskRate.t * c.taskRate.limit, burst: c.taskRate.burst } : undefined;
        const arrivals: WhatIfArrival[] = [...c.arrivals]
          .sort((p, q) => p.at - q.at)
          .map((x) => {
            const keys: Record<string, string> = {};
            if (x.a) keys.a = x.a;
            if (x.b) keys.b = x.b;
            return { at: x.at, runMs: x.runMs, keys, ...(x.stream ? { stream: x.stream } : {}), routingKey: x.a ?? 'none', priority: x.priority };
          });
        const owners = Array.from({ length: c.partitions }, (_, p) => p % c.coordinators.length);
        const r = simulate({
          task: task({
            partitions: c.partitions,
            concurrency: c.concurrency,
            routing: c.strategy === 'hash' ? { strategy: 'hash', keyPath: 'k' } : { strategy: c.strategy },
            groups,
            ...(taskRate ? { rate: taskRate } : {}),
            ...(c.fair ? { order: 'fair' as const } : {}),
            priority: { default: 0, agingMs: c.agingMs },
          }),
          arrivals,
          coordinators: c.coordinators,
          owners,
          seed: c.seed,
          trace: true,
          ...(c.flushMs !== undefined ? { completer: { flushMs: c.flushMs } } : {}),
        });
        const t = r.trace!;
        // Everything runs (no deadlock) and nothing starts before it is ready; a finish is
        // written when the handler ends, or with the completer up to flushMs later.
        arrivals.forEach((a, i) => {
          expect(t.claimAt[i]).toBeGreaterThanOrEqual(a.at);
          if (c.flushMs === undefined) expect(t.finishAt[i]).toBe(t.claimAt[i]! + a.runMs);
          else {
            expect(t.finishAt[i]).toBeGreaterThanOrEqual(t.claimAt[i]! + a.runMs);
            expect(t.finishAt[i]).toBeLessThanOrEqual(t.claimAt[i]! + a.runMs + c.flushMs);
          }
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
        // Rates: in any window of `per` no more than limit + burst starts (rate-limit.ts' bound).
        const startsOf = (pick: (a: WhatIfArrival) => boolean) =>
          arrivals.flatMap((a, i) => (pick(a) ? [t.claimAt[i]!] : [])).sort((p, q) => p - q);
        if (taskRate) expect(maxInAnyWindow(startsOf(() => true), taskRate.per)).toBeLessThanOrEqual(taskRate.limit + taskRate.burst);
        if (keyRate) {
          for (const k of ['x', 'y', 'z']) {
            const per = k === 'x' ? keyRate.overrides.x.per : keyRate.per;
            expect(maxInAnyWindow(startsOf((a) => a.keys?.a === k), per)).toBeLessThanOrEqual(keyRate.limit + keyRate.burst);
          }
        }
      }),
      { numRuns: 300, seed: 20 },
    );
  });
});
