// The soak benchmark (`npm run bench:soak`): a half-minute run on this run's Postgres
// goes through every phase (capacity, steady arrivals, held snapshot, release) and writes
// each soak_* figure as a number; bad arguments stop it with status 2.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runBench } from '../support/run-bench';

describe('npm run bench:soak -- --minutes 0.5', () => {
  it('runs and writes the soak figures as numbers', async () => {
    const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-bench-soak-')), 'soak.json');
    // two coordinators, not the default three: the count is an argument the run obeys
    const { code, output } = await runBench('bench/soak.ts', ['--minutes', '0.5', '--coordinators', '2', '--json', out], 240_000);
    expect(code, output).toBe(0);
    const r = JSON.parse(fs.readFileSync(out, 'utf8')) as Record<string, unknown>;
    for (const k of ['soak_rate_ratio_held', 'soak_rate_ratio_after', 'soak_size_growth_pct', 'soak_pickup_p99_ms', 'soak_w2_capacity_per_s', 'soak_arrival_per_s', 'soak_pickup_after_commit_p99_ms']) {
      expect(typeof r[k], k).toBe('number');
      expect(Number.isFinite(r[k]), k).toBe(true);
    }
    expect(r.soak_rate_ratio_held as number).toBeGreaterThan(0);
    expect(r.soak_w2_capacity_per_s as number).toBeGreaterThan(0);
    expect(r.soak_coordinators).toBe(2);
    expect(output).toContain('W2 capacity with 2 coordinator(s)');
    expect(output).toMatch(/Sluice soak \(0\.5 min, 2 coordinator\(s\), producer tick 100 ms/);
    // the pickup after the enqueue call returned is part of the whole pickup
    expect(r.soak_pickup_after_commit_p99_ms as number).toBeLessThanOrEqual(r.soak_pickup_p99_ms as number);
    expect(output).toContain('snapshot held from');
    expect(output).toContain('snapshot released at');
    expect(output).toMatch(/succeeded\/s before the hold \d+/);
    // the per-bucket table carries the pickup's parts (the enqueue call, enqueue → claim, after
    // the call returned), this process's event-loop delay and how long a row held its slots
    expect(output).toMatch(/enqueue p99 +to claim p99 +after commit p99 +loop p99\/max +slot p50\/p99/);
    expect(output).toMatch(/ \d+ ms +\d+\/\d+ ms +\d+\/\d+ ms +\d+\.\d /);
  }, 250_000);

  it('refuses bad arguments', async () => {
    const { code, output } = await runBench('bench/soak.ts', ['--minutes', 'x']);
    expect(code).toBe(2);
    expect(output).toContain('--minutes takes a number');
    const rate = await runBench('bench/soak.ts', ['--rate', '0']);
    expect(rate.code).toBe(2);
    expect(rate.output).toContain('--rate takes a number');
    const members = await runBench('bench/soak.ts', ['--coordinators', '0']);
    expect(members.code).toBe(2);
    expect(members.output).toContain('--coordinators takes a whole number from 1 to 16');
  }, 60_000);
});
