import { describe, expect, it } from 'vitest';
import { groupIncidents, spansOverlap } from './alert-incidents';

const a = (id: number, task: string, firedAt: number, resolvedAt: number | null = null) => ({ id, task, firedAt, resolvedAt });

describe('groupIncidents', () => {
  it('groups overlapping alerts of one task, transitively; other tasks and later episodes apart', () => {
    const m = groupIncidents([
      a(10, 'send-email', 100, 200), // hot partition
      a(11, 'send-email', 150, 400), // depth, overlaps 10
      a(12, 'send-email', 350, null), // imbalance, overlaps 11 only: still the same incident
      a(13, 'billing', 150, 300), // another task
      a(9, 'send-email', 10, 50), // an earlier episode, resolved before 10 fired
    ]);
    expect(m.get(10)).toBe(10);
    expect(m.get(11)).toBe(10);
    expect(m.get(12)).toBe(10);
    expect(m.get(13)).toBe(13);
    expect(m.get(9)).toBe(9);
  });

  it('an open alert keeps its incident open for everything fired after it', () => {
    const m = groupIncidents([a(1, 't', 0, null), a(2, 't', 1_000_000, 1_000_100)]);
    expect(m.get(2)).toBe(1);
  });

  it('ties on the firing instant go to the lower id', () => {
    const m = groupIncidents([a(5, 't', 100, 200), a(4, 't', 100, 150)]);
    expect(m.get(5)).toBe(4);
    expect(m.get(4)).toBe(4);
  });
});

describe('spansOverlap', () => {
  it.each([
    [a(1, 't', 0, 10), a(2, 't', 10, 20), true],
    [a(1, 't', 0, 10), a(2, 't', 11, 20), false],
    [a(1, 't', 0, null), a(2, 't', 500, 600), true],
    [a(1, 't', 700, null), a(2, 't', 500, 600), false],
  ])('%j ~ %j → %s', (x, y, want) => {
    expect(spansOverlap(x, y)).toBe(want);
    expect(spansOverlap(y, x)).toBe(want);
  });
});
