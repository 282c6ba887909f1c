import { describe, expect, it } from 'vitest';
import { refillShare, wakeClaimLoopAfterRefill } from './slot-plan';

describe('refillShare', () => {
  it.each([
    // one active task: every free slot, counting the rows being finished
    { slots: 10, busy: 10, freeing: 4, activeTasks: 1, expected: 4 },
    { slots: 10, busy: 6, freeing: 4, activeTasks: 1, expected: 8 },
    { slots: 200, busy: 32, freeing: 32, activeTasks: 1, expected: 200 },
    { slots: 10, busy: 14, freeing: 4, activeTasks: 1, expected: 0 }, // over-reserved: nothing
    { slots: 10, busy: 20, freeing: 4, activeTasks: 1, expected: 0 }, // never negative
    { slots: 10, busy: 10, freeing: 4, activeTasks: 0, expected: 4 }, // the flushing task just paused elsewhere: counts as one
    // several active tasks: a fair share, never more than the flush frees
    { slots: 10, busy: 10, freeing: 4, activeTasks: 2, expected: 2 }, // ceil(4 / 2)
    { slots: 10, busy: 10, freeing: 5, activeTasks: 2, expected: 3 }, // ceil(5 / 2)
    { slots: 10, busy: 2, freeing: 2, activeTasks: 2, expected: 2 }, // share 5, capped at freeing
    { slots: 100, busy: 100, freeing: 1, activeTasks: 3, expected: 1 },
    { slots: 100, busy: 110, freeing: 5, activeTasks: 3, expected: 0 },
  ])('slots $slots busy $busy freeing $freeing over $activeTasks task(s) → $expected', ({ expected, ...p }) => {
    expect(refillShare(p)).toBe(expected);
  });
});

describe('wakeClaimLoopAfterRefill', () => {
  it.each([
    { activeTasks: 0, expected: false },
    { activeTasks: 1, expected: false },
    { activeTasks: 2, expected: true },
    { activeTasks: 7, expected: true },
  ])('$activeTasks active task(s) → $expected', ({ activeTasks, expected }) => {
    expect(wakeClaimLoopAfterRefill(activeTasks)).toBe(expected);
  });
});
