// What the HTTP endpoints refuse before any procedure or handler runs, through the real
// route handlers on Postgres: cookie-authenticated mutations from another origin (403,
// nothing written), and request bodies over the limit (413, nothing parsed or written) on
// tRPC and REST, declared or streamed. And the web server's own guard (server/web/serve.mjs),
// in front of Next.js, on a bare node:http server.
import { describe, it, expect, beforeAll } from 'vitest';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { testDatabase, type TestDatabase } from './db';
import { createUser } from '../../server/services/users';
import { createToken } from '../../server/services/tokens';
import { SYSTEM_ACTOR } from '../../server/db/audit';
import { applyTasks } from '../support/engine-fixtures';
import { limitRequestBody } from '../../server/web/serve.mjs';

const HOST = '127.0.0.1:3000';
const SAME = `http://${HOST}`;
const PASSWORD = 'correct-horse-battery';
const MB = 1024 * 1024;

let db: TestDatabase;
let trpcRoute: typeof import('../../app/api/trpc/[trpc]/route');
let enqueueRoute: typeof import('../../app/api/v1/tasks/[task]/executions/route');
let adminCookie: string;
let producer: string;

function trpcPost(path: string, body: BodyInit, headers: Record<string, string>): Promise<Response> {
  return trpcRoute.POST(new Request(`${SAME}/api/trpc/${path}`, { method: 'POST', headers: { host: HOST, ...headers }, body }));
}

/** A body with no declared length, streamed in 64 KB chunks. */
function streamed(bytes: number): ReadableStream<Uint8Array> {
  let left = bytes;
  return new ReadableStream({
    pull(c) {
      if (left <= 0) return c.close();
      const n = Math.min(left, 64 * 1024);
      left -= n;
      c.enqueue(new Uint8Array(n).fill(0x61));
    },
  });
}

function streamedRequest(url: string, bytes: number, headers: Record<string, string>): Request {
  return new Request(url, { method: 'POST', headers, body: streamed(bytes), duplex: 'half' } as RequestInit);
}

async function count(sql: string, params: unknown[] = []): Promise<number> {
  return (await db.pool.query<{ n: number }>(sql, params)).rows[0]!.n;
}

beforeAll(async () => {
  db = await testDatabase();
  process.env.DATABASE_URL = db.url;
  trpcRoute = await import('../../app/api/trpc/[trpc]/route');
  enqueueRoute = await import('../../app/api/v1/tasks/[task]/executions/route');
  await createUser(db.pool, SYSTEM_ACTOR, { email: 'guard-admin@example.com', role: 'admin', password: PASSWORD });
  const res = await trpcPost('auth.signIn', JSON.stringify({ json: { email: 'guard-admin@example.com', password: PASSWORD } }), {
    'content-type': 'application/json',
    origin: SAME,
  });
  expect(res.status).toBe(200);
  adminCookie = res.headers.get('set-cookie')!.split(';')[0]!;
  producer = (await createToken(db.pool, SYSTEM_ACTOR, { name: 'guard-producer', role: 'producer' })).token;
  await applyTasks(db.pool, [{ name: 'guarded', partitions: 1 }]);
});

