import { describe, it, expect } from 'vitest';
import { EnvError, parseEnv } from './env';

describe('parseEnv: public URL, secure cookies, body limit', () => {
  it.each<[Record<string, string>, boolean]>([
    [{}, false],
    [{ SLUICE_PUBLIC_URL: 'http://sluice.internal:3000' }, false],
    [{ SLUICE_PUBLIC_URL: 'https://sluice.example.com' }, true],
    [{ SLUICE_PUBLIC_URL: 'https://sluice.example.com', SLUICE_SECURE_COOKIES: '0' }, false],
    [{ SLUICE_SECURE_COOKIES: 'true' }, true],
  ])('%j → secure cookies %s', (vars, secure) => {
    expect(parseEnv(vars).SLUICE_SECURE_COOKIES).toBe(secure);
  });

  it('the body limit defaults to 1 MB and is configurable', () => {
    expect(parseEnv({}).SLUICE_MAX_BODY_BYTES).toBe(1024 * 1024);
    expect(parseEnv({ SLUICE_MAX_BODY_BYTES: '65536' }).SLUICE_MAX_BODY_BYTES).toBe(65536);
  });

  it.each([
    [{ SLUICE_PUBLIC_URL: 'sluice.example.com' }, 'SLUICE_PUBLIC_URL'],
    [{ SLUICE_PUBLIC_URL: 'ftp://sluice.example.com' }, 'SLUICE_PUBLIC_URL'],
    [{ SLUICE_MAX_BODY_BYTES: '10' }, 'SLUICE_MAX_BODY_BYTES'],
    [{ SLUICE_MAX_BODY_BYTES: 'lots' }, 'SLUICE_MAX_BODY_BYTES'],
  ])('%j is refused, naming %s', (vars, name) => {
    expect(() => parseEnv(vars)).toThrow(EnvError);
    expect(() => parseEnv(vars)).toThrow(new RegExp(`${name}:`));
  });
});
