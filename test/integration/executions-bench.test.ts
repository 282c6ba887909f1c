// bench/executions.ts --quick runs end to end (60k executions over 10,000 keys) and writes
// {executions_list_p95_ms, execution_detail_p95_ms}; the bench itself fails when a
// detail comes back without a why-waiting reply.
import { describe, it, expect } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runBench } from '../support/run-bench';

describe('bench/executions.ts --quick', () => {
  it('writes the list and detail p95', async () => {
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
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 300_000);
});
