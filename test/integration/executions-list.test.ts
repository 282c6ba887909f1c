// The executions list (server/db/list-executions.ts via the presenter): every filter, both
// orders, keyset pages without repeats or gaps, the bounded id window with its "searched"
// note, counts from counters or capped, overflow rows as `spilled`, and the REST route
// with its token rules (producers never read or match payloads) and hostile input.
import { describe, it, expect, beforeAll } from 'vitest';
import { testDatabase } from './db';
import { applyTasks, fakeCoordinator } from '../support/engine-fixtures';
import { enqueue } from '../../server/services/enqueue';
import { claimExecutions } from '../../server/db/claim-executions';
import { finishExecutions } from '../../server/db/finish-executions';
import { listExecutions } from '../../server/db/list-executions';
import { listExecutionPage, executionDetail } from '../../server/presenters/execution';
import { createToken } from '../../server/services/tokens';
import { SYSTEM_ACTOR } from '../../server/db/audit';
import { apiRequest, routeParams, runCli } from '../support/rest-and-cli';
import { executionFilterSchema, toExecutionQuery } from '../../server/core/execution-filter';

const db = await testDatabase();
process.env.DATABASE_URL = db.url; // the routes use getPool()
const routes = {
  list: () => import('../../app/api/v1/executions/route'),
  one: () => import('../../app/api/v1/executions/[id]/route'),
};
const req = (url: string, token: string) => apiRequest(url, token);
const params = routeParams;

const ids: { mail: number[]; bill: number[] } = { mail: [], bill: [] };
let running: number[] = [];
let succeeded: number[] = [];
let producer = '';
let viewer = '';

beforeAll(async () => {
  await applyTasks(db.pool, [
    { name: 'mail', partitions: 2, concurrency: 10, groups: [{ name: 'tenant', limit: 3, keyPath: 'tenant' }], stream: {} },
    { name: 'bill', partitions: 1, concurrency: 5, backpressure: { maxDepth: 5, policy: 'spill' } },
  ]);
  const me = await fakeCoordinator(db.pool, ['mail']);
  const m = await enqueue(
    db.pool,
    'mail',
    Array.from({ length: 30 }, (_, i) => ({ payload: { tenant: i % 3 === 0 ? 'acme' : 'other', to: { domain: i % 2 ? 'a.com' : 'b.com' }, n: i }, idempotencyKey: `mail-${i}` })),
  );
  ids.mail = m.executions.map((e) => e.id!);
  await enqueue(db.pool, 'mail', [{ payload: { tenant: 'late' }, delayMs: 3_600_000 }]);
  await enqueue(db.pool, 'mail', [{ payload: { tenant: 's' }, streamKey: 'conv-1' }, { payload: { tenant: 's' }, streamKey: 'conv-1' }]);
  const claimed = await claimExecutions(db.pool, me, 'mail', 4, 60_000);
  running = claimed.map((c) => c.id);
  await finishExecutions(db.pool, 'mail', claimed.slice(0, 2).map((c) => ({ id: c.id, leaseToken: c.leaseToken, outcome: 'succeeded' as const })));
  succeeded = claimed.slice(0, 2).map((c) => c.id);
  running = running.slice(2);
  const b = await enqueue(db.pool, 'bill', Array.from({ length: 8 }, (_, i) => ({ payload: { n: i } })));
  ids.bill = b.executions.map((e) => e.id!);
  producer = (await createToken(db.pool, SYSTEM_ACTOR, { name: 'p', role: 'producer' })).token;
  viewer = (await createToken(db.pool, SYSTEM_ACTOR, { name: 'v', role: 'viewer' })).token;
});

const f = (x: Record<string, unknown>) => executionFilterSchema.parse(x);

