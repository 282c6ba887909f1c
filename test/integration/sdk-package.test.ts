// The SDK as a package (docs/handlers.md § "Enqueue from your code"): `npm run build:sdk`
// emits dist/ (ESM + .d.ts); the built files import nothing but each other (no pg, Prisma,
// Next or server module); a consumer project in a temp dir — package.json type module, the
// package linked at node_modules/sluice as `npm install file:<checkout>` links it — imports
// `sluice/sdk` by name, typechecks with tsc against the emitted types (a misspelt field
// fails the check), and runs against this test's HTTP server, which serves the real route
// handlers; the execution it enqueued is then read from the database.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync, statSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { testDatabase, type TestDatabase } from './db';
import { applyTasks } from '../support/engine-fixtures';
import { createToken } from '../../server/services/tokens';
import { SYSTEM_ACTOR } from '../../server/db/audit';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const DIST = path.join(ROOT, 'dist');
const TSC = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
const TRACEPARENT = '00-5e7b2c6a9f1d4e3b8a0c1d2e3f405162-1a2b3c4d5e6f7a8b-01';

let db: TestDatabase;
let token: string;
let server: http.Server;
let url: string;
let consumer: string;

function run(cmd: string, args: string[], cwd: string, env: Record<string, string> = {}) {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', env: { ...process.env, ...env }, timeout: 480_000 });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

/** As run(), without blocking this process: the consumer talks to the server in it. */
function runAsync(cmd: string, args: string[], cwd: string, env: Record<string, string>): Promise<{ status: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, env: { ...process.env, ...env }, timeout: 120_000 });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, out }));
  });
}

/** The route handlers behind a real port: what `next start` serves for these two paths. */
async function startServer(): Promise<void> {
  const enqueue = await import('../../app/api/v1/tasks/[task]/executions/route');
  const execution = await import('../../app/api/v1/executions/[id]/route');
  server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers.set(k, v);
    const request = new Request(`http://127.0.0.1${req.url}`, { method: req.method, headers, ...(chunks.length ? { body: Buffer.concat(chunks) } : {}) });
    const { pathname } = new URL(request.url);
    let m = /^\/api\/v1\/tasks\/([^/]+)\/executions$/.exec(pathname);
    let reply: Response;
    if (m && req.method === 'POST') reply = await enqueue.POST(request, { params: Promise.resolve({ task: decodeURIComponent(m[1]!) }) });
    else if ((m = /^\/api\/v1\/executions\/([^/]+)$/.exec(pathname)) && req.method === 'GET') reply = await execution.GET(request, { params: Promise.resolve({ id: m[1]! }) });
    else reply = new Response('{"error":"not found"}', { status: 404 });
    res.writeHead(reply.status, Object.fromEntries(reply.headers));
    res.end(Buffer.from(await reply.arrayBuffer()));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  db = await testDatabase();
  process.env.DATABASE_URL = db.url;
  token = (await createToken(db.pool, SYSTEM_ACTOR, { name: 'consumer', role: 'producer' })).token;
  await applyTasks(db.pool, [{ name: 'consumer-task', partitions: 2, groups: [{ name: 'tenant', limit: 2, keyPath: 'tenant' }] }]);
  await startServer();
  consumer = mkdtempSync(path.join(os.tmpdir(), 'sluice-consumer-'));
});

afterAll(async () => {
  await new Promise((r) => server?.close(r));
  if (consumer) rmSync(consumer, { recursive: true, force: true });
});

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = path.join(dir, f);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

