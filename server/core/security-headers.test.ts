import { describe, it, expect } from 'vitest';
import { API_CONTENT_SECURITY_POLICY, COMMON_SECURITY_HEADERS, newNonce, pageContentSecurityPolicy } from './security-headers';

const directives = (csp: string) => new Map(csp.split('; ').map((d) => [d.split(' ')[0]!, d.split(' ').slice(1)]));

describe('pageContentSecurityPolicy', () => {
  it('scripts only with the nonce, no framing, no plugins, forms and base to self', () => {
    const d = directives(pageContentSecurityPolicy({ nonce: 'abc123==', dev: false, secure: false }));
    expect(d.get('script-src')).toEqual(["'self'", "'nonce-abc123=='", "'strict-dynamic'"]);
    expect(d.get('frame-ancestors')).toEqual(["'none'"]);
    expect(d.get('object-src')).toEqual(["'none'"]);
    expect(d.get('base-uri')).toEqual(["'self'"]);
    expect(d.get('form-action')).toEqual(["'self'"]);
    expect(d.has('upgrade-insecure-requests')).toBe(false);
    expect([...d.values()].flat()).not.toContain("'unsafe-eval'");
    expect(d.get('script-src')).not.toContain("'unsafe-inline'");
  });

  it('dev allows eval and the reload socket; https upgrades subresources', () => {
    const dev = directives(pageContentSecurityPolicy({ nonce: 'n', dev: true, secure: false }));
    expect(dev.get('script-src')).toContain("'unsafe-eval'");
    expect(dev.get('connect-src')).toEqual(["'self'", 'ws:', 'wss:']);
    expect(directives(pageContentSecurityPolicy({ nonce: 'n', dev: false, secure: true })).has('upgrade-insecure-requests')).toBe(true);
  });
});

describe('the rest', () => {
  it('API responses may load nothing and not be framed', () => {
    expect(API_CONTENT_SECURITY_POLICY).toBe("default-src 'none'; frame-ancestors 'none'");
  });
  it('every response: nosniff, a same-origin referrer, no framing', () => {
    expect(COMMON_SECURITY_HEADERS).toEqual({ 'X-Content-Type-Options': 'nosniff', 'Referrer-Policy': 'same-origin', 'X-Frame-Options': 'DENY' });
  });
  it('a nonce is the base64 of its bytes', () => {
    expect(newNonce(new Uint8Array([0, 1, 2, 250, 251, 252]))).toBe(Buffer.from([0, 1, 2, 250, 251, 252]).toString('base64'));
  });
});