describe('listing executions', () => {
  it('filters by task, state, group, stream, idempotency key, id and payload', async () => {
    const all = await listExecutionPage(db.pool, { filter: {}, limit: 200 });
    expect(all.items.length).toBe(30 + 1 + 2 + 8);
    expect(all.items.map((r) => r.id)).toEqual([...all.items.map((r) => r.id)].sort((a, b) => b - a));
    const states = (filter: Record<string, unknown>) => listExecutionPage(db.pool, { filter, limit: 200 }).then((p) => p.items);
    expect((await states({ task: 'mail', state: 'running' })).map((r) => r.id).sort()).toEqual([...running].sort());
    expect((await states({ state: 'succeeded' })).map((r) => r.id).sort()).toEqual([...succeeded].sort());
    const sched = await states({ state: 'scheduled' });
    expect(sched).toHaveLength(1);
    expect(sched[0]!.groups).toEqual({ tenant: 'late' });
    const blocked = await states({ state: 'blocked' });
    expect(blocked.map((r) => r.streamKey)).toEqual(['conv-1']);
    expect(await states({ stream: 'conv-1' })).toHaveLength(2);
    const spilled = await states({ state: 'spilled' });
    expect(spilled.length).toBeGreaterThan(0);
    expect(spilled.every((r) => r.task === 'bill' && r.state === 'spilled')).toBe(true);
    const inDb = await db.pool.query(`SELECT count(*)::int AS n FROM overflow WHERE task = 'bill'`);
    expect(spilled).toHaveLength(inDb.rows[0].n);
    const acme = await states({ group: 'tenant=acme' });
    expect(acme).toHaveLength(10);
    expect(acme.every((r) => r.groups.tenant === 'acme')).toBe(true);
    expect((await states({ idempotencyKey: 'mail-7' })).map((r) => r.id)).toEqual([ids.mail[7]]);
    expect((await states({ task: 'bill', idempotencyKey: 'mail-7' }))).toEqual([]);
    expect((await states({ id: ids.mail[3] })).map((r) => r.id)).toEqual([ids.mail[3]]);
    const dom = await states({ payload: 'to.domain=a.com', group: 'tenant=acme' });
    expect(dom.map((r) => r.id).sort()).toEqual(ids.mail.filter((_, i) => i % 3 === 0 && i % 2 === 1).sort());
    expect(await states({ payload: 'n=7', task: 'mail' })).toHaveLength(1); // a number matches as text, as group keys do
    const queued = await states({ task: 'mail', state: 'queued' });
    const dbQueued = await db.pool.query(`SELECT count(*)::int AS n FROM executions WHERE task = 'mail' AND state = 'queued' AND run_at <= now()`);
    expect(queued).toHaveLength(dbQueued.rows[0].n);
  });

  it('pages by id both ways without repeats or gaps', async () => {
    for (const order of ['newest', 'oldest'] as const) {
      const seen: number[] = [];
      let cursor: number | undefined;
      for (let i = 0; i < 20; i++) {
        const p = await listExecutionPage(db.pool, { filter: { task: 'mail' }, order, limit: 7, ...(cursor !== undefined ? { cursor } : {}) });
        seen.push(...p.items.map((r) => r.id));
        if (p.nextCursor === null) break;
        cursor = p.nextCursor;
      }
      const expected = (await db.pool.query(`SELECT id FROM executions WHERE task = 'mail' ORDER BY id ${order === 'newest' ? 'DESC' : 'ASC'}`)).rows.map((r) => Number(r.id));
      expect(seen).toEqual(expected);
    }
  });

  it('reads at most the id window per page, says how far it searched, and continues from there', async () => {
    // a window of 10 ids over ~41 ids: a rare match is reached page by page, never by one long scan
    const filter = toExecutionQuery(f({ group: 'tenant=late' }));
    const late = (await db.pool.query(`SELECT id FROM executions WHERE groups->>'tenant' = 'late'`)).rows[0].id as number;
    let cursor: number | null = null;
    const found: number[] = [];
    let pages = 0;
    do {
      const p = await listExecutions(db.pool, filter, { limit: 5, order: 'oldest', cursor, window: 10 });
      pages++;
      expect(p.searched).not.toBeNull();
      expect(p.searched!.to - p.searched!.from).toBeLessThanOrEqual(10);
      for (const r of p.rows) expect(r.id).toBeGreaterThanOrEqual(p.searched!.from);
      found.push(...p.rows.map((r) => r.id));
      cursor = p.nextCursor;
    } while (cursor !== null && pages < 50);
    expect(found).toEqual([late]);
    expect(pages).toBeGreaterThanOrEqual(4);
  });

  it('counts from counters where they exist, else capped, never over the whole table', async () => {
    const r = await listExecutionPage(db.pool, { filter: { task: 'mail', state: 'running' } });
    expect(r.count).toEqual({ value: running.length, capped: false, source: 'counter' });
    const s = await listExecutionPage(db.pool, { filter: { task: 'bill', state: 'spilled' } });
    const spilled = (await db.pool.query(`SELECT count(*)::int AS n FROM overflow`)).rows[0].n;
    expect(s.count).toEqual({ value: spilled, capped: false, source: 'counter' });
    const g = await listExecutionPage(db.pool, { filter: { group: 'tenant=acme' } });
    expect(g.count).toEqual({ value: 10, capped: false, source: 'all' });
    expect(g.counters?.group).toMatchObject({ key: 'tenant=acme' });
    const depth = (await db.pool.query(`SELECT sum(depth)::int AS d FROM partition_stats WHERE task = 'mail'`)).rows[0].d;
    expect((await listExecutionPage(db.pool, { filter: { task: 'mail' } })).counters?.totals.depth).toBe(depth);
  });

  it('rejects bad filters field by field', async () => {
    for (const [filter, field] of [
      [{ state: 'sleeping' }, 'state'],
      [{ group: 'tenant' }, 'group'],
      [{ stream: 'a\u0000b' }, 'stream'],
      [{ idempotencyKey: '\uD800x' }, 'idempotencyKey'],
      [{ payload: '=x' }, 'payload'],
      [{ id: -3 }, 'id'],
      [{ enqueuedFrom: '2026-01-02', enqueuedTo: '2026-01-01' }, 'enqueuedTo'],
      [{ color: 'red' }, ''],
    ] as const) {
      await expect(listExecutionPage(db.pool, { filter: filter as never })).rejects.toMatchObject({ code: 'BAD_REQUEST', fieldErrors: [expect.objectContaining({ path: expect.stringContaining(field) })] });
    }
  });
});

