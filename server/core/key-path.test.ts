import { describe, expect, it } from 'vitest';
import { CoreError } from './errors';
import { MAX_KEY_LENGTH, readKeyPath, resolveGroupKeys, resolveRoutingKey, resolveStreamKey } from './key-path';
import { taskDefinitionSchema, type TaskDefinitionInput } from './task-definition';

const task = (t: Partial<TaskDefinitionInput>) => taskDefinitionSchema.parse({ name: 'send-email', ...t });

describe('readKeyPath', () => {
  it.each([
    { payload: { tenant: 'acme' }, path: 'tenant', expected: 'acme' },
    { payload: { customer: { id: 'c-1' } }, path: 'customer.id', expected: 'c-1' },
    { payload: { a: { b: { c: { d: 'deep' } } } }, path: 'a.b.c.d', expected: 'deep' },
    { payload: { tenant: 42 }, path: 'tenant', expected: '42' },
    { payload: { tenant: 0 }, path: 'tenant', expected: '0' },
    { payload: { tenant: -0 }, path: 'tenant', expected: '0' },
    { payload: { tenant: 1.5 }, path: 'tenant', expected: '1.5' },
    { payload: { tenant: true }, path: 'tenant', expected: 'true' },
    { payload: { tenant: false }, path: 'tenant', expected: 'false' },
    { payload: { tenant: '' }, path: 'tenant', expected: '' },
    { payload: { tenant: 'Zürich-東京-🚀' }, path: 'tenant', expected: 'Zürich-東京-🚀' },
    { payload: { 'tenant-id': 'x' }, path: 'tenant-id', expected: 'x' },
    { payload: { $k: 'dollar' }, path: '$k', expected: 'dollar' },
    { payload: { items: [{ sku: 's1' }] }, path: 'items.0.sku', expected: 's1' },
    // not keys
    { payload: { tenant: Number.NaN }, path: 'tenant', expected: undefined },
    { payload: { tenant: Number.POSITIVE_INFINITY }, path: 'tenant', expected: undefined },
    { payload: { tenant: null }, path: 'tenant', expected: undefined },
    { payload: { tenant: { id: 1 } }, path: 'tenant', expected: undefined },
    { payload: { tenant: ['a'] }, path: 'tenant', expected: undefined },
    { payload: {}, path: 'tenant', expected: undefined },
    { payload: { customer: 'flat' }, path: 'customer.id', expected: undefined },
    { payload: { customer: null }, path: 'customer.id', expected: undefined },
    { payload: null, path: 'tenant', expected: undefined },
    { payload: undefined, path: 'tenant', expected: undefined },
    { payload: 'acme', path: 'tenant', expected: undefined },
    { payload: 7, path: 'tenant', expected: undefined },
    { payload: { items: ['a'] }, path: 'items.length', expected: undefined },
    { payload: { items: ['a'] }, path: 'items.01', expected: undefined },
    { payload: { items: ['a'] }, path: 'items.1', expected: undefined },
    { payload: { tenant: 'a' }, path: '', expected: undefined },
    { payload: { tenant: 'a' }, path: 'tenant.', expected: undefined },
    { payload: { a: { '': 'x' } }, path: 'a..b', expected: undefined },
    // never walks the prototype chain
    { payload: {}, path: 'constructor', expected: undefined },
    { payload: {}, path: 'constructor.name', expected: undefined },
    { payload: {}, path: '__proto__', expected: undefined },
    { payload: { a: 'b' }, path: 'toString', expected: undefined },
  ])('$path of $payload → $expected', ({ payload, path, expected }) => {
    expect(readKeyPath(payload, path)).toBe(expected);
  });
});

