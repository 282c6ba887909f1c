// bench/executions.ts --quick runs end to end (60k executions over 10,000 keys, W2 4,000
// jobs alone and beside the reads) and writes {executions_list_p95_ms,
// execution_detail_p95_ms, w2_drop_pct} as measured numbers; the bench itself fails when a
// detail comes back without a why-waiting reply.
import { describe, it, expect } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runBench } from '../support/run-bench';

describe('bench/executions.ts --quick', () => {
  it('writes the list and detail p95 and the W2 drop beside them', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'executions-bench-'));
    const file = path.join(dir, 'out.json');
    try {
      const r = await runBench('bench/executions.ts', ['--quick', '--json', file], 280_000);
      expect(r.code, r.output).toBe(0);
      const out = JSON.parse(readFileSync(file, 'utf8'));
      expect(out).toMatchObject({ quick: true, executions: 60_000, keys: 10_000 });
      expect(out.executions_list_p95_ms).toBeGreaterThan(0);
      expect(out.execution_detail_p95_ms).toBeGreaterThan(0);
      expect(out.executions_list_p95_ms).toBeLessThan(5_000);
      expect(out.execution_detail_p95_ms).toBeLessThan(5_000);
      expect(Object.keys(out.list_p95_by_shape_ms).length).toBeGreaterThanOrEqual(10);
      expect(r.output).toContain('list p95 over');
      // W2 burned down twice (alone, beside the reads): both rates measured, the drop is
      // their ratio (it may be negative on a noisy machine, never NaN), the reads ran.
      expect(out.w2_alone_jobs_per_s).toBeGreaterThan(0);
      expect(out.w2_with_reads_jobs_per_s).toBeGreaterThan(0);
      expect(typeof out.w2_drop_pct).toBe('number');
      expect(Number.isFinite(out.w2_drop_pct)).toBe(true);
      expect(out.w2_drop_pct).toBeCloseTo(100 * (1 - out.w2_with_reads_jobs_per_s / out.w2_alone_jobs_per_s), 0);
      expect(out.w2_reads_per_s).toBeGreaterThan(0);
      expect(out.executions_list_p95_ms_during_w2).toBeGreaterThan(0);
      expect(out.execution_detail_p95_ms_during_w2).toBeGreaterThan(0);
      expect(r.output).toMatch(/w2_drop_pct -?\d+\.\d% \(target ≤ 10%\)/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 300_000);
});
