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

  it('gives every partition exactly one owner, ascending, matching ownerOf', () => {
    const members = ['host-1:123', 'host-2:77', 'host-3:9'];
    const map = assignPartitions('send-email', 256, members);
    const all = [...map.values()].flat().sort((a, b) => a - b);
    expect(all).toEqual(Array.from({ length: 256 }, (_, i) => i));
    for (const [m, ps] of map) {
      expect([...ps].sort((a, b) => a - b)).toEqual(ps);
      for (const p of ps) expect(ownerOf('send-email', p, members)).toBe(m);
    }
  });

  it.each([
    { members: 2, partitions: 1024 },
    { members: 3, partitions: 1024 },
    { members: 8, partitions: 1024 },
  ])('spreads $partitions partitions over $members members within ±25% of fair', ({ members, partitions }) => {
    const ms = Array.from({ length: members }, (_, i) => `coordinator-${i}`);
    const fair = partitions / members;
    for (const ps of assignPartitions('resize-image', partitions, ms).values()) {
      expect(ps.length).toBeGreaterThan(fair * 0.75);
      expect(ps.length).toBeLessThan(fair * 1.25);
    }
  });

  it.each([
    { task: 'send-email', partitions: 1024 },
    { task: 'resize-image', partitions: 1024 },
    { task: 'billing.sync', partitions: 512 },
  ])('a 4th member joining $task takes ≈1/4 of $partitions partitions, all moves go to it', ({ task, partitions }) => {
    const three = ['c-1', 'c-2', 'c-3'];
    const before = owners(task, partitions, three);
    const after = owners(task, partitions, [...three, 'c-4']);
    let moved = 0;
    before.forEach((b, p) => {
      if (after[p] !== b) {
        moved++;
        expect(after[p]).toBe('c-4');
      }
    });
    expect(moved / partitions).toBeGreaterThan(0.18);
    expect(moved / partitions).toBeLessThan(0.32);
  });

  it('a member leaving moves only its own partitions', () => {
    const four = ['c-1', 'c-2', 'c-3', 'c-4'];
    const before = owners('t', 1024, four);
    const after = owners('t', 1024, ['c-1', 'c-2', 'c-4']);
    before.forEach((b, p) => {
      if (b !== 'c-3') expect(after[p]).toBe(b);
      else expect(after[p]).not.toBe('c-3');
    });
  });

  it('distinct tasks get independent layouts', () => {
    expect(owners('a', 64, ['x', 'y', 'z'])).not.toEqual(owners('b', 64, ['x', 'y', 'z']));
  });

  it.each([-1, 2.5])('refuses partitions %s', (n) => {
    expect(() => assignPartitions('t', n, ['a'])).toThrow('partitions must be an integer ≥ 0');
  });
});
