// The REST surface through its real route handlers (the exported Next.js functions),
// on real Postgres: token auth and roles, enqueue single and batch, field errors,
// unknown task, idempotency, backpressure 429 + Retry-After, execution lookup, OpenAPI.
import { describe, it, expect, beforeAll } from 'vitest';
import { testDatabase, type TestDatabase } from './db';
import { applyTasks } from '../support/engine-fixtures';
import { createToken } from '../../server/services/tokens';
import { SYSTEM_ACTOR } from '../../server/db/audit';

let db: TestDatabase;
let producer: string;
let viewer: string;
let enqueueRoute: typeof import('../../app/api/v1/tasks/[task]/executions/route');
let executionRoute: typeof import('../../app/api/v1/executions/[id]/route');

function post(task: string, body: unknown, token?: string, raw?: string) {
  const req = new Request(`http://127.0.0.1/api/v1/tasks/${task}/executions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: raw ?? JSON.stringify(body),
  });
  return enqueueRoute.POST(req, { params: Promise.resolve({ task }) });
}

function get(id: string, token: string) {
  const req = new Request(`http://127.0.0.1/api/v1/executions/${id}`, { headers: { authorization: `Bearer ${token}` } });
  return executionRoute.GET(req, { params: Promise.resolve({ id }) });
}

beforeAll(async () => {
  db = await testDatabase();
  process.env.DATABASE_URL = db.url;
  enqueueRoute = await import('../../app/api/v1/tasks/[task]/executions/route');
  executionRoute = await import('../../app/api/v1/executions/[id]/route');
  producer = (await createToken(db.pool, SYSTEM_ACTOR, { name: 'rest-producer', role: 'producer' })).token;
  viewer = (await createToken(db.pool, SYSTEM_ACTOR, { name: 'rest-viewer', role: 'viewer' })).token;
  await applyTasks(db.pool, [
    { name: 'send-email', partitions: 4, routing: { strategy: 'hash', keyPath: 'tenant' }, groups: [{ name: 'tenant', limit: 5, keyPath: 'tenant' }] },
    { name: 'tight', partitions: 1, backpressure: { maxDepth: 2, policy: 'reject', retryAfterMs: 3500 } },
  ]);
});

describe('POST /api/v1/tasks/{task}/executions', () => {
  it.each([
    { name: 'no token', token: undefined, status: 401 },
    { name: 'malformed token', token: 'slc_nope', status: 401 },
    { name: 'viewer token', token: 'VIEWER', status: 403 },
  ])('$name → $status', async ({ token, status }) => {
    const res = await post('send-email', { payload: { tenant: 'acme' } }, token === 'VIEWER' ? viewer : token);
    expect(res.status).toBe(status);
    expect((await res.json()).error).toMatch(/token/);
  });

  it('202 for one execution, routed by hash of the tenant; the same tenant lands on the same partition', async () => {
    const a = await (await post('send-email', { payload: { tenant: 'acme', n: 1 } }, producer)).json();
    const b = await (await post('send-email', { payload: { tenant: 'acme', n: 2 } }, producer)).json();
    expect(a.executions).toHaveLength(1);
    expect(a.executions[0].id).toEqual(expect.any(Number));
    expect(a.executions[0].partition).toBe(b.executions[0].partition);
    const row = await db.pool.query('SELECT task, groups, state FROM executions WHERE id = $1', [a.executions[0].id]);
    expect(row.rows[0]).toMatchObject({ task: 'send-email', groups: { tenant: 'acme' }, state: 'queued' });
  });

  it('a priority is stored with the execution (absent: the task default, 0) and read back', async () => {
    const res = await post('send-email', { executions: [{ payload: { tenant: 'p' }, priority: 7 }, { payload: { tenant: 'p' } }] }, producer);
    expect(res.status).toBe(202);
    const ids = (await res.json()).executions.map((e: { id: number }) => e.id);
    const rows = await db.pool.query('SELECT priority FROM executions WHERE id = ANY($1) ORDER BY id', [ids]);
    expect(rows.rows.map((r) => r.priority)).toEqual([7, 0]);
  });

  it('a batch inserts every execution', async () => {
    const res = await post('send-email', { executions: [{ payload: { tenant: 'a' } }, { payload: { tenant: 'b' }, groups: { tenant: 'explicit' } }] }, producer);
    expect(res.status).toBe(202);
    const body = await res.json();
    expect(body.executions).toHaveLength(2);
    const rows = await db.pool.query('SELECT groups FROM executions WHERE id = ANY($1) ORDER BY id', [body.executions.map((e: { id: number }) => e.id)]);
    expect(rows.rows.map((r) => r.groups.tenant)).toEqual(['a', 'explicit']);
  });

  it.each([
    { name: 'invalid JSON', raw: '{"payload":', field: undefined, msg: /not valid JSON/ },
    { name: 'missing payload', body: { groups: { tenant: 'x' } }, field: 'payload' },
    { name: 'negative delay', body: { payload: {}, delayMs: -5 }, field: 'delayMs' },
    { name: 'priority above 1000', body: { payload: {}, priority: 1001 }, field: 'priority' },
    { name: 'fractional priority', body: { executions: [{ payload: {}, priority: 1.5 }] }, field: 'executions.0.priority' },
    { name: 'empty batch', body: { executions: [] }, field: 'executions' },
    { name: 'unknown group', body: { payload: { tenant: 'x' }, groups: { region: 'eu' } }, field: 'groups.region' },
  ])('400 with field errors: $name', async ({ body, raw, field, msg }) => {
    const before = await db.pool.query('SELECT count(*)::int AS n FROM executions');
    const res = await post('send-email', body, producer, raw);
    expect(res.status).toBe(400);
    const j = await res.json();
    if (field) expect(j.fieldErrors.map((f: { path: string }) => f.path)).toContain(field);
    if (msg) expect(j.error).toMatch(msg);
    const after = await db.pool.query('SELECT count(*)::int AS n FROM executions');
    expect(after.rows[0].n).toBe(before.rows[0].n);
  });

  it('404 for an unknown task', async () => {
    const res = await post('no-such-task', { payload: {} }, producer);
    expect(res.status).toBe(404);
    expect((await res.json()).error).toMatch(/no-such-task/);
  });

  it('an idempotency key dedupes', async () => {
    const a = await (await post('send-email', { payload: { tenant: 'x' }, idempotencyKey: 'order-42' }, producer)).json();
    const b = await (await post('send-email', { payload: { tenant: 'x' }, idempotencyKey: 'order-42' }, producer)).json();
    expect(b.executions[0].id).toBe(a.executions[0].id);
    expect(b.executions[0].deduplicated).toBe(true);
  });

  it('429 with Retry-After when backpressure rejects; nothing is inserted', async () => {
    expect((await post('tight', { executions: [{ payload: {} }, { payload: {} }] }, producer)).status).toBe(202);
    const res = await post('tight', { payload: {} }, producer);
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('4');
    expect((await res.json()).retryAfterMs).toBe(3500);
    const n = await db.pool.query(`SELECT count(*)::int AS n FROM executions WHERE task = 'tight'`);
    expect(n.rows[0].n).toBe(2);
  });
});

describe('GET /api/v1/executions/{id}', () => {
  it('returns the execution, 404 when unknown, 400 when malformed', async () => {
    const a = await (await post('send-email', { payload: { tenant: 'acme' }, streamKey: undefined }, producer)).json();
    const res = await get(String(a.executions[0].id), viewer);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ id: a.executions[0].id, task: 'send-email', state: 'queued', attempts: 0, groups: { tenant: 'acme' } });
    expect((await get('999999999', viewer)).status).toBe(404);
    expect((await get('abc', viewer)).status).toBe(400);
  });
});

