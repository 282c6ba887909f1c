// The dashboard benchmark (`npm run bench:dashboard`): a `--quick` run on this run's
// Postgres writes the JSON figures with a measured overview p95 per range, and rejects
// unknown arguments with a clear error.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runBench as run } from '../support/run-bench';

const runBench = (args: string[]) => run('bench/dashboard.ts', args);

describe('npm run bench:dashboard -- --quick', () => {
  it('measures the overview API on 64 partitions and writes {overview_p95_ms}', async () => {
    const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-bench-dashboard-')), 'quick.json');
    const { code, output } = await runBench(['--quick', '--json', out]);
    expect(code, output).toBe(0);
    const r = JSON.parse(fs.readFileSync(out, 'utf8'));
    expect(r).toMatchObject({ quick: true, partitions: 64, target_p95_ms: 50 });
    expect(r.overview_p95_ms).toBeGreaterThan(0);
    expect(r.overview_p95_ms).toBe(r.overview_by_range['24h'].p95);
    // 2 h of data: the 24 h range is drawn as the smallest range holding it, 6 h of
    // 1-minute buckets (core/chart-scale fitRange); 1 h is more than half covered, as asked.
    expect(r.overview_by_range['24h'].points).toBe(361);
    expect(r.overview_by_range['1h'].points).toBe(361);
    expect(r.samples_written).toBe((2 * 3600) / 10 * 65 + 1 * 65 + 3 * (3600 / 10 + 1) * 9);
    expect(r.rollup_catch_up_ms).toBeGreaterThan(0);
    expect(output).toContain('overview_p95_ms');
  }, 180_000);

  it('rejects an unknown argument', async () => {
    const { code, output } = await runBench(['--fast']);
    expect(code).toBe(2);
    expect(output).toMatch(/unknown argument\(s\): --fast/);
  });
});
