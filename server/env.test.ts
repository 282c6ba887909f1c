import fs from 'node:fs';
import path from 'node:path';
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

describe('server/env.ts names every variable the code reads', () => {
  it('each SLUICE_* / OTEL_* / DATABASE_* name in server/, scripts/, bin/ appears in env.ts', () => {
    const root = path.resolve(import.meta.dirname, '..');
    const listing = fs.readFileSync(path.join(root, 'server', 'env.ts'), 'utf8');
    const named = new Set(listing.match(/\b(?:SLUICE|OTEL|DATABASE)_[A-Z0-9_]*[A-Z0-9]_?\b/g) ?? []);
    const files = (dir: string): string[] =>
      fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
        const p = path.join(dir, e.name);
        // server/sdk is the producers' package: its SLUICE_TOKEN is the caller's, in an example.
        if (e.isDirectory()) return ['generated', 'node_modules', 'sdk'].includes(e.name) ? [] : files(p);
        return /\.(ts|tsx|mjs|js)$/.test(e.name) && !/\.test\.ts$/.test(e.name) ? [p] : [];
      });
    const missing = new Map<string, string>();
    for (const f of ['server', 'scripts', 'bin'].flatMap((d) => files(path.join(root, d)))) {
      const text = fs.readFileSync(f, 'utf8');
      for (const m of text.matchAll(/\b(?:SLUICE|OTEL|DATABASE)_[A-Z0-9_]*[A-Z0-9]_?\b/g)) {
        const name = m[0];
        // A prefix (OTEL_BSP_, SLUICE_RETAIN_) is named when some listed name starts with it.
        const ok = named.has(name) || (name.endsWith('_') && [...named].some((n) => n.startsWith(name)));
        if (!ok && !missing.has(name)) missing.set(name, path.relative(root, f));
      }
    }
    expect(Object.fromEntries(missing)).toEqual({});
  });
});
