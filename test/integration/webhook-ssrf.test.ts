// Webhook targets cannot reach inside the network (SSRF): internal URLs are refused when
// saved (400 naming `url`, no row), a name that resolves to an internal address is refused
// when sending (DNS rebinding) and the connection goes to the address that was checked,
// redirects are never followed (the redirect target gets nothing), and a failed delivery
// records the status and a fixed message, never the receiver's body.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { TRPCError } from '@trpc/server';
import { testDatabase, type TestDatabase } from './db';
import { callerAs } from '../support/trpc-caller';
import { createUser } from '../../server/services/users';
import { deliverDueWebhooks, sendTestWebhook, type ResolveHost } from '../../server/services/webhooks';
import { parseAllowList } from '../../server/core/webhook-address';
import { SYSTEM_ACTOR } from '../../server/db/audit';
import type { SessionUser } from '../../server/services/sessions';

delete process.env.SLUICE_WEBHOOK_ALLOW_HOSTS; // this file tests the default: nothing internal allowed

let db: TestDatabase;
let admin: SessionUser;
const hits: { server: string; path: string; body: string }[] = [];
const servers: http.Server[] = [];

async function listen(name: string, handler: (req: http.IncomingMessage, res: http.ServerResponse) => void): Promise<number> {
  const s = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      hits.push({ server: name, path: req.url ?? '', body });
      handler(req, res);
    });
  });
  servers.push(s);
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  return (s.address() as AddressInfo).port;
}

let okPort = 0;
let stealPort = 0;
let redirectPort = 0;
let failPort = 0;

beforeAll(async () => {
  db = await testDatabase();
  const { user } = await createUser(db.pool, SYSTEM_ACTOR, { email: 'ssrf-admin@example.com', role: 'admin', password: 'ssrf-admin-pass-1' });
  admin = { id: user.id, email: user.email, role: 'admin' };
  okPort = await listen('ok', (_req, res) => res.writeHead(204).end());
  stealPort = await listen('steal', (_req, res) => res.writeHead(200).end('thanks'));
  redirectPort = await listen('redirect', (_req, res) => res.writeHead(307, { location: `http://127.0.0.1:${stealPort}/steal` }).end());
  failPort = await listen('fail', (_req, res) => res.writeHead(500).end('stack trace: db password is hunter2'));
});

afterAll(() => {
  for (const s of servers) s.close();
});

const INTERNAL_URLS = [
  'http://169.254.169.254/latest/meta-data/iam/security-credentials/',
  'http://localhost:8080/hook',
  'http://[::1]/hook',
  'http://0x7f000001/hook',
  'http://2130706433/hook',
  'http://0.0.0.0:5432/',
  'http://[::ffff:127.0.0.1]/hook',
  'http://[fc00::1]/hook',
  'http://[fe80::1]/hook',
  'http://10.0.0.1/hook',
  'http://192.168.1.1/hook',
  'http://172.16.0.1/hook',
  'http://127.0.0.1:9/hook',
];

describe('save time', () => {
  it.each(INTERNAL_URLS)('webhooks.create refuses %s with 400 naming url, and writes nothing', async (url) => {
    const caller = callerAs(db.pool, admin);
    const before = (await db.pool.query(`SELECT (SELECT count(*) FROM webhook_targets) + (SELECT count(*) FROM audit_log) AS n`)).rows[0].n;
    const e = await caller.webhooks.create({ name: 'internal', url }).then(
      () => null,
      (x: unknown) => x,
    );
    expect(e).toBeInstanceOf(TRPCError);
    expect((e as TRPCError).code).toBe('BAD_REQUEST');
    expect((e as TRPCError).message).toMatch(/^Invalid input: url: must not point at/);
    const after = (await db.pool.query(`SELECT (SELECT count(*) FROM webhook_targets) + (SELECT count(*) FROM audit_log) AS n`)).rows[0].n;
    expect(after).toBe(before);
  });

  it('webhooks.update refuses an internal URL and keeps the old one', async () => {
    const caller = callerAs(db.pool, admin);
    const hook = await caller.webhooks.create({ name: 'public', url: 'https://hooks.example.com/a' });
    await expect(caller.webhooks.update({ id: hook.id, url: 'http://169.254.169.254/' })).rejects.toThrow(/url: must not point at a link-local address/);
    const row = await db.pool.query(`SELECT url FROM webhook_targets WHERE id = $1`, [hook.id]);
    expect(row.rows[0].url).toBe('https://hooks.example.com/a');
  });
});

