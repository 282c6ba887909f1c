// The execution actions through every door: the tRPC router (viewers refused, operators
// act), the REST routes with API tokens (called as Next calls them; only operator tokens;
// hostile input a 4xx naming the field with nothing written, never a 500), and the CLI (a
// real `node bin/sluice.js executions …` process).
import { describe, it, expect, beforeAll } from 'vitest';
import { testDatabase } from './db';
import { callerAs, trpcCode } from '../support/trpc-caller';
import { applyTasks } from '../support/engine-fixtures';
import { enqueue } from '../../server/services/enqueue';
import { createToken } from '../../server/services/tokens';
import { SYSTEM_ACTOR } from '../../server/db/audit';
import { apiRequest, routeParams, runCli } from '../support/rest-and-cli';
import type { SessionUser } from '../../server/services/sessions';

const db = await testDatabase();
process.env.DATABASE_URL = db.url; // the routes use getPool()

const viewer: SessionUser = { id: '00000000-0000-0000-0000-0000000000b1', email: 'viewer@example.com', role: 'viewer' };
const operator: SessionUser = { id: '00000000-0000-0000-0000-0000000000b2', email: 'op@example.com', role: 'operator' };
let operatorToken = '';
let viewerToken = '';
let producerToken = '';

const routes = {
  cancelOne: () => import('../../app/api/v1/executions/[id]/cancel/route'),
  retry: () => import('../../app/api/v1/executions/[id]/retry/route'),
  preview: () => import('../../app/api/v1/executions/cancel-previews/route'),
  previewStatus: () => import('../../app/api/v1/executions/cancel-previews/[id]/route'),
  cancelMatching: () => import('../../app/api/v1/executions/cancel/route'),
};

const req = (url: string, token: string, init: { method?: string; body?: unknown; raw?: string } = {}) => apiRequest(url, token, { method: 'POST', ...init });
const params = routeParams;
const cli = (args: string[]) => runCli(db.url, args);

const code = trpcCode;

const n = async (sql: string, params: unknown[] = []) => Number((await db.pool.query(sql, params)).rows[0].n);
const stateOf = async (id: number) => (await db.pool.query('SELECT state FROM executions WHERE id = $1', [id])).rows[0]?.state as string | undefined;
const written = () => n(`SELECT (SELECT count(*) FROM audit_log) + (SELECT count(*) FROM execution_cancel_previews) + (SELECT count(*) FROM executions WHERE state = 'canceled') AS n`);

beforeAll(async () => {
  await applyTasks(db.pool, [{ name: 'send-email', partitions: 2, paused: true, groups: [{ name: 'tenant', limit: 8, keyPath: 'tenant' }] }]);
  operatorToken = (await createToken(db.pool, SYSTEM_ACTOR, { name: 'ops script', role: 'operator' })).token;
  viewerToken = (await createToken(db.pool, SYSTEM_ACTOR, { name: 'dashboards', role: 'viewer' })).token;
  producerToken = (await createToken(db.pool, SYSTEM_ACTOR, { name: 'app', role: 'producer' })).token;
});

describe('tRPC executionActions', () => {
  it('viewers are refused every action and nothing is written; operators act', async () => {
    const [a, b] = (await enqueue(db.pool, 'send-email', [{ payload: { tenant: 'acme' } }, { payload: { tenant: 'acme' }, delayMs: 3_600_000 }])).executions.map((e) => e.id!) as [number, number];
    const before = await written();
    const v = callerAs(db.pool, viewer);
    expect(await code(v.executionActions.cancel({ id: a }))).toBe('FORBIDDEN');
    expect(await code(v.executionActions.retryNow({ id: b }))).toBe('FORBIDDEN');
    expect(await code(v.executionActions.previewCancelMatching({ filter: { task: 'send-email' } }))).toBe('FORBIDDEN');
    expect(await code(v.executionActions.cancelMatching({ previewId: '00000000-0000-4000-8000-000000000000', confirm: 'cancel 1' }))).toBe('FORBIDDEN');
    expect(await code(callerAs(db.pool, null).executionActions.cancel({ id: a }))).toBe('UNAUTHORIZED');
    expect(await written()).toBe(before);
    expect(await stateOf(a)).toBe('queued');

    const op = callerAs(db.pool, operator);
    expect(await op.executionActions.cancel({ id: a })).toMatchObject({ result: 'canceled', prior: 'queued' });
    expect(await op.executionActions.retryNow({ id: b })).toMatchObject({ id: b });
    expect(await code(op.executionActions.cancel({ id: 'x' as never }))).toBe('BAD_REQUEST');
    const p = await op.executionActions.previewCancelMatching({ filter: { task: 'send-email', group: 'tenant=acme' } });
    expect(p.total).toBe(1);
    expect(await op.executionActions.cancelMatching({ previewId: p.id, confirm: p.confirmation })).toMatchObject({ canceled: 1 });
    const audit = await db.pool.query(`SELECT action, actor_label FROM audit_log WHERE action LIKE 'execution.%' ORDER BY id`);
    expect(audit.rows).toEqual([
      { action: 'execution.cancel', actor_label: 'op@example.com' },
      { action: 'execution.retry_now', actor_label: 'op@example.com' },
      { action: 'execution.cancel_matching', actor_label: 'op@example.com' },
    ]);
  });
});