describe('REST', () => {
  it('lists for any token; producers may not match payloads; unknown or repeated parameters are 400', async () => {
    const { GET } = await routes.list();
    const ok = await GET(req('/api/v1/executions?task=mail&group=tenant%3Dacme&limit=3', producer), params({}));
    expect(ok.status).toBe(200);
    const body = await ok.json();
    expect(body.items).toHaveLength(3);
    expect(body.items[0]).not.toHaveProperty('payload');
    const next = await (await GET(req(`/api/v1/executions?task=mail&group=tenant%3Dacme&limit=3&cursor=${body.nextCursor}`, viewer), params({}))).json();
    expect(next.items[0].id).toBeLessThan(body.items[2].id);
    const pay = await GET(req('/api/v1/executions?payload=n%3D1', producer), params({}));
    expect(pay.status).toBe(403);
    expect((await pay.json()).fieldErrors[0].path).toBe('payload');
    expect((await GET(req('/api/v1/executions?payload=n%3D1', viewer), params({}))).status).toBe(200);
    for (const q of ['?tsak=mail', '?task=mail&task=bill', '?state=nope', '?cursor=abc', '?limit=100000', '?stream=%00']) {
      const r = await GET(req(`/api/v1/executions${q}`, viewer), params({}));
      expect(r.status, q).toBe(400);
    }
    expect((await GET(req('/api/v1/executions', 'slc_nope'), params({}))).status).toBe(401);
  });

  it('GET /executions/{id}: whyWaiting for everyone, the payload for all but producers', async () => {
    const { GET } = await routes.one();
    const id = ids.mail[5]!;
    const v = await (await GET(req(`/api/v1/executions/${id}`, viewer), params({ id: String(id) }))).json();
    expect(v.payload).toMatchObject({ n: 5 });
    expect(v.whyWaiting.reason).toBeTypeOf('string');
    expect(v.whyWaiting.text).toBeTypeOf('string');
    const p = await (await GET(req(`/api/v1/executions/${id}`, producer), params({ id: String(id) }))).json();
    expect(p).not.toHaveProperty('payload');
    expect(p.payloadHidden).toBe(true);
    expect(p.whyWaiting).toEqual(v.whyWaiting);
    expect((await GET(req('/api/v1/executions/99999999', viewer), params({ id: '99999999' }))).status).toBe(404);
    expect((await GET(req('/api/v1/executions/x', viewer), params({ id: 'x' }))).status).toBe(400);
  });

  it('the detail hides nothing from the console and builds a timeline', async () => {
    const d = await executionDetail(db.pool, { id: succeeded[0]! }, { includePayload: true });
    expect(d.displayState).toBe('succeeded');
    expect(d.timeline.map((t) => t.kind)).toEqual(['enqueued', 'claimed', 'succeeded']);
    expect(d.whyWaiting).toMatchObject({ reason: 'not_waiting', state: 'succeeded' });
  });
});

describe('CLI', () => {
  const cli = (args: string[]) => runCli(db.url, args);

  it('`executions show` prints the same why-waiting sentence; `list` filters and pages; bad flags name the field', async () => {
    const id = ids.mail[9]!;
    // the registered member sends no heartbeats: keep it live for the CLI's start-up time
    await db.pool.query(`UPDATE coordinators SET last_heartbeat_at = now() + interval '10 minutes'`);
    const d = await executionDetail(db.pool, { id }, { includePayload: true });
    const show = await cli(['executions', 'show', String(id)]);
    expect(show.code, show.stderr).toBe(0);
    expect(show.stdout).toContain(`Execution ${id} — task mail`);
    expect(show.stdout).toContain(`Waiting: ${d.whyWaiting!.text}`);
    const list = await cli(['executions', 'list', '--task', 'mail', '--group', 'tenant=acme', '--limit', '4', '--json']);
    expect(list.code, list.stderr).toBe(0);
    const page = JSON.parse(list.stdout);
    expect(page.items).toHaveLength(4);
    expect(page.items.every((r: { groups: { tenant: string } }) => r.groups.tenant === 'acme')).toBe(true);
    const next = await cli(['executions', 'list', '--task', 'mail', '--group', 'tenant=acme', '--limit', '4', '--cursor', String(page.nextCursor)]);
    expect(next.stdout).toMatch(/tenant=acme/);
    const bad = await cli(['executions', 'list', '--state', 'sleeping']);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('state');
  }, 180_000); // four CLI processes, each starting up
});
