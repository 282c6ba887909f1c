import { describe, expect, it } from 'vitest';
import { decideBackpressure, spillDrainCount, stochasticRound, type BackpressureInput } from './backpressure';
import { mulberry32, sequenceRandom } from './seeded-random';

const noRand = () => {
  throw new Error('rand must not be called');
};
const base: BackpressureInput = {
  policy: 'reject',
  maxDepth: 100,
  depth: 0,
  incoming: 1,
  shedPercent: 50,
  throttleDelayMs: 100,
  throttleMaxDelayMs: 5000,
  retryAfterMs: 1000,
  rand: noRand,
};
const ok = (accept: number) => ({ accept, reject: 0, shed: 0, spill: 0, delayMs: 0 });

describe('decideBackpressure', () => {
  it.each<{ name: string; input: Partial<BackpressureInput>; expected: ReturnType<typeof decideBackpressure> }>([
    // under the limit: every policy accepts everything
    { name: 'reject, room', input: { policy: 'reject', depth: 10, incoming: 5 }, expected: ok(5) },
    { name: 'throttle, room', input: { policy: 'throttle', depth: 10, incoming: 5 }, expected: ok(5) },
    { name: 'shed, room', input: { policy: 'shed', depth: 10, incoming: 5 }, expected: ok(5) },
    { name: 'spill, room', input: { policy: 'spill', depth: 10, incoming: 5 }, expected: ok(5) },
    { name: 'nothing incoming', input: { policy: 'reject', depth: 500, incoming: 0 }, expected: ok(0) },
    // exactly filling to maxDepth is fine
    { name: 'reject, fills exactly', input: { policy: 'reject', depth: 99, incoming: 1 }, expected: ok(1) },
    { name: 'throttle, fills exactly', input: { policy: 'throttle', depth: 90, incoming: 10 }, expected: ok(10) },
    // reject
    { name: 'reject, at maxDepth', input: { policy: 'reject', depth: 100, incoming: 1 }, expected: { accept: 0, reject: 1, shed: 0, spill: 0, delayMs: 0, retryAfterMs: 1000 } },
    { name: 'reject, partial', input: { policy: 'reject', depth: 97, incoming: 5 }, expected: { accept: 3, reject: 2, shed: 0, spill: 0, delayMs: 0, retryAfterMs: 1000 } },
    { name: 'reject, above maxDepth already', input: { policy: 'reject', depth: 150, incoming: 4, retryAfterMs: 2500 }, expected: { accept: 0, reject: 4, shed: 0, spill: 0, delayMs: 0, retryAfterMs: 2500 } },
    { name: 'reject, maxDepth 1', input: { policy: 'reject', maxDepth: 1, depth: 0, incoming: 2 }, expected: { accept: 1, reject: 1, shed: 0, spill: 0, delayMs: 0, retryAfterMs: 1000 } },
    // throttle: delay = min(max, perExec × (depth + incoming − maxDepth))
    { name: 'throttle, 1 beyond', input: { policy: 'throttle', depth: 100, incoming: 1 }, expected: { ...ok(1), delayMs: 100 } },
    { name: 'throttle, 7 beyond', input: { policy: 'throttle', depth: 98, incoming: 9 }, expected: { ...ok(9), delayMs: 700 } },
    { name: 'throttle, exactly at the cap', input: { policy: 'throttle', depth: 149, incoming: 1 }, expected: { ...ok(1), delayMs: 5000 } },
    { name: 'throttle, capped', input: { policy: 'throttle', depth: 10_000, incoming: 3 }, expected: { ...ok(3), delayMs: 5000 } },
    { name: 'throttle, zero delay configured', input: { policy: 'throttle', depth: 200, incoming: 3, throttleDelayMs: 0 }, expected: ok(3) },
    { name: 'throttle, zero cap', input: { policy: 'throttle', depth: 200, incoming: 3, throttleMaxDelayMs: 0 }, expected: ok(3) },
    // shed: overflow × pct, stochastically rounded
    { name: 'shed 50% of 10, even', input: { policy: 'shed', depth: 100, incoming: 10 }, expected: { accept: 5, reject: 0, shed: 5, spill: 0, delayMs: 0 } },
    { name: 'shed 50% of overflow only', input: { policy: 'shed', depth: 96, incoming: 10 }, expected: { accept: 7, reject: 0, shed: 3, spill: 0, delayMs: 0 } },
    { name: 'shed 100%', input: { policy: 'shed', depth: 100, incoming: 4, shedPercent: 100 }, expected: { accept: 0, reject: 0, shed: 4, spill: 0, delayMs: 0 } },
    { name: 'shed 0%', input: { policy: 'shed', depth: 100, incoming: 4, shedPercent: 0 }, expected: ok(4) },
    { name: 'shed 50% of 1, draw below .5', input: { policy: 'shed', depth: 100, incoming: 1, rand: () => 0.49 }, expected: { accept: 0, reject: 0, shed: 1, spill: 0, delayMs: 0 } },
    { name: 'shed 50% of 1, draw at .5', input: { policy: 'shed', depth: 100, incoming: 1, rand: () => 0.5 }, expected: ok(1) },
    { name: 'shed 25% of 3 = 0.75, draw .7', input: { policy: 'shed', depth: 100, incoming: 3, shedPercent: 25, rand: () => 0.7 }, expected: { accept: 2, reject: 0, shed: 1, spill: 0, delayMs: 0 } },
    { name: 'shed 25% of 3 = 0.75, draw .8', input: { policy: 'shed', depth: 100, incoming: 3, shedPercent: 25, rand: () => 0.8 }, expected: ok(3) },
    // spill
    { name: 'spill, partial', input: { policy: 'spill', depth: 98, incoming: 5 }, expected: { accept: 2, reject: 0, shed: 0, spill: 3, delayMs: 0 } },
    { name: 'spill, full', input: { policy: 'spill', depth: 100, incoming: 5 }, expected: { accept: 0, reject: 0, shed: 0, spill: 5, delayMs: 0 } },
    { name: 'spill, room but others parked', input: { policy: 'spill', depth: 10, incoming: 5, spilled: 3 }, expected: { accept: 0, reject: 0, shed: 0, spill: 5, delayMs: 0 } },
    { name: 'spill, nothing parked', input: { policy: 'spill', depth: 10, incoming: 5, spilled: 0 }, expected: ok(5) },
    { name: 'spilled ignored by reject', input: { policy: 'reject', depth: 10, incoming: 5, spilled: 3 }, expected: ok(5) },
  ])('$name', ({ input, expected }) => {
    const d = decideBackpressure({ ...base, ...input });
    expect(d).toEqual(expected);
    expect(d.accept + d.reject + d.shed + d.spill).toBe(input.incoming ?? base.incoming);
  });

  it('shed drops the configured share on average, one execution at a time', () => {
    const rand = mulberry32(3);
    let shed = 0;
    for (let i = 0; i < 10_000; i++) shed += decideBackpressure({ ...base, policy: 'shed', depth: 100, incoming: 1, shedPercent: 30, rand }).shed;
    expect(shed).toBeGreaterThan(2800);
    expect(shed).toBeLessThan(3200);
  });

  it.each<{ input: Partial<BackpressureInput>; error: string }>([
    { input: { maxDepth: 0 }, error: 'maxDepth must be an integer ≥ 1, got 0' },
    { input: { depth: -1 }, error: 'depth must be a non-negative integer, got -1' },
    { input: { incoming: 1.5 }, error: 'incoming must be a non-negative integer, got 1.5' },
    { input: { spilled: -2 }, error: 'spilled must be a non-negative integer, got -2' },
    { input: { policy: 'drop' as never }, error: 'unknown backpressure policy "drop"' },
  ])('refuses $input', ({ input, error }) => {
    expect(() => decideBackpressure({ ...base, ...input })).toThrow(error);
  });
});

