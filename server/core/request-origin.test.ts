import { describe, it, expect } from 'vitest';
import { allowedOrigins, mutationOriginProblem, type MutationOriginInput } from './request-origin';

const base: MutationOriginInput = { origin: null, secFetchSite: null, host: '127.0.0.1:3000', publicUrl: null, hasSessionCookie: true };

describe('mutationOriginProblem', () => {
  it.each<[string, Partial<MutationOriginInput>, boolean]>([
    ['same origin (Host)', { origin: 'http://127.0.0.1:3000' }, true],
    ['same host over https (TLS ended in front)', { origin: 'https://127.0.0.1:3000' }, true],
    ['another origin', { origin: 'http://evil.example' }, false],
    ['a sibling port', { origin: 'http://127.0.0.1:3001' }, false],
    ['a same-site subdomain', { origin: 'http://evil.127.0.0.1:3000' }, false],
    ['an opaque origin', { origin: 'null' }, false],
    ['the public URL', { publicUrl: 'https://sluice.example.com/', origin: 'https://sluice.example.com', host: 'internal:3000' }, true],
    ['the Host when a public URL is set', { publicUrl: 'https://sluice.example.com', origin: 'http://internal:3000', host: 'internal:3000' }, false],
    ['http when the public URL is https', { publicUrl: 'https://sluice.example.com', origin: 'http://sluice.example.com' }, false],
    ['no Origin, Sec-Fetch-Site same-origin', { secFetchSite: 'same-origin' }, true],
    ['no Origin, Sec-Fetch-Site same-site', { secFetchSite: 'same-site' }, false],
    ['no Origin, Sec-Fetch-Site cross-site', { secFetchSite: 'cross-site' }, false],
    ['no browser headers, with the session cookie', {}, false],
    ['no browser headers, no cookie (a script signing in)', { hasSessionCookie: false }, true],
    ['a foreign Origin without a cookie (sign-in CSRF)', { hasSessionCookie: false, origin: 'http://evil.example' }, false],
    ['no Host and no public URL', { host: null, origin: 'http://127.0.0.1:3000' }, false],
  ])('%s → allowed: %s', (_name, patch, allowed) => {
    const problem = mutationOriginProblem({ ...base, ...patch });
    if (allowed) expect(problem).toBeNull();
    else expect(problem).toMatch(/refused/);
  });

  it('names the refused origin and the allowed ones', () => {
    expect(mutationOriginProblem({ ...base, origin: 'http://evil.example' })).toBe(
      'cross-origin request refused: Origin "http://evil.example" is not this control plane\'s (http://127.0.0.1:3000 or https://127.0.0.1:3000)',
    );
  });
});

describe('allowedOrigins', () => {
  it('the public URL alone, as an origin', () => {
    expect(allowedOrigins('https://sluice.example.com:8443/console', 'x')).toEqual(['https://sluice.example.com:8443']);
  });
  it('a Host that is not a host allows nothing', () => {
    expect(allowedOrigins(null, 'a b/c')).toEqual([]);
  });
});