describe('REST', () => {
  it('cancel one and retry now: operator tokens only; 200, 404, 409, 400 by field', async () => {
    const [a, b] = (await enqueue(db.pool, 'send-email', [{ payload: { tenant: 'rest' } }, { payload: { tenant: 'rest' }, delayMs: 3_600_000 }])).executions.map((e) => e.id!) as [number, number];
    const { POST: cancel } = await routes.cancelOne();
    const { POST: retry } = await routes.retry();
    for (const t of [viewerToken, producerToken]) {
      expect((await cancel(req(`/api/v1/executions/${a}/cancel`, t), params({ id: String(a) }))).status).toBe(403);
      expect((await retry(req(`/api/v1/executions/${b}/retry`, t), params({ id: String(b) }))).status).toBe(403);
    }
    expect((await cancel(req(`/api/v1/executions/${a}/cancel`, 'slc_nope'), params({ id: String(a) }))).status).toBe(401);
    expect(await stateOf(a)).toBe('queued');
    const ok = await cancel(req(`/api/v1/executions/${a}/cancel`, operatorToken), params({ id: String(a) }));
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ id: a, task: 'send-email', prior: 'queued', result: 'canceled' });
    expect((await cancel(req(`/api/v1/executions/${a}/cancel`, operatorToken), params({ id: String(a) }))).status).toBe(409);
    expect((await cancel(req('/api/v1/executions/99999999/cancel', operatorToken), params({ id: '99999999' }))).status).toBe(404);
    const before = await written();
    for (const bad of ['abc', '-1', '0', '1e3', '1.5', '%00', '\u0000', '9'.repeat(30)]) {
      const r = await cancel(req('/api/v1/executions/x/cancel', operatorToken), params({ id: bad }));
      expect(r.status, bad).toBe(400);
      const body = (await r.json()) as { fieldErrors: { message: string }[] };
      expect(body.fieldErrors[0]!.message).toMatch(/execution id|too large/);
    }
    expect(await written()).toBe(before);
    const due = await retry(req(`/api/v1/executions/${b}/retry`, operatorToken), params({ id: String(b) }));
    expect(due.status).toBe(200);
    expect((await retry(req(`/api/v1/executions/${b}/retry`, operatorToken), params({ id: String(b) }))).status).toBe(409);
  });

  it('cancel matching: preview (201), status, typed confirm, filter must match, hostile bodies 400 by field, never a 500', async () => {
    await enqueue(db.pool, 'send-email', Array.from({ length: 12 }, (_, i) => ({ payload: { tenant: 'bulk', i } })));
    const { POST: preview } = await routes.preview();
    const { GET: status } = await routes.previewStatus();
    const { POST: apply } = await routes.cancelMatching();
    expect((await preview(req('/api/v1/executions/cancel-previews', viewerToken, { body: { filter: { task: 'send-email' } } }), params({}))).status).toBe(403);

    const before = await written();
    const hostile: [string, string][] = [
      ['not json', ''],
      [JSON.stringify([1, 2]), 'filter'],
      [JSON.stringify({}), 'filter'],
      [JSON.stringify({ filter: { task: 'send-email', group: 'tenant=\u0000' } }), 'filter.group'],
      [JSON.stringify({ filter: { task: 'send-email', stream: '\uD83D' } }), 'filter.stream'],
      [JSON.stringify({ filter: { task: 'send-email', states: ['succeeded'] } }), 'filter.states.0'],
      [JSON.stringify({ filter: { task: 'send-email' }, extra: true }), ''],
      [JSON.stringify({ filter: { task: 'send-email', nested: { a: { b: { c: {} } } } } }), 'filter'],
      [JSON.stringify({ filter: { task: 'x'.repeat(100_000) } }), 'filter.task'],
      [JSON.stringify({ filter: { task: 'send-email' }, dryRun: 'yes' }), 'dryRun'],
    ];
    for (const [raw, field] of hostile) {
      const r = await preview(req('/api/v1/executions/cancel-previews', operatorToken, { raw }), params({}));
      expect(r.status, raw.slice(0, 60)).toBe(400);
      const body = (await r.json()) as { fieldErrors?: { path: string }[] };
      if (field) expect(body.fieldErrors?.map((f) => f.path), raw.slice(0, 60)).toContain(field);
    }
    // Parallel hostile requests: all 400, none written.
    const par = await Promise.all(Array.from({ length: 8 }, () => preview(req('/api/v1/executions/cancel-previews', operatorToken, { body: { filter: { task: 'send-email', from: 'soon' } } }), params({}))));
    expect(par.map((r) => r.status)).toEqual(Array(8).fill(400));
    expect(await written()).toBe(before);

    const dry = await preview(req('/api/v1/executions/cancel-previews', operatorToken, { body: { filter: { task: 'send-email', group: 'tenant=bulk' }, dryRun: true } }), params({}));
    expect(dry.status).toBe(200);
    expect(await dry.json()).toMatchObject({ id: null, dryRun: true, total: 12 });
    const made = await preview(req('/api/v1/executions/cancel-previews', operatorToken, { body: { filter: { task: 'send-email', group: 'tenant=bulk' } } }), params({}));
    expect(made.status).toBe(201);
    const p = (await made.json()) as { id: string; total: number; confirmation: string };
    expect(p).toMatchObject({ total: 12, confirmation: 'cancel 12' });
    const st = await status(req(`/api/v1/executions/cancel-previews/${p.id}`, operatorToken, { method: 'GET' }), params({ id: p.id }));
    expect(await st.json()).toMatchObject({ id: p.id, total: 12, appliedAt: null });
    expect((await status(req('/api/v1/executions/cancel-previews/nope', operatorToken, { method: 'GET' }), params({ id: 'nope' }))).status).toBe(400);

    const wrongFilter = await apply(req('/api/v1/executions/cancel', operatorToken, { body: { previewId: p.id, confirm: 'cancel 12', filter: { task: 'send-email', group: 'tenant=other' } } }), params({}));
    expect(wrongFilter.status).toBe(409);
    const wrongPhrase = await apply(req('/api/v1/executions/cancel', operatorToken, { body: { previewId: p.id, confirm: 'yes' } }), params({}));
    expect(wrongPhrase.status).toBe(400);
    expect(((await wrongPhrase.json()) as { fieldErrors: { path: string }[] }).fieldErrors[0]!.path).toBe('confirm');
    expect(await n(`SELECT count(*) AS n FROM executions WHERE state = 'canceled' AND group_keys @> ARRAY['tenant=bulk']`)).toBe(0);
    const done = await apply(req('/api/v1/executions/cancel', operatorToken, { body: { previewId: p.id, confirm: 'cancel 12', filter: { task: 'send-email', group: 'tenant=bulk' } } }), params({}));
    expect(done.status).toBe(200);
    expect(await done.json()).toMatchObject({ frozen: 12, canceled: 12 });
    expect((await apply(req('/api/v1/executions/cancel', operatorToken, { body: { previewId: p.id, confirm: 'cancel 12' } }), params({}))).status).toBe(409);
  });
});

