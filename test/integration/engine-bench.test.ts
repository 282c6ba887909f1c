// The engine benchmark (`npm run bench`): a `--quick` run on this run's Postgres writes
// every figure the issue names as a measured, positive number, and bad arguments stop it
// with a clear error and status 2.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runBench as run } from '../support/run-bench';

const runBench = (args: string[], timeoutMs?: number) => run('bench/engine.ts', args, timeoutMs);

const KEYS = [
  'w1_jobs_per_s',
  'w2_jobs_per_s',
  'w2_skew_jobs_per_s',
  'w3_pickup_p50_ms',
  'w3_pickup_p99_ms',
  'w4_jobs_per_s',
  'w5_rate_error_pct',
  'w5_max_window_excess',
  'w6_jain',
  'w6_jain_fifo',
  'w6_rate_ratio',
  'w7_jobs_per_s',
  'w7_pct_of_w1',
  'claim_p99_ms_1k_keys',
  'claim_p99_ms_10k_keys',
  'claim_p99_ms_10g_1k_keys',
  'claim_p99_ms_10g_10k_keys',
];

describe('npm run bench -- --quick', () => {
  it('writes every engine figure as a measured number and prints the table', async () => {
    const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-bench-engine-')), 'quick.json');
    const { code, output } = await runBench(['--quick', '--json', out]);
    expect(code, output).toBe(0);
    const r = JSON.parse(fs.readFileSync(out, 'utf8')) as Record<string, number>;
    for (const k of KEYS) {
      expect(typeof r[k], k).toBe('number');
      expect(Number.isFinite(r[k]), k).toBe(true);
    }
    for (const k of ['w1_jobs_per_s', 'w2_jobs_per_s', 'w2_skew_jobs_per_s', 'w4_jobs_per_s', 'w7_jobs_per_s', 'w7_pct_of_w1', 'claim_p99_ms_1k_keys', 'claim_p99_ms_10k_keys', 'claim_p99_ms_10g_1k_keys', 'claim_p99_ms_10g_10k_keys']) expect(r[k], k).toBeGreaterThan(0);
    // W7's ratio is W1's of the same run, as printed
    expect(r.w7_pct_of_w1).toBe(Math.round((100 * r.w7_jobs_per_s!) / r.w1_jobs_per_s!));
    expect(output).toMatch(/W7 10 groups × 100 keys, 5\/key\s+\d+ jobs\/s \(\d+% of W1\)/);
    // the opt-in group-count workload stays out of the default run
    expect(Object.keys(r).some((k) => k.startsWith('groups_'))).toBe(false);
    // pickup is measured from the enqueue call's return, so it can be 0 but never below
    expect(r.w3_pickup_p50_ms).toBeGreaterThanOrEqual(0);
    expect(r.w3_pickup_p99_ms).toBeGreaterThanOrEqual(r.w3_pickup_p50_ms!);
    expect(r.w3_enqueue_to_start_p50_ms).toBeGreaterThan(0);
    // batched claims and finishes: far fewer commits than jobs
    expect(r.w1_commits_per_job).toBeLessThan(1);
    expect(r.w2_commits_per_job).toBeLessThan(1);
    expect(output).toContain('W3 pickup latency');
    // W6 (issue #19): Jain's index is in (0, 1]; the rate ratio is fair ÷ oldest-first of the same run, as printed
    for (const k of ['w6_jain', 'w6_jain_fifo']) {
      expect(r[k], k).toBeGreaterThan(0);
      expect(r[k], k).toBeLessThanOrEqual(1);
    }
    expect(r.w6_rate_ratio).toBeCloseTo(r.w6_fair_jobs_per_s! / r.w6_fifo_jobs_per_s!, 1);
    expect(output).toMatch(/W6 flood \(90% on 1 of 10 tenants\), fair share\s+Jain [\d.]+ \(goal ≥ 0\.98\)/);
    expect(output).toMatch(/W6 rate, fair ÷ oldest-first\s+[\d.]+× \(goal ≥ 0\.9\)/);
    // W5 (rate limits): an error is a percentage and the window excess a count, never negative;
    // the run started work (a broken rate limit that starts nothing reports 100%)
    expect(r.w5_rate_error_pct).toBeGreaterThanOrEqual(0);
    expect(r.w5_rate_error_pct).toBeLessThan(100);
    expect(r.w5_max_window_excess).toBeGreaterThanOrEqual(0);
    expect(Number.isInteger(r.w5_max_window_excess)).toBe(true);
    expect(r.w5_jobs_per_s).toBeGreaterThan(0);
    expect(output).toMatch(/W5 20 keys × 20\/s \(burst 2\), 6 s\s+rate error ≤ [\d.]+%/);
    // the keys' own steady rates, lowest ≤ median ≤ highest
    expect(r.w5_rate_min).toBeLessThanOrEqual(r.w5_rate_median!);
    expect(r.w5_rate_median).toBeLessThanOrEqual(r.w5_rate_max!);
    expect(output).toContain('targets: W2 ≥ 60% of W1');
  }, 180_000);

  it('--repeat runs W1, W2 and W7 in turns and reports the medians', async () => {
    const { code, output } = await runBench(['--quick', '--only', 'w1,w2,w7', '--repeat', '2']);
    expect(code, output).toBe(0);
    expect(output).toMatch(/W1 ungrouped burn-down\s+\d+ jobs\/s .*median of \d+, \d+/);
    expect(output).toMatch(/W2 .*median of \d+, \d+; per turn \d+%, \d+%/);
    expect(output).toMatch(/W7 .*median of \d+, \d+; per turn \d+%, \d+%/);
  }, 180_000);

  it('refuses bad arguments with a clear error and status 2', async () => {
    const bad = await runBench(['--only', 'w9']);
    expect(bad.code).toBe(2);
    expect(bad.output).toContain('--only takes a comma-separated list of w1, w2, w2fair, w2skew, w3, w4, w5, w6, w7, claim, groups');
    const w5 = await runBench(['--w5', '100,50,5']);
    expect(w5.code).toBe(2);
    expect(w5.output).toContain('--w5 takes K,R,B,S');
    const rep = await runBench(['--repeat', '0']);
    expect(rep.code).toBe(2);
    expect(rep.output).toContain('--repeat takes a whole number from 1 to 20');
  }, 60_000);
});
