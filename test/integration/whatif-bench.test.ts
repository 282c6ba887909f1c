// The what-if benchmark (`npm run bench:whatif`) in its short form (`--quick`: 10 minutes of
// traffic at 1,000 arrivals/s simulated, 8 batches per measured config on a real
// coordinator): it runs every part and writes each figure as a number.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runBench } from '../support/run-bench';

describe('npm run bench:whatif -- --quick', () => {
  it('simulates, predicts the five changes, measures them, and writes the figures', async () => {
    const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-bench-whatif-')), 'whatif.json');
    const { code, output } = await runBench('bench/whatif.ts', ['--quick', '--json', out], 300_000);
    expect(code, output).toBe(0);
    const r = JSON.parse(fs.readFileSync(out, 'utf8')) as Record<string, unknown>;
    for (const k of ['whatif_sim_ms', 'whatif_sim_best_ms', 'whatif_sim_cpu_ms', 'whatif_max_error_pct']) {
      expect(typeof r[k], k).toBe('number');
      expect(Number.isFinite(r[k]), k).toBe(true);
    }
    expect(r.whatif_arrivals).toBe(600_000);
    expect(r.whatif_sim_ms as number).toBeGreaterThan(0);
    const changes = r.whatif_changes as { name: string; throughputPerS: number }[];
    expect(changes.map((c) => c.name)).toHaveLength(5);
    for (const c of changes) expect(c.throughputPerS, c.name).toBeGreaterThan(0);
    expect((r.whatif_measured as unknown[]).length).toBeGreaterThan(5);
    expect(output).toContain('prediction vs measurement on real coordinators');
  }, 320_000);
});
