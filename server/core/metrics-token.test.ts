import { describe, it, expect } from 'vitest';
import { metricsRequestAllowed } from './metrics-token';

const TOKEN = 'a-long-metrics-token-123';

describe('metricsRequestAllowed', () => {
  it.each([
    { header: undefined, token: undefined, ok: true, why: 'no token configured: open' },
    { header: 'Bearer anything', token: undefined, ok: true, why: 'no token configured, header ignored' },
    { header: `Bearer ${TOKEN}`, token: TOKEN, ok: true, why: 'exact token' },
    { header: `bearer  ${TOKEN}`, token: TOKEN, ok: true, why: 'scheme is case-insensitive' },
    { header: undefined, token: TOKEN, ok: false, why: 'missing header' },
    { header: '', token: TOKEN, ok: false, why: 'empty header' },
    { header: TOKEN, token: TOKEN, ok: false, why: 'no scheme' },
    { header: `Basic ${TOKEN}`, token: TOKEN, ok: false, why: 'other scheme' },
    { header: `Bearer ${TOKEN}x`, token: TOKEN, ok: false, why: 'longer' },
    { header: `Bearer ${TOKEN.slice(0, -1)}`, token: TOKEN, ok: false, why: 'prefix' },
    { header: `Bearer ${TOKEN.slice(0, -1)}X`, token: TOKEN, ok: false, why: 'last character differs' },
    { header: 'Bearer ', token: TOKEN, ok: false, why: 'empty token' },
    { header: `Bearer ${TOKEN} extra`, token: TOKEN, ok: false, why: 'trailing words' },
  ])('$why', ({ header, token, ok }) => {
    expect(metricsRequestAllowed(header, token)).toBe(ok);
  });
});
