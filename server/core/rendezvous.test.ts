import { describe, expect, it } from 'vitest';
import { assignPartitions, ownerOf, rendezvousWeight } from './rendezvous';
import { stableHash32 } from './stable-hash';

const owners = (task: string, partitions: number, members: string[]) =>
  Array.from({ length: partitions }, (_, p) => ownerOf(task, p, members));

describe('ownerOf', () => {
  it.each([
    { members: [], expected: undefined },
    { members: ['only'], expected: 'only' },
    { members: ['only', 'only'], expected: 'only' },
  ])('with members $members → $expected', ({ members, expected }) => {
    expect(ownerOf('send-email', 3, members)).toBe(expected);
  });

  it('is the member with the highest stableHash32(task:partition:member)', () => {
    const members = ['c-a', 'c-b', 'c-c', 'c-d'];
    for (let p = 0; p < 32; p++) {
      const best = [...members].sort((x, y) => stableHash32(`t:${p}:${y}`) - stableHash32(`t:${p}:${x}`))[0];
      expect(ownerOf('t', p, members)).toBe(best);
      expect(rendezvousWeight('t', p, best!)).toBe(stableHash32(`t:${p}:${best}`));
    }
  });

  it('does not depend on the order of the member list', () => {
    const a = ['c1', 'c2', 'c3', 'c4', 'c5'];
    expect(owners('t', 64, a)).toEqual(owners('t', 64, [...a].reverse()));
  });

  it.each([-1, 1.5])('refuses partition %s', (p) => {
    expect(() => ownerOf('t', p, ['a'])).toThrow('partition must be an integer ≥ 0');
  });
});

describe('assignPartitions', () => {
  it.each([
    { partitions: 0, members: ['a', 'b'], expected: { a: [], b: [] } },
    { partitions: 4, members: [], expected: {} },
    { partitions: 3, members: ['solo'], expected: { solo: [0, 1, 2] } },
    { partitions: 3, members: ['solo', 'solo'], expected: { solo: [0, 1, 2] } },
  ])('$partitions partitions over $members', ({ partitions, members, expected }) => {
    expect(Object.fromEntries(assignPartitions('t', partitions, members))).toEqual(expected);
  });

  it('gives every partition exactly one owner, ascending', () => {
    const members = ['host-1:123', 'host-2:77', 'host-3:9'];
    const map = assignPartitions('send-email', 256, members);
    const all = [...map.values()].flat().sort((a, b) => a - b);
    expect(all).toEqual(Array.from({ length: 256 }, (_, i) => i));
    for (const ps of map.values()) expect([...ps].sort((a, b) => a - b)).toEqual(ps);
  });

  it('with room everywhere, each partition goes to its rendezvous favourite', () => {
    // 3 members, 3 partitions each favoured by a different member would need luck; instead
    // check the weaker invariant: a member never holds a partition whose favourite still
    // has room at the end (the greedy takes favourites first).
    const members = ['a', 'b', 'c', 'd'];
    const map = assignPartitions('t', 64, members);
    const load = new Map([...map].map(([m, ps]) => [m, ps.length]));
    for (const [m, ps] of map) {
      for (const p of ps) {
        const fav = ownerOf('t', p, members)!;
        if (fav !== m) expect(load.get(fav)).toBeGreaterThanOrEqual(16);
      }
    }
  });

  it.each([
    { partitions: 4, members: 2 },
    { partitions: 4, members: 3 },
    { partitions: 5, members: 4 },
    { partitions: 7, members: 7 },
  ])('few partitions: $partitions over $members members, loads differ by at most one, whatever the ids', ({ partitions, members }) => {
    for (let run = 0; run < 50; run++) {
      const ms = Array.from({ length: members }, (_, i) => `m${i}-${(run * 7919 + i * 104729).toString(36)}`);
      const loads = [...assignPartitions('rec', partitions, ms).values()].map((ps) => ps.length);
      expect(Math.max(...loads) - Math.min(...loads)).toBeLessThanOrEqual(1);
      expect(loads.reduce((a, b) => a + b, 0)).toBe(partitions);
    }
  });

  it.each([
    { members: 2, partitions: 1024 },
    { members: 3, partitions: 1024 },
    { members: 8, partitions: 1024 },
  ])('spreads $partitions partitions over $members members evenly (⌊P/N⌋ or ⌈P/N⌉ each)', ({ members, partitions }) => {
    const ms = Array.from({ length: members }, (_, i) => `coordinator-${i}`);
    for (const ps of assignPartitions('resize-image', partitions, ms).values()) {
      expect(ps.length).toBeGreaterThanOrEqual(Math.floor(partitions / members));
      expect(ps.length).toBeLessThanOrEqual(Math.ceil(partitions / members));
    }
  });

  it.each([
    { task: 'send-email', partitions: 1024 },
    { task: 'resize-image', partitions: 1024 },
    { task: 'billing.sync', partitions: 512 },
  ])('a 4th member joining $task takes ≈1/4 of $partitions partitions, nearly all moves go to it', ({ task, partitions }) => {
    const three = ['c-1', 'c-2', 'c-3'];
    const before = owners(task, partitions, three);
    const after = owners(task, partitions, [...three, 'c-4']);
    let moved = 0;
    let toNew = 0;
    before.forEach((b, p) => {
      if (after[p] !== b) {
        moved++;
        if (after[p] === 'c-4') toNew++;
      }
    });
    expect(moved / partitions).toBeGreaterThan(0.18);
    expect(moved / partitions).toBeLessThan(0.32);
    expect(toNew / moved).toBeGreaterThan(0.9);
  });

  it('a member leaving moves its own partitions and few others (> 95% of the rest stay)', () => {
    const four = ['c-1', 'c-2', 'c-3', 'c-4'];
    const before = owners('t', 1024, four);
    const after = owners('t', 1024, ['c-1', 'c-2', 'c-4']);
    let others = 0;
    let stayed = 0;
    before.forEach((b, p) => {
      expect(after[p]).not.toBe('c-3');
      if (b !== 'c-3') {
        others++;
        if (after[p] === b) stayed++;
      }
    });
    expect(stayed / others).toBeGreaterThan(0.95);
  });

  it('distinct tasks get independent layouts', () => {
    expect(owners('a', 64, ['x', 'y', 'z'])).not.toEqual(owners('b', 64, ['x', 'y', 'z']));
  });

  it.each([-1, 2.5])('refuses partitions %s', (n) => {
    expect(() => assignPartitions('t', n, ['a'])).toThrow('partitions must be an integer ≥ 0');
  });
});