describe('send time', () => {
  async function target(name: string, url: string): Promise<string> {
    // Stored directly: a URL saved before the allow-list shrank, or a name whose DNS changed.
    const r = await db.pool.query(`INSERT INTO webhook_targets (name, url, created_by) VALUES ($1, $2, 'test') RETURNING id`, [name, url]);
    return r.rows[0].id;
  }
  async function deliveryOf(targetId: string) {
    return (await db.pool.query(`SELECT status, attempts, response_status, last_error FROM webhook_deliveries WHERE target_id = $1`, [targetId])).rows[0];
  }
  const resolveTo = (address: string): ResolveHost => async () => [{ address, family: address.includes(':') ? 6 : 4 }];

  it('a name that resolves to an internal address is refused (DNS rebinding): nothing is sent', async () => {
    const id = await target('rebinding', `http://rebind.hooks.example:${okPort}/hook`);
    await sendTestWebhook(db.pool, SYSTEM_ACTOR, { id });
    const n = hits.length;
    await deliverDueWebhooks(db.pool, { resolve: resolveTo('127.0.0.1'), allow: [] });
    expect(hits.length).toBe(n);
    const d = await deliveryOf(id);
    expect(d.response_status).toBeNull();
    expect(d.last_error).toMatch(/^refused: rebind\.hooks\.example resolves to a loopback address \(127\.0\.0\.1\)/);
  });

  it('a name resolving to a public and an internal address is refused too', async () => {
    const id = await target('mixed', `http://mixed.hooks.example:${okPort}/hook`);
    await sendTestWebhook(db.pool, SYSTEM_ACTOR, { id });
    const resolve: ResolveHost = async () => [
      { address: '93.184.216.34', family: 4 },
      { address: '::ffff:169.254.169.254', family: 6 },
    ];
    await deliverDueWebhooks(db.pool, { resolve, allow: [] });
    expect((await deliveryOf(id)).last_error).toMatch(/link-local address/);
  });

  it('connects to the checked address, not to a second lookup: an allowed name is delivered to the address it resolved to', async () => {
    // "allowed.hooks.example" does not exist in DNS: only the pinned address can reach the receiver.
    const id = await target('allowed', `http://allowed.hooks.example:${okPort}/pinned`);
    await sendTestWebhook(db.pool, SYSTEM_ACTOR, { id });
    await deliverDueWebhooks(db.pool, { resolve: resolveTo('127.0.0.1'), allow: parseAllowList('127.0.0.1') });
    expect((await deliveryOf(id)).status).toBe('delivered');
    expect(hits.filter((h) => h.server === 'ok' && h.path === '/pinned')).toHaveLength(1);
  });

  it('a URL stored before the allow-list shrank is refused when sending', async () => {
    const id = await target('stale', `http://127.0.0.1:${okPort}/stale`);
    await sendTestWebhook(db.pool, SYSTEM_ACTOR, { id });
    await deliverDueWebhooks(db.pool, { allow: [] });
    expect(hits.some((h) => h.path === '/stale')).toBe(false);
    expect((await deliveryOf(id)).last_error).toMatch(/^refused: must not point at a loopback address/);
  });

  it('a redirect is a failed delivery and its target gets nothing (the signed body stays home)', async () => {
    const id = await target('redirecting', `http://127.0.0.1:${redirectPort}/hook`);
    await db.pool.query(`UPDATE webhook_targets SET secret = 'a-signing-secret-0001' WHERE id = $1`, [id]);
    await sendTestWebhook(db.pool, SYSTEM_ACTOR, { id });
    await deliverDueWebhooks(db.pool, { allow: parseAllowList('127.0.0.1') });
    expect(hits.filter((h) => h.server === 'redirect')).toHaveLength(1);
    expect(hits.filter((h) => h.server === 'steal')).toHaveLength(0);
    const d = await deliveryOf(id);
    expect(d).toMatchObject({ status: 'pending', attempts: 1, response_status: 307 });
    expect(d.last_error).toBe('HTTP 307: the receiver redirected; redirects are not followed');
  });

  it("a failed delivery stores the status and a fixed message, never the receiver's body", async () => {
    const id = await target('failing', `http://127.0.0.1:${failPort}/hook`);
    await sendTestWebhook(db.pool, SYSTEM_ACTOR, { id });
    await deliverDueWebhooks(db.pool, { allow: parseAllowList('127.0.0.1') });
    const d = await deliveryOf(id);
    expect(d.response_status).toBe(500);
    expect(d.last_error).toBe('HTTP 500: the receiver did not accept the delivery');
    const everything = JSON.stringify((await db.pool.query(`SELECT * FROM webhook_deliveries`)).rows);
    expect(everything).not.toMatch(/hunter2|stack trace/);
  });
});
