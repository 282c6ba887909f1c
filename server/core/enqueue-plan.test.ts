import { describe, it, expect } from 'vitest';
import { cascadeStreamSpills, planEnqueue, type EnqueueFate, type EnqueuePlanInput, type PlannedExecution } from './enqueue-plan';
import type { TaskDefinition } from './task-definition';

type Backpressure = TaskDefinition['backpressure'];
const bp = (over: Partial<Backpressure>): Backpressure => ({
  policy: 'reject',
  maxDepth: 3,
  shedPercent: 50,
  throttleDelayMs: 100,
  throttleMaxDelayMs: 1_000,
  retryAfterMs: 2_000,
  ...over,
});

/** `n` executions on partition 0 without streams, or as given. */
function batch(spec: number | [partition: number, stream: string | null][]): PlannedExecution[] {
  const list = typeof spec === 'number' ? Array.from({ length: spec }, () => [0, null] as [number, null]) : spec;
  return list.map(([partition, streamKey], index) => ({ index, partition, streamKey }));
}

const loads = (entries: [partition: number, depth: number, spilled?: number][]) =>
  new Map(entries.map(([p, depth, spilled]) => [p, { depth, spilled: spilled ?? 0 }]));

const never = () => {
  throw new Error('rand must not be called');
};

function plan(over: Partial<EnqueuePlanInput> & Pick<EnqueuePlanInput, 'backpressure' | 'executions'>) {
  return planEnqueue({ partitions: loads([[0, 0]]), streamsWithSpilled: new Set(), rand: never, ...over });
}

