// The two outside doors the integration tests knock on: a REST route handler called as
// Next calls it (a Request with an API token, and its params as a promise), and the real
// CLI (`node bin/sluice.js …`, a child process on the test's database).
import { spawn } from 'node:child_process';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..', '..');

/** A request to a route handler with `Authorization: Bearer <token>`; a JSON body when `body` (or `raw`, sent as is) is given. */
export function apiRequest(
  url: string,
  token: string,
  init: { method?: string; body?: unknown; raw?: string; headers?: Record<string, string> } = {},
): Request {
  const body = init.raw ?? (init.body !== undefined ? JSON.stringify(init.body) : undefined);
  return new Request(`http://localhost${url}`, {
    method: init.method ?? 'GET',
    headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...init.headers },
    ...(body !== undefined ? { body } : {}),
  });
}

/** A route handler's second argument. */
export const routeParams = <P,>(p: P) => ({ params: Promise.resolve(p) });

/** Runs `sluice <args>` to completion against `databaseUrl`. */
export function runCli(databaseUrl: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, [path.join(root, 'bin', 'sluice.js'), ...args], { cwd: root, env: { ...process.env, DATABASE_URL: databaseUrl } });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d) => (stdout += d));
    p.stderr.on('data', (d) => (stderr += d));
    p.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}
