// Runs one of the bench/ scripts as a child process (tsx, the repo root as cwd) against
// this test run's Postgres server, with a hard timeout; resolves with its exit code and
// everything it printed. The bench tests' short versions of `npm run bench*` use it.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { inject } from 'vitest';

export const ROOT = path.resolve(import.meta.dirname, '..', '..');

export function runBench(script: string, args: string[], timeoutMs = 170_000): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs'), script, ...args], {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: inject('pgAdminUrl') },
      stdio: ['ignore', 'pipe', 'pipe'],
      // Its own process group: the timeout kills tsx and the script it runs (killing tsx
      // alone left the script running after the test).
      detached: true,
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    }, timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}