describe('sluice/sdk as a package', () => {
  it('npm run build:sdk emits ESM + .d.ts that import nothing of the server', { timeout: 300_000 }, () => {
    rmSync(DIST, { recursive: true, force: true });
    const built = run(process.execPath, [TSC, '-p', 'tsconfig.sdk.json'], ROOT);
    expect(built.out).toBe('');
    expect(built.status).toBe(0);
    const files = filesUnder(DIST).map((f) => path.relative(DIST, f)).sort();
    expect(files).toEqual(['core/trace-context.d.ts', 'core/trace-context.js', 'sdk/index.d.ts', 'sdk/index.js']);
    const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
    expect(pkg.type).toBe('module');
    expect(pkg.exports['./sdk']).toEqual({ types: './dist/sdk/index.d.ts', import: './dist/sdk/index.js' });
    for (const f of files) {
      const text = readFileSync(path.join(DIST, f), 'utf8');
      const specifiers = [...text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g)].map((m) => m[1] ?? m[2]!);
      for (const s of specifiers) {
        // Only relative imports, each resolving to a built file of the package.
        expect(s, `${f} imports ${s}`).toMatch(/^\.\.?\//);
        const target = path.resolve(path.dirname(path.join(DIST, f)), s);
        expect(target.startsWith(DIST + path.sep), `${f} imports ${s} outside dist/`).toBe(true);
        expect(files, `${f} imports ${s}`).toContain(path.relative(DIST, target));
      }
      expect(text).not.toMatch(/\bfrom ['"](pg|next|@prisma\/[^'"]*|prisma|node:[^'"]*)['"]|server\/db|server\/services/);
    }
  });

  it('a consumer project imports it by name, typechecks against its types and enqueues', { timeout: 600_000 }, async () => {
    // The consumer: what `npm install file:<checkout>` gives (a link), plus @types/node.
    writeFileSync(path.join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module', dependencies: { sluice: `file:${ROOT}` } }, null, 2));
    mkdirSync(path.join(consumer, 'node_modules', '@types'), { recursive: true });
    symlinkSync(ROOT, path.join(consumer, 'node_modules', 'sluice'), 'dir');
    symlinkSync(path.join(ROOT, 'node_modules', '@types', 'node'), path.join(consumer, 'node_modules', '@types', 'node'), 'dir');
    writeFileSync(
      path.join(consumer, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, outDir: 'out', types: ['node'], skipLibCheck: false }, include: ['src'] }),
    );
    mkdirSync(path.join(consumer, 'src'));
    writeFileSync(
      path.join(consumer, 'src', 'main.ts'),
      `import { createClient, SluiceApiError, SluiceNotFoundError, SluiceValidationError, type EnqueueInput, type SluiceErrorCode } from 'sluice/sdk';

const sluice = createClient({ url: process.env.SLUICE_URL!, token: process.env.SLUICE_TOKEN! });
const input: EnqueueInput = { payload: { tenant: 'acme', n: 1 }, idempotencyKey: 'consumer-1', delayMs: 0, priority: 7 };
const first = await sluice.enqueue('consumer-task', input, { traceparent: '${TRACEPARENT}' });
const again = await sluice.enqueue('consumer-task', input);

async function codeOf(p: Promise<unknown>): Promise<{ code: SluiceErrorCode; cls: string; field?: string } | null> {
  try {
    await p;
    return null;
  } catch (e) {
    if (e instanceof SluiceValidationError) return { code: e.code, cls: 'validation', field: e.fieldErrors[0]?.path };
    if (e instanceof SluiceNotFoundError) return { code: e.code, cls: 'not-found' };
    if (e instanceof SluiceApiError) return { code: e.code, cls: 'api' };
    throw e;
  }
}
const errors = {
  unknownTask: await codeOf(sluice.enqueue('no-such-task', { payload: {} })),
  badDelay: await codeOf(sluice.enqueue('consumer-task', { payload: {}, delayMs: -5 })),
  badPriority: await codeOf(sluice.enqueue('consumer-task', { payload: {}, priority: 1001 })),
  badTrace: await codeOf(sluice.enqueue('consumer-task', { payload: {} }, { traceparent: 'not-a-traceparent' })),
  network: await codeOf(createClient({ url: 'http://127.0.0.1:9', token: 't' }).enqueue('consumer-task', { payload: {} })),
};
console.log(JSON.stringify({ first, again, errors }));
`,
    );
    // The types are really checked: beside main.ts, a file with a misspelt field and a
    // wrong option type. One tsc run (each takes half a minute on a loaded machine): it
    // must report exactly those two errors, none in main.ts, and still emit main.js.
    writeFileSync(
      path.join(consumer, 'src', 'wrong.ts'),
      `import { createClient } from 'sluice/sdk';
const c = createClient({ url: 'x', token: 'y' });
await c.enqueue('t', { payload: 1, idempotencyKy: 'k' });
await c.enqueue('t', { payload: 1 }, { traceparent: 42 });
`,
    );
    const typecheck = run(process.execPath, [TSC, '-p', '.'], consumer);
    const errors = typecheck.out.split('\n').filter((l) => /error TS\d+/.test(l));
    expect(typecheck.status, typecheck.out).toBe(2);
    expect(errors, typecheck.out).toHaveLength(2);
    expect(errors[0]).toMatch(/^src\/wrong\.ts\(3,\d+\).*'idempotencyKy' does not exist/);
    expect(errors[1]).toMatch(/^src\/wrong\.ts\(4,\d+\).*'number' is not assignable to type 'string'/);

    const ran = await runAsync(process.execPath, ['out/main.js'], consumer, { SLUICE_URL: url, SLUICE_TOKEN: token });
    expect(ran.status, ran.out).toBe(0);
    const result = JSON.parse(ran.out.trim().split('\n').at(-1)!);
    expect(result.first).toMatchObject({ id: expect.any(Number), state: 'queued', deduplicated: false });
    expect(result.again).toMatchObject({ id: result.first.id, deduplicated: true });
    expect(result.errors).toEqual({
      unknownTask: { code: 'NOT_FOUND', cls: 'not-found' },
      badDelay: { code: 'BAD_REQUEST', cls: 'validation', field: 'delayMs' },
      badPriority: { code: 'BAD_REQUEST', cls: 'validation', field: 'priority' },
      badTrace: { code: 'BAD_REQUEST', cls: 'validation', field: 'traceparent' },
      network: { code: 'NETWORK', cls: 'api' },
    });

    const row = await db.pool.query('SELECT task, payload, groups, idempotency_key, traceparent, priority, state FROM executions WHERE id = $1', [result.first.id]);
    expect(row.rows).toEqual([
      { task: 'consumer-task', payload: { tenant: 'acme', n: 1 }, groups: { tenant: 'acme' }, idempotency_key: 'consumer-1', traceparent: TRACEPARENT, priority: 7, state: 'queued' },
    ]);
    expect((await db.pool.query("SELECT count(*)::int AS n FROM executions WHERE task = 'consumer-task'")).rows[0].n).toBe(1);
  });
});
