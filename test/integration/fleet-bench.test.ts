// The fleet benchmark (`npm run bench:fleet`, issue #18 "many hosts, in a simulation"): a
// short run — 1 and 3 coordinators through the bench's own PgBouncer, 400 jobs — writes
// every figure as a number; the bouncer holds the database's server connections to its pool
// while the clients grow with the members; bad arguments stop it with status 2.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runBench } from '../support/run-bench';

describe('npm run bench:fleet -- --members 1,3 --jobs 400 --pool 4', () => {
  it('runs both member counts and writes the fleet figures as numbers', async () => {
    const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-bench-fleet-')), 'fleet.json');
    const { code, output } = await runBench('bench/fleet.ts', ['--members', '1,3', '--jobs', '400', '--pool', '4', '--json', out], 240_000);
    expect(code, output).toBe(0);
    const r = JSON.parse(fs.readFileSync(out, 'utf8')) as Record<string, number>;
    for (const n of [1, 3]) {
      for (const k of ['jobs_per_s', 'commits_per_s', 'commits_per_job', 'pg_cpu_ms_per_1k', 'pg_ceiling_jobs_per_s', 'backends', 'clients', 'bench_cpu_pct']) {
        const key = `fleet_${n}_${k}`;
        expect(typeof r[key], key).toBe('number');
        expect(Number.isFinite(r[key]), key).toBe(true);
      }
      expect(r[`fleet_${n}_jobs_per_s`]).toBeGreaterThan(0);
      expect(r[`fleet_${n}_commits_per_job`]).toBeGreaterThan(0);
      expect(r[`fleet_${n}_pg_cpu_ms_per_1k`]).toBeGreaterThan(0);
    }
    // server connections: the bouncer's pool (4) plus the bench's own direct pool (≤ 4);
    // clients: every member's pool through the bouncer, more with 3 members than with 1
    expect(r.fleet_3_backends).toBeLessThanOrEqual(8);
    expect(r.fleet_3_clients).toBeGreaterThan(r.fleet_1_clients!);
    expect(r.fleet_pool).toBe(4);
    expect(output).toMatch(/members +jobs\/s +commits\/s/);
  }, 250_000);

  it('refuses bad arguments', async () => {
    const m = await runBench('bench/fleet.ts', ['--members', '0']);
    expect(m.code).toBe(2);
    expect(m.output).toContain('--members takes a comma-separated list');
    const p = await runBench('bench/fleet.ts', ['--pool', '1']);
    expect(p.code).toBe(2);
    expect(p.output).toContain('--pool takes a whole number');
  }, 60_000);
});