describe('GET /api/v1/openapi.json', () => {
  it('documents both endpoints with the request schema the handler validates with', async () => {
    const { GET } = await import('../../app/api/v1/openapi.json/route');
    const doc = await GET().json();
    // (the full list of documented paths is checked against the route files in openapi-coverage.test.ts)
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/api/v1/tasks/{task}/executions', '/api/v1/executions/{id}']));
    expect(JSON.stringify(doc.components.schemas.EnqueueRequest)).toContain('idempotencyKey');
    expect(doc.paths['/api/v1/tasks/{task}/executions'].post.responses['429'].headers['Retry-After']).toBeDefined();
  });

  it('documents the dead-letter endpoints, their request bodies from the handlers\' schemas, and the roles they need', async () => {
    const { GET } = await import('../../app/api/v1/openapi.json/route');
    const doc = await GET().json();
    expect(Object.keys(doc.paths).filter((p: string) => p.startsWith('/api/v1/dead-letters'))).toHaveLength(10);
    const replay = doc.paths['/api/v1/dead-letters/replay'].post;
    expect(replay['x-sluice-roles']).toEqual(['operator']);
    expect(Object.keys(replay.responses)).toEqual(expect.arrayContaining(['200', '202', '400', '401', '403', '409']));
    expect(Object.keys(doc.components.schemas.ReplayRequest.properties)).toEqual(expect.arrayContaining(['scope', 'resetAttempts', 'ratePerSecond', 'requestId', 'dryRun']));
    expect(doc.paths['/api/v1/dead-letters'].get['x-sluice-roles']).toEqual(['viewer', 'operator']);
    expect(doc.paths['/api/v1/dead-letters'].get.parameters.find((p: { name: string }) => p.name === 'from').schema).toEqual({ type: 'string', format: 'date-time' });
    expect(Object.keys(doc.paths['/api/v1/dead-letters/purge-previews/{id}/export'].get.responses['200'].content)).toEqual(['application/x-ndjson']);
  });
});