describe('CLI', () => {
  it('sluice executions cancel ID / --task … with preview and --confirm; retry-now; bad flags name the flag', async () => {
    const [one, later] = (await enqueue(db.pool, 'send-email', [{ payload: { tenant: 'cli1' } }, { payload: { tenant: 'cli1' }, delayMs: 3_600_000 }])).executions.map((e) => e.id!) as [number, number];
    await enqueue(db.pool, 'send-email', Array.from({ length: 7 }, (_, i) => ({ payload: { tenant: 'cli', i } })));
    const c1 = await cli(['executions', 'cancel', String(one)]);
    expect(c1.code, c1.stderr).toBe(0);
    expect(c1.stdout).toMatch(new RegExp(`Execution ${one} \\(send-email\\) canceled \\(was queued\\)`));
    const rn = await cli(['executions', 'retry-now', String(later)]);
    expect(rn.code, rn.stderr).toBe(0);
    expect(rn.stdout).toMatch(/is due now/);

    const dry = await cli(['executions', 'cancel', '--task', 'send-email', '--group', 'tenant=cli', '--dry-run']);
    expect(dry.stdout).toMatch(/Dry run: would cancel 7 execution/);
    const noConfirm = await cli(['executions', 'cancel', '--task', 'send-email', '--group', 'tenant=cli']);
    expect(noConfirm.code).not.toBe(0);
    expect(noConfirm.stderr).toMatch(/--confirm "cancel 7"/);
    expect(await n(`SELECT count(*) AS n FROM executions WHERE state = 'canceled' AND group_keys @> ARRAY['tenant=cli']`)).toBe(0);
    const run = await cli(['executions', 'cancel', '--task', 'send-email', '--group', 'tenant=cli', '--confirm', 'cancel 7']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/Canceled 7 of 7 frozen execution/);
    expect(await n(`SELECT count(*) AS n FROM executions WHERE state = 'canceled' AND group_keys @> ARRAY['tenant=cli']`)).toBe(7);
    expect(await n(`SELECT count(*) AS n FROM audit_log WHERE action = 'execution.cancel_matching' AND actor_label LIKE 'cli (%'`)).toBe(1);

    const bad = await cli(['executions', 'cancel', '--task', 'send-email', '--state', 'queued,finished']);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/--state/);
  }, 240_000); // seven CLI processes: ~7 s each to start on a loaded 2-core box
});
