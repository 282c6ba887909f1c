// `npm run bench:push -- --quick`: a short run with 4 real coordinators writes the JSON
// the full run writes, with figures that come from a real measurement (positive, push
// below the config poll period so it came through NOTIFY, reconvergence after every
// coordinator connection was killed), and bad arguments are refused.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runBench as run } from '../support/run-bench';

const runBench = (args: string[], timeoutMs: number) => run('bench/push.ts', args, timeoutMs);

describe('npm run bench:push', () => {
  it('--quick measures push latency and reconvergence with 4 coordinators and writes the JSON', async () => {
    const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-bench-push-')), 'quick.json');
    const { code, output } = await runBench(['--quick', '--json', out], 170_000);
    expect(code, output.slice(-4000)).toBe(0);
    const j = JSON.parse(fs.readFileSync(out, 'utf8')) as Record<string, unknown>;
    expect(j).toMatchObject({ coordinators: 4, pushes: 8 });
    for (const k of ['p50_ms', 'p99_ms', 'max_ms', 'reconverge_ms']) expect(typeof j[k], k).toBe('number');
    const { p50_ms, p99_ms, max_ms, reconverge_ms } = j as { p50_ms: number; p99_ms: number; max_ms: number; reconverge_ms: number };
    expect(p50_ms).toBeGreaterThan(0);
    expect(p50_ms).toBeLessThanOrEqual(p99_ms);
    expect(p99_ms).toBeLessThanOrEqual(max_ms);
    // The coordinators' config poll is 5 s in the bench: anything faster came by NOTIFY.
    expect(max_ms).toBeLessThan(5000);
    expect(reconverge_ms).toBeGreaterThan(0);
    expect(reconverge_ms).toBeLessThan(30_000);
    expect(output).toMatch(/round 1: killed \d+ coordinator connections; all 4 applied version \d+/);
  }, 180_000);

  it('refuses unknown or malformed arguments', async () => {
    const bad = await runBench(['--coordinators', 'many'], 30_000);
    expect(bad.code).toBe(2);
    expect(bad.output).toContain('--coordinators must be a whole number from 1 to 32, got "many"');
    const unknown = await runBench(['--fast'], 30_000);
    expect(unknown.code).toBe(2);
    expect(unknown.output).toContain('unknown argument(s): --fast');
  }, 70_000);
});
