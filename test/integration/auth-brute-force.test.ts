// Password guessing against the real tRPC endpoint (the route handler the browser calls)
// on Postgres, counting how many passwords were actually verified: 30 guesses in parallel
// from one address, and 20 guesses in one batched request. The throttle must hold exactly
// under concurrency: at most 5 verified per (email, address) per lockout window.
import { describe, it, expect, beforeAll, beforeEach, vi } from 'vitest';
import { testDatabase, type TestDatabase } from './db';
import { createUser } from '../../server/services/users';
import { SYSTEM_ACTOR } from '../../server/db/audit';
import { SIGN_IN_RULES } from '../../server/services/auth';

// Every argon2 verification the sign-in does (a real hash, or the dummy one for unknown
// emails) is counted; the behaviour is unchanged.
const verified = vi.hoisted(() => ({ n: 0 }));
vi.mock('../../server/services/passwords', async (importOriginal) => {
  const orig = await importOriginal<typeof import('../../server/services/passwords')>();
  return {
    ...orig,
    verifyPassword: async (hash: string, password: string) => {
      verified.n++;
      return orig.verifyPassword(hash, password);
    },
    verifyAgainstDummy: async (password: string) => {
      verified.n++;
      return orig.verifyAgainstDummy(password);
    },
  };
});

const PASSWORD = 'correct-horse-battery';
let db: TestDatabase;
let trpcRoute: typeof import('../../app/api/trpc/[trpc]/route');
let n = 0;

function signInRequest(path: string, body: unknown, ip: string, batch = false): Request {
  return new Request(`http://127.0.0.1:3000/api/trpc/${path}${batch ? '?batch=1' : ''}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-sluice-peer-address': ip, origin: 'http://127.0.0.1:3000', host: '127.0.0.1:3000' },
    body: JSON.stringify(body),
  });
}

async function newAccount() {
  const email = `victim${++n}-${Date.now()}@example.com`;
  await createUser(db.pool, SYSTEM_ACTOR, { email, role: 'admin', password: PASSWORD });
  return email;
}

beforeAll(async () => {
  db = await testDatabase();
  process.env.DATABASE_URL = db.url;
  trpcRoute = await import('../../app/api/trpc/[trpc]/route');
});

beforeEach(() => {
  verified.n = 0;
});

describe('brute force against auth.signIn', () => {
  it('30 parallel guesses from one address verify at most 5 passwords; the rest are 429 without a verification', async () => {
    const email = await newAccount();
    // 29 wrong guesses and the right password among them.
    const guesses = Array.from({ length: 30 }, (_, i) => (i === 17 ? PASSWORD : `wrong-guess-${i}`));
    const responses = await Promise.all(
      guesses.map((password) => trpcRoute.POST(signInRequest('auth.signIn', { json: { email, password } }, '198.51.100.7'))),
    );
    const statuses = responses.map((r) => r.status);
    console.log(`[brute-force] 30 parallel guesses: ${verified.n} passwords verified; statuses ${JSON.stringify(count(statuses))}`);
    expect(verified.n).toBeLessThanOrEqual(SIGN_IN_RULES.pair.maxAttempts);
    expect(verified.n).toBe(SIGN_IN_RULES.pair.maxAttempts); // exactly: the limit is neither exceeded nor undercounted
    // The verified ones answer 401 (the fifth: 429, it set the lock) or 200 for the right
    // password if it was among them; every other guess is 429 unverified.
    expect(statuses.filter((s) => s === 401 || s === 200)).toHaveLength(SIGN_IN_RULES.pair.maxAttempts - 1);
    expect(statuses.filter((s) => s === 429)).toHaveLength(30 - SIGN_IN_RULES.pair.maxAttempts + 1);
    const audited = await db.pool.query(`SELECT count(*)::int AS n FROM audit_log WHERE action IN ('auth.sign_in', 'auth.sign_in_failed') AND meta->>'ip' = '198.51.100.7'`);
    expect(audited.rows[0].n).toBe(SIGN_IN_RULES.pair.maxAttempts);
  });

  it('a batch of 20 sign-ins in one request is refused whole, verifying nothing', async () => {
    const email = await newAccount();
    const calls = Array.from({ length: 20 }, (_, i) => i);
    const body = Object.fromEntries(calls.map((i) => [String(i), { json: { email, password: i === 9 ? PASSWORD : `wrong-guess-${i}` } }]));
    const res = await trpcRoute.POST(signInRequest(calls.map(() => 'auth.signIn').join(','), body, '198.51.100.8', true));
    console.log(`[brute-force] one batch of 20 sign-ins: ${verified.n} passwords verified; status ${res.status}`);
    expect(verified.n).toBe(0);
    expect(res.status).toBe(400);
    const out = (await res.json()) as { error: { json: { message: string } } }[];
    expect(out).toHaveLength(20);
    expect(out[0]!.error.json.message).toMatch(/auth\.signIn cannot be batched/);
    expect((await db.pool.query(`SELECT 1 FROM sessions s JOIN users u ON u.id = s.user_id WHERE u.email = $1`, [email])).rowCount).toBe(0);
  });

  it('a batch over the size cap is refused before any call runs', async () => {
    const calls = Array.from({ length: 50 }, () => 'auth.me');
    const req = new Request(`http://127.0.0.1:3000/api/trpc/${calls.join(',')}?batch=1&input=${encodeURIComponent(JSON.stringify({}))}`, {
      headers: { host: '127.0.0.1:3000' },
    });
    const res = await trpcRoute.GET(req);
    expect(res.status).toBe(400);
    const out = (await res.json()) as { error: { json: { message: string } } }[];
    expect(out[0]!.error.json.message).toMatch(/too many calls in one batch: 50, the limit is 20/);
  });

  it('a single sign-in still works, and batches of queries still work', async () => {
    const email = await newAccount();
    const res = await trpcRoute.POST(signInRequest('auth.signIn', { json: { email, password: PASSWORD } }, '198.51.100.9'));
    expect(res.status).toBe(200);
    expect(verified.n).toBe(1);
    const cookie = res.headers.get('set-cookie')!.split(';')[0]!;
    const batch = await trpcRoute.GET(
      new Request(`http://127.0.0.1:3000/api/trpc/auth.me,tasks.list?batch=1&input=${encodeURIComponent(JSON.stringify({}))}`, {
        headers: { host: '127.0.0.1:3000', cookie },
      }),
    );
    expect(batch.status).toBe(200);
    const out = (await batch.json()) as { result: { data: { json: { email: string } } } }[];
    expect(out[0]!.result.data.json.email).toBe(email);
  });
});

function count(xs: number[]): Record<number, number> {
  const out: Record<number, number> = {};
  for (const x of xs) out[x] = (out[x] ?? 0) + 1;
  return out;
}
