import { describe, it, expect } from 'vitest';
import { safeNextPath } from './safe-redirect';

describe('safeNextPath', () => {
  it.each<[unknown, string]>([
    // stays on the site
    ['/', '/'],
    ['/tasks/send-email', '/tasks/send-email'],
    ['/dead-letters?task=a&q=x%20y#row-3', '/dead-letters?task=a&q=x%20y#row-3'],
    ['/tasks/../settings/users', '/settings/users'],
    ['/%2F%2Fevil.example', '/%2F%2Fevil.example'], // an encoded slash is a path segment, not a host
    // leaves the site, or is no path: the fallback
    ['/%5Cevil.example'.replace('%5C', '\\'), '/'], // "/\evil.example" as decoded by searchParams
    ['/\\evil.example', '/'],
    ['\\\\evil.example', '/'],
    ['/\t/evil.example', '/'],
    ['/\n/evil.example', '/'],
    ['/\r\n/evil.example', '/'],
    ['//evil.example', '/'],
    ['///evil.example', '/'],
    ['/.//evil.example', '/'],
    ['https://evil.example', '/'],
    ['http:/evil.example', '/'],
    ['javascript:alert(1)', '/'],
    ['evil.example', '/'],
    ['/\u0000x', '/'],
    ['', '/'],
    [undefined, '/'],
    [['/a', '/b'], '/'],
    ['/' + 'a'.repeat(2000), '/'],
  ])('%j → %j', (raw, expected) => {
    expect(safeNextPath(raw)).toBe(expected);
  });

  it('every accepted value resolves to the same origin, as a browser would read it', () => {
    for (const raw of ['/x', '/a/b?c=d', '/%09/evil.example', '/%5Cevil.example']) {
      const out = safeNextPath(raw);
      expect(new URL(out, 'https://sluice.example.com').origin).toBe('https://sluice.example.com');
    }
  });

  it('uses the given fallback', () => {
    expect(safeNextPath('//evil.example', '/login')).toBe('/login');
  });
});