describe('resolveGroupKeys', () => {
  const t = task({
    groups: [
      { name: 'tenant', limit: 20, keyPath: 'tenant' },
      { name: 'message', limit: 1, keyPath: 'message.id' },
      { name: 'region', limit: 5 }, // explicit only
    ],
  });

  it.each<{ payload: unknown; explicit: Record<string, string> | undefined; expected: Record<string, string> }>([
    { payload: { tenant: 'acme', message: { id: 'm1' } }, explicit: undefined, expected: { tenant: 'acme', message: 'm1' } },
    { payload: { tenant: 'acme' }, explicit: undefined, expected: { tenant: 'acme' } },
    { payload: {}, explicit: undefined, expected: {} },
    { payload: null, explicit: undefined, expected: {} },
    { payload: { tenant: 17 }, explicit: undefined, expected: { tenant: '17' } },
    { payload: { tenant: '' }, explicit: undefined, expected: {} },
    { payload: { tenant: { nested: 1 } }, explicit: undefined, expected: {} },
    { payload: { tenant: 'acme' }, explicit: { tenant: 'globex' }, expected: { tenant: 'globex' } },
    { payload: { tenant: 'acme' }, explicit: { region: 'eu' }, expected: { tenant: 'acme', region: 'eu' } },
    { payload: {}, explicit: { region: 'ü-区' }, expected: { region: 'ü-区' } },
    { payload: {}, explicit: {}, expected: {} },
  ])('payload $payload, explicit $explicit → $expected', ({ payload, explicit, expected }) => {
    expect(resolveGroupKeys(t, payload, explicit)).toEqual(expected);
  });

  it.each([
    { explicit: { tenat: 'acme' }, message: 'task "send-email" has no group "tenat" (declared: "tenant", "message", "region")', path: 'groups.tenat' },
    { explicit: { tenant: '' }, message: 'the key for group "tenant" must be a non-empty string', path: 'groups.tenant' },
    { explicit: { tenant: 5 as unknown as string }, message: 'the key for group "tenant" must be a non-empty string', path: 'groups.tenant' },
    { explicit: { tenant: 'x'.repeat(MAX_KEY_LENGTH + 1) }, message: `group "tenant" key is ${MAX_KEY_LENGTH + 1} characters long; at most ${MAX_KEY_LENGTH} are allowed`, path: 'groups.tenant' },
    { explicit: ['a'] as unknown as Record<string, string>, message: 'group keys must be an object of group name → key', path: 'groupKeys' },
  ])('rejects $explicit with BAD_REQUEST at $path', ({ explicit, message, path }) => {
    const err = (() => {
      try {
        resolveGroupKeys(t, {}, explicit);
      } catch (e) {
        return e;
      }
      throw new Error('did not throw');
    })();
    expect(err).toBeInstanceOf(CoreError);
    expect((err as CoreError).code).toBe('BAD_REQUEST');
    expect((err as CoreError).message).toBe(message);
    expect((err as CoreError).fieldErrors?.[0]?.path).toBe(path);
  });

  it('names "none" when the task declares no groups', () => {
    expect(() => resolveGroupKeys(task({}), {}, { tenant: 'a' })).toThrow('task "send-email" has no group "tenant" (declared: none)');
  });

  it('accepts a key exactly MAX_KEY_LENGTH long and rejects one longer from the payload', () => {
    expect(resolveGroupKeys(t, { tenant: 'k'.repeat(MAX_KEY_LENGTH) }).tenant).toHaveLength(MAX_KEY_LENGTH);
    expect(() => resolveGroupKeys(t, { tenant: 'k'.repeat(MAX_KEY_LENGTH + 1) })).toThrow(CoreError);
  });
});

describe('resolveStreamKey', () => {
  const ordered = task({ stream: { keyPath: 'order.id' } });
  const explicitOnly = task({ stream: {} });
  const unordered = task({});

  it.each([
    { t: ordered, payload: { order: { id: 'o-1' } }, explicit: undefined, expected: 'o-1' },
    { t: ordered, payload: { order: { id: 99 } }, explicit: undefined, expected: '99' },
    { t: ordered, payload: { order: { id: 'o-1' } }, explicit: 'o-2', expected: 'o-2' },
    { t: ordered, payload: {}, explicit: undefined, expected: undefined },
    { t: ordered, payload: { order: { id: '' } }, explicit: undefined, expected: undefined },
    { t: explicitOnly, payload: { order: { id: 'o-1' } }, explicit: undefined, expected: undefined },
    { t: explicitOnly, payload: {}, explicit: 'ß', expected: 'ß' },
    { t: unordered, payload: { order: { id: 'o-1' } }, explicit: undefined, expected: undefined },
  ])('#%# → $expected', ({ t, payload, explicit, expected }) => {
    expect(resolveStreamKey(t, payload, explicit)).toBe(expected);
  });

  it.each([
    { t: unordered, explicit: 'o-1', message: 'task "send-email" is not ordered by stream; declare "stream" in its definition first' },
    { t: ordered, explicit: '', message: 'the stream key must be a non-empty string' },
    { t: ordered, explicit: 's'.repeat(MAX_KEY_LENGTH + 1), message: `stream key is ${MAX_KEY_LENGTH + 1} characters long; at most ${MAX_KEY_LENGTH} are allowed` },
  ])('rejects explicit $explicit', ({ t, explicit, message }) => {
    expect(() => resolveStreamKey(t, {}, explicit)).toThrow(message);
  });
});

describe('resolveRoutingKey', () => {
  const hashed = task({ routing: { strategy: 'hash', keyPath: 'customer.id' } });
  it.each([
    { t: hashed, payload: { customer: { id: 'c1' } }, explicit: undefined, expected: 'c1' },
    { t: hashed, payload: { customer: { id: 'c1' } }, explicit: 'c2', expected: 'c2' },
    { t: hashed, payload: {}, explicit: undefined, expected: undefined },
    { t: hashed, payload: { customer: { id: 'c1' } }, explicit: '', expected: 'c1' },
    { t: task({}), payload: { customer: { id: 'c1' } }, explicit: undefined, expected: undefined },
  ])('#%# → $expected', ({ t, payload, explicit, expected }) => {
    expect(resolveRoutingKey(t, payload, explicit)).toBe(expected);
  });
});
