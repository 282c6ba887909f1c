// Config as code through the real CLI (`node bin/sluice.js config …`): `diff` shows what
// apply would change in the console's terms (groups by name, so reordering is nothing);
// export → apply round-trips exactly (the re-export is the same text, the diff empty);
// the console's YAML download applies unchanged too.
import { describe, it, expect, beforeAll } from 'vitest';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse, stringify } from 'yaml';
import { testDatabase, type TestDatabase } from './db';
import { applyTasks } from '../support/engine-fixtures';
import { exportConfigYaml } from '../../server/presenters/config-history';

const root = path.resolve(import.meta.dirname, '..', '..');
let db: TestDatabase;
let dir: string;

function sluice(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [path.join(root, 'bin', 'sluice.js'), ...args], { cwd: root, env: { ...process.env, DATABASE_URL: db.url } }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}
const file = (name: string, text: string) => {
  const p = path.join(dir, name);
  fs.writeFileSync(p, text);
  return p;
};

beforeAll(async () => {
  db = await testDatabase();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-config-cli-'));
  await applyTasks(db.pool, [
    { name: 'send-email', groups: [{ name: 'tenant', limit: 20, keyPath: 'tenant', overrides: { acme: 50 } }, { name: 'message', limit: 1, keyPath: 'message.id' }] },
    { name: 'resize' },
  ]);
});

describe('sluice config diff / export / apply', () => {
  it('diff shows the change per task and field, ignores group order, writes nothing', async () => {
    const edited = file(
      'edited.yaml',
      stringify({
        tasks: [
          { name: 'send-email', groups: [{ name: 'message', limit: 1, keyPath: 'message.id' }, { name: 'tenant', limit: 5, keyPath: 'tenant', overrides: { acme: 50, globex: 2 } }] },
          { name: 'webhooks', concurrency: 3 },
        ],
      }),
    );
    const r = await sluice(['config', 'diff', edited]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim().split('\n')).toEqual([
      'against version 1:',
      'resize: task removed',
      'send-email: groups.tenant.limit 20 → 5',
      'send-email: groups.tenant.overrides.globex added (2)',
      'webhooks: task added',
    ]);
    expect((await db.pool.query('SELECT count(*)::int AS n FROM config_versions')).rows[0]).toEqual({ n: 1 });
  });

  it('diff of an invalid file reports its field errors', async () => {
    const bad = file('bad.yaml', stringify({ tasks: [{ name: 'x', concurrency: 0, thresholds: { depth: { warning: 9, critical: 1 } } }] }));
    const r = await sluice(['config', 'diff', bad]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('tasks.0.concurrency: must be at least 1');
    expect(r.stderr).toContain('tasks.0.thresholds.depth.warning: warning must be below critical');
  });

  it('apply of a file with NUL or an unpaired surrogate in its strings: field errors, no stack trace, nothing stored', async () => {
    // YAML's "\0" and "\ud800" escapes; JSON's \u0000 in a key of the overrides map.
    const yaml = file('nul.yaml', 'tasks:\n  - name: nul-task\n    description: "before\\0after"\n    groups:\n      - name: tenant\n        limit: 2\n        overrides: { "ac\\0me": 3 }\n');
    const json = file('surrogate.json', '{"tasks":[{"name":"s-task","description":"\\ud800"}]}');
    const versions = async () => (await db.pool.query('SELECT count(*)::int AS n FROM config_versions')).rows[0].n;
    const before = await versions();
    const a = await sluice(['config', 'apply', yaml, '-m', 'nul']);
    expect(a.code).toBe(2);
    expect(a.stderr).toContain('tasks.0.description: must not contain a NUL character');
    expect(a.stderr).toContain('tasks.0.groups.0.overrides: has a key that must not contain a NUL character');
    expect(a.stderr).not.toContain('\u0000'); // the hostile key itself is not echoed
    const b = await sluice(['config', 'apply', json]);
    expect(b.code).toBe(2);
    expect(b.stderr).toContain('tasks.0.description: must be valid Unicode text');
    for (const r of [a, b]) expect(r.stderr).not.toMatch(/\n\s+at /); // no stack frames
    expect(await versions()).toBe(before);
  });

  it('export → apply round-trips exactly: the diff is empty and the re-export is the same text', async () => {
    const exported = await sluice(['config', 'export']);
    expect(exported.code, exported.stderr).toBe(0);
    const f = file('exported.yaml', exported.stdout);
    expect((await sluice(['config', 'diff', f])).stdout.trim()).toBe('no changes against version 1');
    const applied = await sluice(['config', 'apply', f, '-m', 'round trip']);
    expect(applied.stdout).toContain('applied config version 2');
    const again = await sluice(['config', 'export']);
    expect(again.stdout).toBe(exported.stdout);
  });

  it("the console's YAML download applies as-is and changes nothing", async () => {
    const download = await exportConfigYaml(db.pool);
    const f = file(download.filename, download.yaml);
    expect((await sluice(['config', 'diff', f])).stdout.trim()).toMatch(/^no changes against version \d+$/);
    expect(parse(download.yaml).tasks.map((t: { name: string }) => t.name)).toEqual(['resize', 'send-email']);
  });
});
