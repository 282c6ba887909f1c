import { describe, it, expect } from 'vitest';
import { diffValues } from './audit-diff';

describe('diffValues', () => {
  it.each([
    {
      name: 'a changed scalar',
      before: { id: 'u1', role: 'operator', active: true },
      after: { id: 'u1', role: 'admin', active: true },
      lines: [{ path: 'role', kind: 'changed', before: 'operator', after: 'admin' }],
    },
    {
      name: 'a created record (no before) lists every field as added',
      before: null,
      after: { id: 'u1', email: 'a@b.c' },
      lines: [
        { path: 'id', kind: 'added', after: 'u1' },
        { path: 'email', kind: 'added', after: 'a@b.c' },
      ],
    },
    {
      name: 'a deleted record lists every field as removed',
      before: { name: 'x' },
      after: undefined,
      lines: [{ path: 'name', kind: 'removed', before: 'x' }],
    },
    {
      name: 'nested objects and arrays by path',
      before: { groups: { tenant: 20 }, tags: ['a', 'b'] },
      after: { groups: { tenant: 50, message: 1 }, tags: ['a'] },
      lines: [
        { path: 'groups.tenant', kind: 'changed', before: 20, after: 50 },
        { path: 'groups.message', kind: 'added', after: 1 },
        { path: 'tags.1', kind: 'removed', before: 'b' },
      ],
    },
    {
      name: 'a type change (object → scalar) is one changed line',
      before: { a: { b: 1 } },
      after: { a: 3 },
      lines: [{ path: 'a', kind: 'changed', before: { b: 1 }, after: 3 }],
    },
    { name: 'identical values give nothing', before: { a: [1, { b: 2 }] }, after: { a: [1, { b: 2 }] }, lines: [] },
    { name: 'a scalar root', before: 1, after: 2, lines: [{ path: '', kind: 'changed', before: 1, after: 2 }] },
  ])('$name', ({ before, after, lines }) => {
    expect(diffValues(before, after)).toEqual(lines);
  });
});