describe('cross-origin mutations (CSRF)', () => {
  const createUserBody = (email: string) => JSON.stringify({ json: { email, role: 'admin', password: 'attacker-password-1' } });

  it.each<{ name: string; headers: Record<string, string> }>([
    { name: 'another origin', headers: { origin: 'http://evil.example' } },
    { name: 'a same-site sibling origin', headers: { origin: 'http://evil.127.0.0.1:3000' } },
    { name: 'another port', headers: { origin: 'http://127.0.0.1:3001' } },
    { name: 'Sec-Fetch-Site cross-site without Origin', headers: { 'sec-fetch-site': 'cross-site' } },
    { name: 'the session cookie and no Origin at all', headers: {} },
  ])('a cookie-authenticated users.create from $name is 403 and creates no user', async ({ headers }) => {
    const email = `csrf-${Math.random().toString(36).slice(2)}@example.com`;
    const res = await trpcPost('users.create', createUserBody(email), { 'content-type': 'application/json', cookie: adminCookie, ...headers });
    expect(res.status).toBe(403);
    const body = (await res.json()) as { error: { json: { message: string; data: { code: string } } } };
    expect(body.error.json.data.code).toBe('FORBIDDEN');
    expect(body.error.json.message).toMatch(/refused/);
    expect(await count(`SELECT count(*)::int AS n FROM users WHERE email = $1`, [email])).toBe(0);
    expect(await count(`SELECT count(*)::int AS n FROM audit_log WHERE action = 'user.create' AND after->>'email' = $1`, [email])).toBe(0);
  });

  it.each([
    { name: 'urlencoded', body: () => 'x=1', type: 'application/x-www-form-urlencoded' },
    { name: 'multipart', body: () => new FormData(), type: null },
  ])('a form POST ($name) to auth.signOut from another origin is 403 and the session stays', async ({ body, type }) => {
    const res = await trpcPost('auth.signOut', body(), { ...(type ? { 'content-type': type } : {}), cookie: adminCookie, origin: 'http://evil.example' });
    expect(res.status).toBe(403);
    expect(res.headers.get('set-cookie')).toBeNull();
    expect(await count(`SELECT count(*)::int AS n FROM sessions s JOIN users u ON u.id = s.user_id WHERE u.email = 'guard-admin@example.com'`)).toBe(1);
  });

  it('a sign-in posted from another origin (login CSRF) is 403 and opens no session', async () => {
    const res = await trpcPost('auth.signIn', JSON.stringify({ json: { email: 'guard-admin@example.com', password: PASSWORD } }), {
      'content-type': 'application/json',
      origin: 'http://evil.example',
    });
    expect(res.status).toBe(403);
    expect(res.headers.get('set-cookie')).toBeNull();
  });

  it.each<{ name: string; headers: Record<string, string> }>([
    { name: 'Origin of the control plane', headers: { origin: SAME } },
    { name: 'Sec-Fetch-Site same-origin', headers: { 'sec-fetch-site': 'same-origin' } },
  ])('the same mutation with $name goes through', async ({ headers }) => {
    const email = `same-${Math.random().toString(36).slice(2)}@example.com`;
    const res = await trpcPost('users.create', createUserBody(email), { 'content-type': 'application/json', cookie: adminCookie, ...headers });
    expect(res.status).toBe(200);
    expect(await count(`SELECT count(*)::int AS n FROM users WHERE email = $1`, [email])).toBe(1);
  });

  it('a malformed escape in the call path is a 4xx, not a 500', async () => {
    const res = await trpcRoute.GET(new Request(`${SAME}/api/trpc/auth.me%E0%A4%A,auth.me?batch=1&input=%7B%7D`, { headers: { host: HOST } }));
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
  });

  it('queries (GET) are not mutations and need no Origin', async () => {
    const res = await trpcRoute.GET(new Request(`${SAME}/api/trpc/auth.me`, { headers: { host: HOST, cookie: adminCookie } }));
    expect(res.status).toBe(200);
  });

  it('a REST call with a Bearer token is not cookie-authenticated and needs no Origin', async () => {
    const res = await enqueueRoute.POST(
      new Request(`${SAME}/api/v1/tasks/guarded/executions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${producer}`, origin: 'http://elsewhere.example' },
        body: JSON.stringify({ payload: { n: 1 } }),
      }),
      { params: Promise.resolve({ task: 'guarded' }) },
    );
    expect(res.status).toBe(202);
  });
});

