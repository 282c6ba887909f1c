// The house holds by itself: eslint.config.js's sluice/architecture rule, run through
// ESLint's Node API on small sources placed (by file name) inside each part.
import { describe, it, expect } from 'vitest';
import { ESLint } from 'eslint';
import fs from 'node:fs';
import path from 'node:path';
import { ARCHITECTURE_FILE, ROOT } from './architecture-rule.mjs';

const arch = JSON.parse(fs.readFileSync(ARCHITECTURE_FILE, 'utf8')) as {
  parts: Record<string, { is: string[] }>;
  arrows: [string, string, string?][];
  never: [string, string, string][];
};
const SHARED = path.resolve(ROOT, '..', 'shared', 'architecture.json');

const eslint = new ESLint({ cwd: ROOT });

/** The sluice/architecture messages for `code` placed at `file` (repository-relative). */
async function architectureErrors(file: string, code: string): Promise<string[]> {
  const [r] = await eslint.lintText(code, { filePath: path.join(ROOT, file) });
  return r!.messages.filter((m) => m.ruleId === 'sluice/architecture').map((m) => m.message);
}

/** A file path inside a part, and the specifier that reaches another part from it. */
const fileIn = (part: string, ext = 'ts') => `${arch.parts[part]!.is[0]}__lint_fixture__.${ext}`;
const specFor = (part: string) => `@/${arch.parts[part]!.is[0]}__target__`;

describe('architecture lint', { timeout: 60_000 }, () => {
  it.skipIf(!fs.existsSync(SHARED))('eslint/architecture.json is a copy of ../shared/architecture.json', () => {
    expect(JSON.parse(fs.readFileSync(ARCHITECTURE_FILE, 'utf8'))).toEqual(JSON.parse(fs.readFileSync(SHARED, 'utf8')));
  });

  it('core importing the pool fails: a never arrow, with its reason', async () => {
    const errors = await architectureErrors('server/core/fixture.ts', `import { getPool } from '../db/pool';\nexport const p = getPool;\n`);
    expect(errors).toEqual(["Core never imports Db (the domain core does no I/O): ../db/pool"]);
  });

  it('every never arrow of architecture.json fails, type-only imports included', async () => {
    expect(arch.never.length).toBeGreaterThan(0);
    for (const [from, to, why] of arch.never) {
      const file = fileIn(from);
      expect(await architectureErrors(file, `import { x } from '${specFor(to)}';\nexport const y = x;\n`), `${from} → ${to}`).toEqual([
        `${from} never imports ${to} (${why}): ${specFor(to)}`,
      ]);
      expect(await architectureErrors(file, `import type { X } from '${specFor(to)}';\nexport type Y = X;\n`), `${from} → ${to} (type)`).toHaveLength(1);
    }
  });

  it('an import along no arrow fails; one along an arrow passes', async () => {
    expect(await architectureErrors('app/x/page.tsx', `import { roleAtLeast } from '@/server/services/roles';\nexport const r = roleAtLeast;\n`)).toEqual([
      'Pages may not import Services: no arrow Pages → Services in eslint/architecture.json (@/server/services/roles)',
    ]);
    expect(await architectureErrors('app/x/page.tsx', `import { roleAtLeast } from '@/server/core/roles';\nexport const r = roleAtLeast;\n`)).toEqual([]);
    expect(await architectureErrors('server/services/x.ts', `import { a } from '../core/a';\nimport { b } from '../db/b';\nexport const c = [a, b];\n`)).toEqual([]);
    // inside one part, packages, and dynamic imports along an arrow
    expect(await architectureErrors('server/db/x.ts', `import pg from 'pg';\nimport { q } from './q';\nexport const z = [pg, q];\n`)).toEqual([]);
    expect(await architectureErrors('server/cli/x.ts', `export const m = () => import('../coordinator/main');\n`)).toEqual([]);
    expect(await architectureErrors('server/core/x.ts', `export const m = () => import('../coordinator/main');\n`)).toEqual([
      'Core never imports Coordinator (the core knows no runtime): ../coordinator/main',
    ]);
  });

  it('a "types only" arrow admits import type and nothing else', async () => {
    const file = 'components/x/widget.tsx';
    expect(await architectureErrors(file, `import type { AppRouter } from '@/server/api/root';\nexport type R = AppRouter;\n`)).toEqual([]);
    expect(await architectureErrors(file, `import { type AppRouter } from '@/server/api/root';\nexport type R = AppRouter;\n`)).toEqual([]);
    expect(await architectureErrors(file, `import { appRouter } from '@/server/api/root';\nexport const r = appRouter;\n`)).toEqual([
      'Components may import only types from Api (arrow note: "client types only"): use `import type` for @/server/api/root',
    ]);
    expect(await architectureErrors(file, `export { appRouter } from '@/server/api/root';\n`)).toHaveLength(1);
    // "types and pure rules": values allowed
    expect(await architectureErrors(file, `import { ROLES } from '@/server/core/roles';\nexport const r = ROLES;\n`)).toEqual([]);
  });

  it('server/control-plane is the Jobs part: it may use services, not the api', async () => {
    expect(await architectureErrors('server/control-plane/x.ts', `import { s } from '../services/s';\nexport const t = s;\n`)).toEqual([]);
    expect(await architectureErrors('server/control-plane/x.ts', `import { s } from '../api/s';\nexport const t = s;\n`)).toEqual([
      'Jobs may not import Api: no arrow Jobs → Api in eslint/architecture.json (../api/s)',
    ]);
  });
});
