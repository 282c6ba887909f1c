import { describe, expect, it } from 'vitest';
import { errorFingerprint, MAX_MESSAGE_CHARS, normaliseErrorMessage, topApplicationFrame } from './fingerprint';

describe('normaliseErrorMessage', () => {
  it.each([
    { msg: 'Order 1234 not found', expected: 'Order <n> not found' },
    { msg: 'timeout after 30000ms', expected: 'timeout after <n>ms' },
    { msg: 'value 3.14159 out of range', expected: 'value <n> out of range' },
    { msg: 'connect ECONNREFUSED 127.0.0.1:5432', expected: 'connect ECONNREFUSED <n>:<n>' },
    { msg: 'user 0b8e1c52-3f1a-4c3e-9d7a-2b6f5e4a1c90 missing', expected: 'user <uuid> missing' },
    { msg: 'USER 0B8E1C52-3F1A-4C3E-9D7A-2B6F5E4A1C90 MISSING', expected: 'USER <uuid> MISSING' },
    { msg: 'doc 507f1f77bcf86cd799439011 locked', expected: 'doc <hex> locked' },
    { msg: 'commit 9fceb02d0ae598e95dc970b74767f19372d61af8', expected: 'commit <hex>' },
    { msg: 'bad pointer 0xDEADBEEF', expected: 'bad pointer <hex>' },
    { msg: 'deadbeefcafe is all letters', expected: 'deadbeefcafe is all letters' },
    { msg: 'no mailbox for alice.smith+tag@example.co.uk', expected: 'no mailbox for <email>' },
    { msg: 'GET https://api.example.com/v1/users?id=42&token=abc failed', expected: 'GET https://api.example.com/v<n>/users?<query> failed' },
    { msg: 'GET https://api.example.com/users/42 failed', expected: 'GET https://api.example.com/users/<n> failed' },
    { msg: 'redirect to http://x.io/a#frag', expected: 'redirect to http://x.io/a?<query>' },
    { msg: 'unknown key "acme-corp"', expected: 'unknown key "<str>"' },
    { msg: "unknown key 'acme-corp'", expected: "unknown key '<str>'" },
    { msg: 'unknown key `acme`', expected: 'unknown key `<str>`' },
    { msg: 'escaped "a \\" b" here', expected: 'escaped "<str>" here' },
    { msg: "don't retry, it's broken", expected: "don't retry, it's broken" },
    { msg: 'at 2024-06-01T12:30:45.123Z the job failed', expected: 'at <time> the job failed' },
    { msg: 'at 2024-06-01 12:30:45+02:00 failed', expected: 'at <time> failed' },
    { msg: '  many\n\tspaces   here ', expected: 'many spaces here' },
    { msg: 'Tenant 東京-42 über limit', expected: 'Tenant 東京-<n> über limit' },
    { msg: '', expected: '' },
  ])('$msg → $expected', ({ msg, expected }) => {
    expect(normaliseErrorMessage(msg)).toBe(expected);
  });

  it('cuts very long messages before normalising', () => {
    expect(normaliseErrorMessage('a'.repeat(MAX_MESSAGE_CHARS + 500))).toHaveLength(MAX_MESSAGE_CHARS);
  });
});

const v8 = (first: string) => `Error: boom
    at ${first}
    at process.processTicksAndRejections (node:internal/process/task_queues:95:5)`;

describe('topApplicationFrame', () => {
  it.each([
    { stack: undefined, expected: '' },
    { stack: '', expected: '' },
    { stack: 'Error: only a message', expected: '' },
    { stack: v8('sendEmail (/app/server/handlers/send-email.ts:41:11)'), expected: 'sendEmail send-email.ts' },
    { stack: v8('sendEmail (/srv/other/checkout/server/handlers/send-email.ts:97:3)'), expected: 'sendEmail send-email.ts' },
    { stack: v8('async Handler.run (file:///app/dist/run.js:10:2)'), expected: 'Handler.run run.js' },
    { stack: v8('new Mailer (/app/mailer.ts:5:9)'), expected: 'Mailer mailer.ts' },
    { stack: v8('/app/bare.js:3:1'), expected: 'bare.js' },
    { stack: v8('C:\\app\\win.ts:3:1'), expected: 'win.ts' },
    { stack: v8('chunk (/app/.next/chunk.js?v=123:1:2)'), expected: 'chunk chunk.js' },
    {
      stack: `TypeError: x is undefined
    at Object.get (/app/node_modules/pg/lib/client.js:10:1)
    at Module._compile (node:internal/modules/cjs/loader:1256:14)
    at Array.map (<anonymous>)
    at async Promise.all (index 0)
    at charge (/app/server/billing.ts:7:7)`,
      expected: 'charge billing.ts',
    },
    { stack: 'Error: no user bob@example.com\ncharge@http://localhost/app.js:3:9', expected: 'charge app.js' },
    { stack: v8('Object.x (/app/node_modules/lib/x.js:1:1)'), expected: '' },
  ])('#%# → $expected', ({ stack, expected }) => {
    expect(topApplicationFrame(stack)).toBe(expected);
  });
});

describe('errorFingerprint', () => {
  const at = (frame: string) => `Error\n    at ${frame}\n    at run (/app/node_modules/x/index.js:1:1)`;
  const base = { name: 'NotFoundError', message: 'order 1234 not found for tenant "acme"', stack: at('loadOrder (/app/orders.ts:10:5)') };

  it.each([
    { name: 'different ids', other: { ...base, message: 'order 98 not found for tenant "globex"' } },
    { name: 'a one-digit id and a short name', other: { ...base, message: 'order 1 not found for tenant "x"' } },
    { name: 'shifted line numbers', other: { ...base, stack: at('loadOrder (/app/orders.ts:212:9)') } },
    { name: 'another install directory', other: { ...base, stack: at('loadOrder (/opt/sluice/orders.ts:10:5)') } },
    { name: 'extra whitespace', other: { ...base, message: ' order  1234 not found for tenant "acme"\n' } },
  ])('same fingerprint despite $name', ({ other }) => {
    expect(errorFingerprint(other)).toBe(errorFingerprint(base));
  });

  it.each([
    { name: 'another error name', other: { ...base, name: 'TimeoutError' } },
    { name: 'another message', other: { ...base, message: 'order 1234 is already paid' } },
    { name: 'another function', other: { ...base, stack: at('saveOrder (/app/orders.ts:10:5)') } },
    { name: 'another file', other: { ...base, stack: at('loadOrder (/app/invoices.ts:10:5)') } },
    { name: 'no stack', other: { name: base.name, message: base.message } },
  ])('different fingerprint for $name', ({ other }) => {
    expect(errorFingerprint(other)).not.toBe(errorFingerprint(base));
  });

  it.each([
    { a: { message: 'x' }, b: { name: 'Error', message: 'x' } },
    { a: { name: '', message: 'x' }, b: { name: 'Error', message: 'x' } },
  ])('a missing name counts as "Error"', ({ a, b }) => {
    expect(errorFingerprint(a)).toBe(errorFingerprint(b));
  });

  it('is 16 hex digits and stable across calls', () => {
    const f = errorFingerprint(base);
    expect(f).toMatch(/^[0-9a-f]{16}$/);
    expect(errorFingerprint({ ...base })).toBe(f);
  });

  it('works on real Error objects', () => {
    const make = (id: number) => {
      const e = new RangeError(`slot ${id} exhausted`);
      return errorFingerprint(e);
    };
    expect(make(1)).toBe(make(2));
  });
});