describe('stochasticRound', () => {
  it.each([
    { x: 0, draws: [], expected: 0 },
    { x: 3, draws: [], expected: 3 },
    { x: 2.25, draws: [0.2], expected: 3 },
    { x: 2.25, draws: [0.25], expected: 2 },
    { x: 0.5, draws: [0.99], expected: 0 },
  ])('$x with draws $draws → $expected', ({ x, draws, expected }) => {
    expect(stochasticRound(x, sequenceRandom(draws))).toBe(expected);
  });
});

describe('spillDrainCount (refill to 80% of maxDepth)', () => {
  it.each([
    { depth: 0, maxDepth: 100, spilled: 500, expected: 80 },
    { depth: 0, maxDepth: 100, spilled: 30, expected: 30 },
    { depth: 79, maxDepth: 100, spilled: 500, expected: 1 },
    { depth: 80, maxDepth: 100, spilled: 500, expected: 0 },
    { depth: 95, maxDepth: 100, spilled: 500, expected: 0 },
    { depth: 250, maxDepth: 100, spilled: 500, expected: 0 },
    { depth: 10, maxDepth: 100, spilled: 0, expected: 0 },
    { depth: 0, maxDepth: 1, spilled: 5, expected: 1 }, // low water is at least 1
    { depth: 1, maxDepth: 1, spilled: 5, expected: 0 },
    { depth: 0, maxDepth: 3, spilled: 5, expected: 2 }, // floor(2.4)
  ])('depth $depth / max $maxDepth with $spilled spilled → $expected', ({ depth, maxDepth, spilled, expected }) => {
    expect(spillDrainCount(depth, maxDepth, spilled)).toBe(expected);
  });
  it.each([
    { depth: 0, maxDepth: 0, spilled: 1, error: 'maxDepth must be an integer ≥ 1' },
    { depth: -1, maxDepth: 10, spilled: 1, error: 'depth must be a non-negative integer' },
    { depth: 0, maxDepth: 10, spilled: -1, error: 'spilled must be a non-negative integer' },
  ])('refuses depth $depth / max $maxDepth / spilled $spilled', ({ depth, maxDepth, spilled, error }) => {
    expect(() => spillDrainCount(depth, maxDepth, spilled)).toThrow(error);
  });
});
