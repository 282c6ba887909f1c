// bench/dlq.ts --quick runs end to end (20k dead letters, 5k replayed through the real
// path) and writes {list_p95_ms, replay_per_s}; the bench itself fails when the replay
// does not complete or creates a different number of executions.
import { describe, it, expect } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..', '..');

describe('bench/dlq.ts --quick', () => {
  it('writes list p95 and replay throughput', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'dlq-bench-'));
    const file = path.join(dir, 'out.json');
    try {
      const r = spawnSync(process.execPath, [path.join(root, 'node_modules', 'tsx', 'dist', 'cli.mjs'), 'bench/dlq.ts', '--quick', '--json', file], {
        cwd: root,
        encoding: 'utf8',
        timeout: 240_000,
      });
      expect(r.status, `${r.stdout}\n${r.stderr}`).toBe(0);
      const out = JSON.parse(readFileSync(file, 'utf8'));
      expect(out).toMatchObject({ quick: true, dead_letters: 20_000, replayed: 5_000 });
      expect(out.list_p95_ms).toBeGreaterThan(0);
      expect(out.list_p95_ms).toBeLessThan(2_000);
      expect(out.replay_per_s).toBeGreaterThan(0);
      expect(r.stdout).toContain('list p95 over');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 300_000);
});
