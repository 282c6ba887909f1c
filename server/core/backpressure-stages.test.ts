import { describe, expect, it } from 'vitest';
import { decideStaged, stageLines, stageOf, type BackpressureStage } from './backpressure-stages';
import type { TaskDefinition } from './task-definition';

type Bp = TaskDefinition['backpressure'];
const bp = (o: Partial<Bp> = {}): Bp => ({
  maxDepth: 100, policy: 'reject', retryAfterMs: 1000, throttleDelayMs: 10, throttleMaxDelayMs: 500, shedPercent: 100,
  stages: { throttleAtPercent: 80, policyAtPercent: 95 }, ...o,
});
const noRand = () => 0;

describe('stage lines', () => {
  it.each<[string, Partial<Bp>, number, number]>([
    ['80% / 95% of 100', {}, 80, 95],
    ['rounded up: 80% / 95% of 7', { maxDepth: 7 }, 6, 7],
    ['no stages: both at maxDepth', { stages: undefined }, 100, 100],
    ['tiny maxDepth never gives a line below 1', { maxDepth: 1, stages: { throttleAtPercent: 1, policyAtPercent: 2 } }, 1, 1],
  ])('%s', (_n, o, throttleLine, policyLine) => {
    expect(stageLines(bp(o))).toEqual({ throttleLine, policyLine });
  });

  it.each<[number, BackpressureStage]>([
    [0, 'normal'], [79, 'normal'], [80, 'throttle'], [94, 'throttle'], [95, 'policy'], [1000, 'policy'],
  ])('depth %i is %s', (d, s) => expect(stageOf(d, stageLines(bp()))).toBe(s));

  it('without stages there is no throttle stage', () => {
    const lines = stageLines(bp({ stages: undefined }));
    expect([stageOf(99, lines), stageOf(100, lines)]).toEqual(['normal', 'policy']);
  });
});

describe('decideStaged: one arrival at each depth (maxDepth 100, throttle from 80%, policy from 95%)', () => {
  it.each<{ depth: number; policy: Bp['policy']; accept: number; reject: number; shed: number; spill: number; delayMs: number; retryAfterMs?: number; met: BackpressureStage }>([
    { depth: 0, policy: 'reject', accept: 1, reject: 0, shed: 0, spill: 0, delayMs: 0, met: 'normal' },
    { depth: 79, policy: 'reject', accept: 1, reject: 0, shed: 0, spill: 0, delayMs: 0, met: 'normal' },
    // the 81st lands one past the throttle line: delayed 10 ms, told to come back in 1 s
    { depth: 80, policy: 'reject', accept: 1, reject: 0, shed: 0, spill: 0, delayMs: 10, retryAfterMs: 1000, met: 'throttle' },
    { depth: 94, policy: 'reject', accept: 1, reject: 0, shed: 0, spill: 0, delayMs: 150, retryAfterMs: 1000, met: 'throttle' },
    // the 96th is past the policy line: the policy answers
    { depth: 95, policy: 'reject', accept: 0, reject: 1, shed: 0, spill: 0, delayMs: 0, retryAfterMs: 1000, met: 'policy' },
    { depth: 95, policy: 'shed', accept: 0, reject: 0, shed: 1, spill: 0, delayMs: 0, met: 'policy' },
    { depth: 95, policy: 'spill', accept: 0, reject: 0, shed: 0, spill: 1, delayMs: 0, met: 'policy' },
  ])('depth $depth, $policy → accept $accept reject $reject shed $shed spill $spill, $delayMs ms', ({ depth, policy, met, ...want }) => {
    const d = decideStaged({ bp: bp({ policy }), depth, incoming: 1, rand: noRand });
    expect({ accept: d.accept, reject: d.reject, shed: d.shed, spill: d.spill, delayMs: d.delayMs, retryAfterMs: d.retryAfterMs }).toEqual({ retryAfterMs: undefined, ...want });
    expect(d.met).toBe(met);
  });
});

describe('decideStaged: batches across the lines', () => {
  it('a batch of 20 at depth 70: 25 fit below the policy line, 15 of them past the throttle line', () => {
    const d = decideStaged({ bp: bp(), depth: 70, incoming: 20, rand: noRand });
    expect(d).toMatchObject({ accept: 20, reject: 0, throttled: 10, delayMs: 100, met: 'throttle', after: 'throttle' });
  });

  it('a batch crossing the policy line under reject: the whole overflow is rejected', () => {
    const d = decideStaged({ bp: bp(), depth: 90, incoming: 10, rand: noRand });
    expect(d).toMatchObject({ accept: 5, reject: 5, throttled: 0, met: 'policy', after: 'policy' });
  });

  it('the throttle delay is capped by throttleMaxDelayMs', () => {
    const d = decideStaged({ bp: bp({ maxDepth: 10_000, throttleMaxDelayMs: 300 }), depth: 8000, incoming: 100, rand: noRand });
    expect(d.delayMs).toBe(300);
  });

  it('policy throttle past the policy line: the larger of the two delays', () => {
    const d = decideStaged({ bp: bp({ policy: 'throttle', throttleMaxDelayMs: 10_000 }), depth: 99, incoming: 1, rand: noRand });
    // stage: 15 past the throttle line (capped at the policy line) → 150; policy: 5 past 95 → 50
    expect(d).toMatchObject({ accept: 1, delayMs: 150, met: 'policy' });
  });

  it('without stages: exactly the single-stage policy at maxDepth', () => {
    const d = decideStaged({ bp: bp({ stages: undefined }), depth: 95, incoming: 10, rand: noRand });
    expect(d).toMatchObject({ accept: 5, reject: 5, delayMs: 0, throttled: 0, met: 'policy' });
    expect(decideStaged({ bp: bp({ stages: undefined }), depth: 90, incoming: 1, rand: noRand })).toMatchObject({ accept: 1, delayMs: 0, met: 'normal', after: 'normal' });
  });

  it('after: the stage once the accepted are in', () => {
    expect(decideStaged({ bp: bp(), depth: 79, incoming: 1, rand: noRand }).after).toBe('throttle');
    expect(decideStaged({ bp: bp(), depth: 78, incoming: 1, rand: noRand }).after).toBe('normal');
  });
});
