// The SDK end to end through the real REST route handlers: its fetch is a dispatcher
// that calls the Next.js route functions, so the HTTP contract (statuses, headers,
// bodies) is exercised without opening a port. The DB client uses the same service.
import { describe, it, expect, beforeAll } from 'vitest';
import { testDatabase, type TestDatabase } from './db';
import { applyTasks } from '../support/engine-fixtures';
import { createToken } from '../../server/services/tokens';
import { SYSTEM_ACTOR } from '../../server/db/audit';
import {
  createClient,
  SluiceAuthError,
  SluiceBackpressureError,
  SluiceNotFoundError,
  SluiceValidationError,
  type SluiceClient,
} from '../../server/sdk';
import { createDbClient } from '../../server/sdk/db';

let db: TestDatabase;
let client: SluiceClient;
let token: string;

async function routeFetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const req = new Request(input, init);
  const { pathname } = new URL(req.url);
  let m = /^\/api\/v1\/tasks\/([^/]+)\/executions$/.exec(pathname);
  if (m && req.method === 'POST') {
    const { POST } = await import('../../app/api/v1/tasks/[task]/executions/route');
    return POST(req, { params: Promise.resolve({ task: decodeURIComponent(m[1]!) }) });
  }
  m = /^\/api\/v1\/executions\/([^/]+)$/.exec(pathname);
  if (m && req.method === 'GET') {
    const { GET } = await import('../../app/api/v1/executions/[id]/route');
    return GET(req, { params: Promise.resolve({ id: decodeURIComponent(m[1]!) }) });
  }
  return new Response('not found', { status: 404 });
}

beforeAll(async () => {
  db = await testDatabase();
  process.env.DATABASE_URL = db.url;
  token = (await createToken(db.pool, SYSTEM_ACTOR, { name: 'sdk', role: 'producer' })).token;
  client = createClient({ url: 'http://127.0.0.1:3000/', token, fetch: routeFetch as typeof fetch });
  await applyTasks(db.pool, [
    { name: 'send-email', partitions: 2, groups: [{ name: 'tenant', limit: 3, keyPath: 'tenant' }], stream: { keyPath: 'account' } },
    { name: 'tight', partitions: 1, backpressure: { maxDepth: 1, policy: 'reject', retryAfterMs: 1500 } },
  ]);
});

describe('HTTP SDK', () => {
  it('enqueue returns the execution; getExecution reads it back', async () => {
    const e = await client.enqueue('send-email', { payload: { tenant: 'acme', account: 'a1' } });
    expect(e).toMatchObject({ id: expect.any(Number), state: 'queued', deduplicated: false });
    const again = await client.enqueue('send-email', { payload: { tenant: 'acme', account: 'a1' } });
    expect(again.state).toBe('blocked'); // same stream: waits for the head
    const view = await client.getExecution(e.id!);
    expect(view).toMatchObject({ id: e.id, task: 'send-email', state: 'queued', groups: { tenant: 'acme' }, streamKey: 'a1', priority: 0 });
    const urgent = await client.enqueue('send-email', { payload: { tenant: 'acme' }, priority: 9 });
    expect(await client.getExecution(urgent.id!)).toMatchObject({ id: urgent.id, priority: 9 });
  });

  it('enqueueMany inserts a batch; an empty batch is a no-op', async () => {
    const r = await client.enqueueMany('send-email', [{ payload: { tenant: 'b' } }, { payload: { tenant: 'c' }, idempotencyKey: 'k1' }, { payload: { tenant: 'c' }, idempotencyKey: 'k1' }]);
    expect(r.executions).toHaveLength(3);
    expect(r.executions[2]).toMatchObject({ id: r.executions[1]!.id, deduplicated: true });
    expect(await client.enqueueMany('send-email', [])).toEqual({ executions: [], shed: 0, spilled: 0, throttledMs: 0 });
  });

  it.each([
    { name: 'validation', run: () => client.enqueue('send-email', { payload: {}, delayMs: -1 }), type: SluiceValidationError, check: (e: SluiceValidationError) => expect(e.fieldErrors[0]?.path).toBe('delayMs') },
    { name: 'priority out of range', run: () => client.enqueue('send-email', { payload: {}, priority: -1 }), type: SluiceValidationError, check: (e: SluiceValidationError) => expect(e.fieldErrors[0]?.path).toBe('priority') },
    { name: 'unknown task', run: () => client.enqueue('nope', { payload: {} }), type: SluiceNotFoundError, check: () => {} },
    { name: 'unknown execution', run: () => client.getExecution(123456789), type: SluiceNotFoundError, check: () => {} },
    {
      name: 'bad token',
      run: () => createClient({ url: 'http://127.0.0.1:3000', token: 'slc_bad', fetch: routeFetch as typeof fetch }).enqueue('send-email', { payload: {} }),
      type: SluiceAuthError,
      check: (e: SluiceAuthError) => expect(e.status).toBe(401),
    },
  ])('typed error: $name', async ({ run, type, check }) => {
    const err = await run().then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(type);
    check(err as never);
  });

  it('backpressure rejection is a SluiceBackpressureError with retryAfterMs', async () => {
    await client.enqueue('tight', { payload: {} });
    const err = await client.enqueue('tight', { payload: {} }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SluiceBackpressureError);
    expect((err as SluiceBackpressureError).retryAfterMs).toBe(1500);
  });
});

describe('DB SDK', () => {
  it('enqueues through the same service with the same results', async () => {
    const dbClient = createDbClient(db.pool);
    const e = await dbClient.enqueue('send-email', { payload: { tenant: 'acme' }, idempotencyKey: 'db-1' });
    const viaHttp = await client.enqueue('send-email', { payload: { tenant: 'acme' }, idempotencyKey: 'db-1' });
    expect(viaHttp).toMatchObject({ id: e.id, deduplicated: true });
    const many = await dbClient.enqueueMany('send-email', [{ payload: { tenant: 'x' } }, { payload: { tenant: 'y' } }]);
    expect(many.executions.map((x) => x.state)).toEqual(['queued', 'queued']);
  });
});
