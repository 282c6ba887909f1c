// `sluice config apply --guard <duration>` through the real CLI: a bad duration (or a
// guard flag without --guard) is refused with a message naming the flag and nothing is
// stored; a good one stores the version and its baking guard, audited as the CLI user.
import { describe, it, expect, beforeAll } from 'vitest';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { stringify } from 'yaml';
import { testDatabase, type TestDatabase } from './db';
import { applyTasks } from '../support/engine-fixtures';

const root = path.resolve(import.meta.dirname, '..', '..');
let db: TestDatabase;
let edited: string;

function sluice(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [path.join(root, 'bin', 'sluice.js'), ...args], { cwd: root, env: { ...process.env, DATABASE_URL: db.url } }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}
const latest = async () => (await db.pool.query<{ v: number }>('SELECT max(version)::int AS v FROM config_versions')).rows[0]!.v;

beforeAll(async () => {
  db = await testDatabase();
  await applyTasks(db.pool, [{ name: 'send-email', groups: [{ name: 'tenant', limit: 8, keyPath: 'tenant' }] }, { name: 'resize' }]);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-guard-cli-'));
  edited = path.join(dir, 'edited.yaml');
  fs.writeFileSync(edited, stringify({ tasks: [{ name: 'send-email', groups: [{ name: 'tenant', limit: 1, keyPath: 'tenant' }] }, { name: 'resize' }] }));
});

describe('sluice config apply --guard', () => {
  it.each<[string[], RegExp]>([
    [['--guard', 'soon'], /--guard takes a duration such as 10m, 90s or 1h30m, got "soon"/],
    [['--guard', '10'], /--guard takes a duration/],
    [['--guard', '5s'], /--guard must be at least 30s, got "5s"/],
    [['--guard', '25h'], /--guard must be at most 24h, got "25h"/],
    [['--guard', '10m', '--guard-severity', 'fatal'], /--guard-severity must be warning or critical/],
    [['--guard', '10m', '--guard-rule', 'no such!'], /--guard-rule must be an alert rule name/],
    [['--guard-rule', 'depth'], /--guard-rule and --guard-severity need --guard <duration>/],
  ])('refuses %j, storing nothing', async (flags, message) => {
    const before = await latest();
    const r = await sluice(['config', 'apply', edited, '-m', 'guarded', ...flags]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(message);
    expect(await latest()).toBe(before);
    expect((await db.pool.query('SELECT count(*)::int AS n FROM config_guards')).rows[0].n).toBe(0);
  }, 30_000);

  it('stores the version with its baking guard', async () => {
    const before = await latest();
    const r = await sluice(['config', 'apply', edited, '-m', 'globex down, guarded', '--guard', '10m', '--guard-rule', 'depth']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`applied config version ${before + 1}`);
    expect(r.stdout).toContain(`roll back to version ${before} by themselves if depth at critical fires within 10m`);
    const g = await db.pool.query(`SELECT version::int, previous_version::int, tasks, bake_ms, rule_severity, rule_name, status, created_by FROM config_guards`);
    expect(g.rows).toEqual([
      { version: before + 1, previous_version: before, tasks: ['send-email'], bake_ms: 600_000, rule_severity: 'critical', rule_name: 'depth', status: 'baking', created_by: expect.stringMatching(/^cli \(/) },
    ]);
  }, 30_000);
});