describe('body limits (1 MB by default)', () => {
  const tooLarge = /request body too large: the limit is 1048576 bytes/;

  it('an unauthenticated 10 MB sign-in is 413 before anything is parsed or counted', async () => {
    const throttleBefore = await count(`SELECT count(*)::int AS n FROM login_throttle`);
    const big = JSON.stringify({ json: { email: 'guard-admin@example.com', password: 'x'.repeat(10 * MB) } });
    const res = await trpcPost('auth.signIn', big, { 'content-type': 'application/json', 'content-length': String(big.length), origin: SAME });
    expect(res.status).toBe(413);
    expect(res.headers.get('connection')).toBe('close');
    const body = (await res.json()) as { error: { json: { message: string; data: { code: string } } } };
    expect(body.error.json.data.code).toBe('PAYLOAD_TOO_LARGE');
    expect(body.error.json.message).toMatch(tooLarge);
    expect(await count(`SELECT count(*)::int AS n FROM login_throttle`)).toBe(throttleBefore);
  });

  it('a tRPC body streamed without a length is cut off at the limit with 413', async () => {
    const email = `stream-${Date.now()}@example.com`;
    const res = await trpcRoute.POST(
      streamedRequest(`${SAME}/api/trpc/users.create`, 2 * MB, { host: HOST, 'content-type': 'application/json', cookie: adminCookie, origin: SAME }),
    );
    expect(res.status).toBe(413);
    expect(((await res.json()) as { error: { json: { message: string } } }).error.json.message).toMatch(tooLarge);
    expect(await count(`SELECT count(*)::int AS n FROM users WHERE email = $1`, [email])).toBe(0);
  });

  it('a body just under the limit is read as usual', async () => {
    const email = `padded-${Date.now()}@example.com`;
    const body = JSON.stringify({ json: { email, role: 'viewer', password: 'padded-password-1' }, pad: 'x'.repeat(MB - 200) });
    expect(body.length).toBeLessThan(MB);
    const res = await trpcPost('users.create', body, { 'content-type': 'application/json', cookie: adminCookie, origin: SAME });
    expect(res.status).toBe(200);
  });

  it.each([
    { name: 'declared', make: (b: string) => ({ body: b, headers: { 'content-length': String(b.length) } }) },
    { name: 'streamed', make: () => null },
  ])('REST enqueue with a 2 MB body ($name) is 413 and enqueues nothing; unauthenticated too', async ({ make }) => {
    const before = await count(`SELECT count(*)::int AS n FROM executions`);
    const big = JSON.stringify({ payload: { blob: 'x'.repeat(2 * MB) } });
    const auths: Record<string, string>[] = [{ authorization: `Bearer ${producer}` }, {}];
    for (const auth of auths) {
      const url = `${SAME}/api/v1/tasks/guarded/executions`;
      const shaped = make(big);
      const req = shaped
        ? new Request(url, { method: 'POST', headers: { 'content-type': 'application/json', ...auth, ...shaped.headers }, body: shaped.body })
        : streamedRequest(url, 2 * MB, { 'content-type': 'application/json', ...auth });
      const res = await enqueueRoute.POST(req, { params: Promise.resolve({ task: 'guarded' }) });
      if (!shaped && !('authorization' in auth)) {
        // Streamed and unauthenticated: the token is checked before a byte is read.
        expect(res.status).toBe(401);
        continue;
      }
      expect(res.status).toBe(413);
      expect(await res.json()).toEqual({ error: 'request body too large: the limit is 1048576 bytes', code: 'PAYLOAD_TOO_LARGE' });
    }
    expect(await count(`SELECT count(*)::int AS n FROM executions`)).toBe(before);
  });
});

describe('the web server refuses oversized bodies before Next.js reads them (serve.mjs)', () => {
  const LIMIT = 64 * 1024;
  let server: http.Server;
  let base: string;
  const handled: number[] = [];

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      if (!limitRequestBody(req, res, LIMIT)) return;
      let n = 0;
      req.on('data', (c: Buffer) => (n += c.length));
      req.on('end', () => {
        handled.push(n);
        res.end(`read ${n}`);
      });
      req.on('error', () => {});
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return () => new Promise<void>((r) => server.close(() => r()));
  });

  function send(body: string | ReadableStream<Uint8Array>, headers: Record<string, string> = {}) {
    return fetch(base, { method: 'POST', headers, body, duplex: 'half' } as RequestInit);
  }

  it.each([LIMIT + 1, 10 * MB])('a declared length over the limit (%d bytes): 413, readable by a client still uploading; the handler never sees it', async (bytes) => {
    const res = await send('x'.repeat(bytes));
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual({ error: `request body too large: the limit is ${LIMIT} bytes`, code: 'PAYLOAD_TOO_LARGE' });
    expect(handled).toEqual([]);
  });

  it('a chunked body is cut off with 413 once it passes the limit', async () => {
    const res = await send(streamed(4 * LIMIT));
    expect(res.status).toBe(413);
    expect(handled).toEqual([]);
  });

  it('bodies within the limit, declared or chunked, reach the handler whole', async () => {
    expect(await (await send('y'.repeat(LIMIT))).text()).toBe(`read ${LIMIT}`);
    expect(await (await send(streamed(LIMIT))).text()).toBe(`read ${LIMIT}`);
  });
});