describe('planEnqueue: one outcome per policy', () => {
  it.each<{ name: string; backpressure: Backpressure; depth: number; n: number; rand?: () => number; expected: { accepted: number[]; spilled: number[]; shed: number[]; throttledMs: number; rejected: number | null } }>([
    { name: 'room for all: everything accepted (reject)', backpressure: bp({ policy: 'reject' }), depth: 0, n: 3, expected: { accepted: [0, 1, 2], spilled: [], shed: [], throttledMs: 0, rejected: null } },
    { name: 'reject over the limit: the whole call is refused', backpressure: bp({ policy: 'reject' }), depth: 2, n: 3, expected: { accepted: [], spilled: [], shed: [], throttledMs: 0, rejected: 2 } },
    { name: 'reject at depth already over maxDepth', backpressure: bp({ policy: 'reject' }), depth: 9, n: 1, expected: { accepted: [], spilled: [], shed: [], throttledMs: 0, rejected: 1 } },
    { name: 'throttle under the limit: no delay', backpressure: bp({ policy: 'throttle' }), depth: 0, n: 3, expected: { accepted: [0, 1, 2], spilled: [], shed: [], throttledMs: 0, rejected: null } },
    { name: 'throttle over: all accepted, delayed 100 ms per execution beyond maxDepth', backpressure: bp({ policy: 'throttle' }), depth: 2, n: 3, expected: { accepted: [0, 1, 2], spilled: [], shed: [], throttledMs: 200, rejected: null } },
    { name: 'throttle far over: the delay is capped', backpressure: bp({ policy: 'throttle' }), depth: 50, n: 1, expected: { accepted: [0], spilled: [], shed: [], throttledMs: 1_000, rejected: null } },
    { name: 'shed 100%: the overflow tail is dropped', backpressure: bp({ policy: 'shed', shedPercent: 100 }), depth: 1, n: 4, expected: { accepted: [0, 1], spilled: [], shed: [2, 3], throttledMs: 0, rejected: null } },
    { name: 'shed 50% of 2 overflow: one dropped, the rest accepted', backpressure: bp({ policy: 'shed', shedPercent: 50 }), depth: 1, n: 4, expected: { accepted: [0, 1, 2], spilled: [], shed: [3], throttledMs: 0, rejected: null } },
    { name: 'shed 50% of 1 overflow, rand below the fraction: dropped', backpressure: bp({ policy: 'shed', shedPercent: 50 }), depth: 2, n: 2, rand: () => 0.2, expected: { accepted: [0], spilled: [], shed: [1], throttledMs: 0, rejected: null } },
    { name: 'shed 50% of 1 overflow, rand above the fraction: kept', backpressure: bp({ policy: 'shed', shedPercent: 50 }), depth: 2, n: 2, rand: () => 0.7, expected: { accepted: [0, 1], spilled: [], shed: [], throttledMs: 0, rejected: null } },
    { name: 'spill: the overflow tail is parked', backpressure: bp({ policy: 'spill' }), depth: 1, n: 4, expected: { accepted: [0, 1], spilled: [2, 3], shed: [], throttledMs: 0, rejected: null } },
  ])('$name', ({ backpressure, depth, n, rand, expected }) => {
    const p = plan({ backpressure, executions: batch(n), partitions: loads([[0, depth]]), ...(rand ? { rand } : {}) });
    expect({ accepted: p.accepted, spilled: p.spilled, shed: p.shed, throttledMs: p.throttledMs, rejected: p.rejection?.total ?? null }).toEqual(expected);
    if (p.rejection) {
      expect(p.rejection.retryAfterMs).toBe(backpressure.retryAfterMs);
      expect([...p.rejection.byPartition]).toEqual([[0, expected.rejected]]);
    }
  });

  it('spill: while a partition has parked executions, every new one spills (none overtakes them)', () => {
    const p = plan({ backpressure: bp({ policy: 'spill' }), executions: batch(2), partitions: loads([[0, 0, 5]]) });
    expect(p).toMatchObject({ accepted: [], spilled: [0, 1], shed: [] });
  });

  it('a stream with spilled executions parked spills, whatever the policy and room', () => {
    for (const policy of ['reject', 'throttle', 'shed', 'spill'] as const) {
      const p = plan({
        backpressure: bp({ policy, maxDepth: 100 }),
        executions: batch([[0, 'parked'], [0, 'other'], [0, null]]),
        streamsWithSpilled: new Set(['parked']),
      });
      expect(p, policy).toMatchObject({ accepted: [1, 2], spilled: [0], shed: [], rejection: null });
    }
  });

  it('decides each partition on its own depth; throttle takes the largest delay; reject names each partition', () => {
    const executions = batch([[1, null], [0, null], [1, null], [0, null]]);
    const throttle = plan({ backpressure: bp({ policy: 'throttle', maxDepth: 2 }), executions, partitions: loads([[0, 0], [1, 3]]) });
    expect(throttle).toMatchObject({ accepted: [0, 1, 2, 3], throttledMs: 300 }); // partition 1: 3 + 2 − 2 = 3 beyond
    const reject = plan({ backpressure: bp({ policy: 'reject', maxDepth: 2 }), executions, partitions: loads([[0, 1], [1, 2]]) });
    expect([...reject.rejection!.byPartition].sort()).toEqual([[0, 1], [1, 2]]);
    expect(reject.rejection!.total).toBe(3);
  });

  it('a negative depth (counter drift) counts as empty', () => {
    expect(plan({ backpressure: bp({ policy: 'reject' }), executions: batch(3), partitions: loads([[0, -4, -1]]) }).accepted).toEqual([0, 1, 2]);
  });

  it('draws rand once per shed partition, in partition order (a seeded rand gives one plan)', () => {
    const draws: number[] = [];
    const rand = () => {
      draws.push(draws.length);
      return 0.99;
    };
    plan({ backpressure: bp({ policy: 'shed', shedPercent: 50, maxDepth: 1 }), executions: batch([[2, null], [2, null], [0, null], [0, null]]), partitions: loads([[0, 0], [2, 0]]), rand });
    expect(draws).toEqual([0, 1]);
  });

  it('refuses to plan a partition it has no load for', () => {
    expect(() => plan({ backpressure: bp({}), executions: batch([[7, null]]) })).toThrow(/partition 7/);
  });
});

describe('stream-spill cascade', () => {
  it('within a stream, everything after a spill spills; other streams and shed ones are untouched', () => {
    const executions = batch([[0, 'a'], [0, 'a'], [0, 'b'], [0, 'a'], [0, null], [0, 'a']]);
    const fate = new Map<number, EnqueueFate>([
      [0, 'accept'],
      [1, 'spill'],
      [2, 'accept'],
      [3, 'accept'],
      [4, 'accept'],
      [5, 'shed'],
    ]);
    cascadeStreamSpills(executions, fate);
    expect([...fate.values()]).toEqual(['accept', 'spill', 'accept', 'spill', 'accept', 'shed']);
  });

  it('crosses partitions: a stream spilled on a full partition spills its later executions on a roomy one', () => {
    const p = plan({
      backpressure: bp({ policy: 'spill', maxDepth: 1 }),
      executions: batch([[0, 's'], [0, 's'], [1, 's'], [1, 't']]),
      partitions: loads([[0, 0], [1, 0]]),
    });
    // partition 0: room 1 → #0 accepted, #1 spilled; partition 1: room 1 → #2 accepted, #3 spilled,
    // then the cascade moves #2 (stream s, after the spilled #1) into the overflow too.
    expect(p).toMatchObject({ accepted: [0], spilled: [1, 2, 3], shed: [] });
  });
});
