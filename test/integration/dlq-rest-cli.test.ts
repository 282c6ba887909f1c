// The REST routes (called as Next would call them, with API tokens) and the CLI (a real
// `node bin/sluice.js dlq …` process against the test database): same filters, same
// services, --dry-run changes nothing, roles enforced, audit written.
import { describe, it, expect, beforeAll } from 'vitest';
import path from 'node:path';
import { testDatabase } from './db';
import { insertDeadLetters } from '../support/dead-letter-fixtures';
import { applyTasks } from '../support/engine-fixtures';
import { createToken } from '../../server/services/tokens';
import { SYSTEM_ACTOR } from '../../server/db/audit';
import { apiRequest, routeParams, runCli } from '../support/rest-and-cli';

const db = await testDatabase();
process.env.DATABASE_URL = db.url; // the routes use getPool()

let operatorToken = '';
let viewerToken = '';
let producerToken = '';

const routes = {
  list: () => import('../../app/api/v1/dead-letters/route'),
  one: () => import('../../app/api/v1/dead-letters/[id]/route'),
  fingerprints: () => import('../../app/api/v1/dead-letters/fingerprints/route'),
  replay: () => import('../../app/api/v1/dead-letters/replay/route'),
  job: () => import('../../app/api/v1/dead-letters/replay-jobs/[id]/route'),
  jobAction: () => import('../../app/api/v1/dead-letters/replay-jobs/[id]/[action]/route'),
  preview: () => import('../../app/api/v1/dead-letters/purge-previews/route'),
  exportSet: () => import('../../app/api/v1/dead-letters/purge-previews/[id]/export/route'),
  purge: () => import('../../app/api/v1/dead-letters/purge/route'),
};

const root = path.resolve(import.meta.dirname, '..', '..');
const req = apiRequest;
const params = routeParams;
const cli = (args: string[]) => runCli(db.url, args);

beforeAll(async () => {
  await applyTasks(db.pool, [{ name: 'billing', partitions: 1, groups: [{ name: 'tenant', limit: 5, keyPath: 'tenant' }] }, { name: 'emails', partitions: 1 }]);
  await insertDeadLetters(db.pool, [
    ...Array.from({ length: 8 }, (_, i) => ({ task: 'billing', payload: { tenant: 'acme', i }, groups: { tenant: 'acme' }, fingerprint: 'f1', error: 'Error: card declined' })),
    ...Array.from({ length: 5 }, (_, i) => ({ task: 'emails', payload: { i }, fingerprint: 'f2', error: 'SMTPError: 550 mailbox unavailable' })),
  ]);
  operatorToken = (await createToken(db.pool, SYSTEM_ACTOR, { name: 'ops script', role: 'operator' })).token;
  viewerToken = (await createToken(db.pool, SYSTEM_ACTOR, { name: 'dashboards', role: 'viewer' })).token;
  producerToken = (await createToken(db.pool, SYSTEM_ACTOR, { name: 'orders', role: 'producer' })).token;
});

describe('REST /api/v1/dead-letters', () => {
  it('lists with the browser filters; viewers read, producers cannot; bad input is a 400 by field', async () => {
    const { GET } = await routes.list();
    const r = await GET(req('/api/v1/dead-letters?group=tenant%3Dacme&limit=3', viewerToken), params({}));
    expect(r.status).toBe(200);
    const page = await r.json();
    expect(page.count).toBe(8);
    expect(page.items).toHaveLength(3);
    const r2 = await GET(req(`/api/v1/dead-letters?group=tenant%3Dacme&limit=3&cursor=${encodeURIComponent(page.nextCursor)}`, viewerToken), params({}));
    expect((await r2.json()).items.map((x: { id: number }) => x.id)).not.toContain(page.items[0].id);
    expect((await GET(req('/api/v1/dead-letters', producerToken), params({}))).status).toBe(403);
    expect((await GET(req('/api/v1/dead-letters', 'slc_nope'), params({}))).status).toBe(401);
    const bad = await GET(req('/api/v1/dead-letters?from=yesterday&limit=x', viewerToken), params({}));
    expect(bad.status).toBe(400);
    expect((await bad.json()).fieldErrors.map((f: { path: string }) => f.path).sort()).toEqual(['filter.from', 'limit']);

    const fp = await (await routes.fingerprints()).GET(req('/api/v1/dead-letters/fingerprints?task=emails', viewerToken), params({}));
    expect((await fp.json()).groups).toMatchObject([{ fingerprint: 'f2', count: 5 }]);
    const one = await (await routes.one()).GET(req(`/api/v1/dead-letters/${page.items[0].id}`, viewerToken), params({ id: String(page.items[0].id) }));
    expect((await one.json()).payload.tenant).toBe('acme');
    expect((await (await routes.one()).GET(req('/api/v1/dead-letters/abc', viewerToken), params({ id: 'abc' }))).status).toBe(400);
    expect((await (await routes.one()).GET(req('/api/v1/dead-letters/99999999', viewerToken), params({ id: '99999999' }))).status).toBe(404);
  });

  it('replays (Idempotency-Key makes a retried POST return the same job) and controls the job', async () => {
    const { POST } = await routes.replay();
    const body = { scope: { filter: { task: 'billing' } }, ratePerSecond: 1 };
    expect((await POST(req('/api/v1/dead-letters/replay', viewerToken, { method: 'POST', body }), params({}))).status).toBe(403);
    const dry = await POST(req('/api/v1/dead-letters/replay', operatorToken, { method: 'POST', body: { ...body, dryRun: true } }), params({}));
    expect(dry.status).toBe(200);
    expect((await dry.json()).total).toBe(8);
    const a = await POST(req('/api/v1/dead-letters/replay', operatorToken, { method: 'POST', body, headers: { 'idempotency-key': 'retry-me-123' } }), params({}));
    const b = await POST(req('/api/v1/dead-letters/replay', operatorToken, { method: 'POST', body, headers: { 'idempotency-key': 'retry-me-123' } }), params({}));
    expect(a.status).toBe(202);
    const ja = await a.json();
    const jb = await b.json();
    expect(jb.job.id).toBe(ja.job.id);
    expect(jb.existing).toBe(true);
    const got = await (await routes.job()).GET(req(`/api/v1/dead-letters/replay-jobs/${ja.job.id}`, viewerToken), params({ id: String(ja.job.id) }));
    expect(await got.json()).toMatchObject({ id: ja.job.id, state: 'pending', total: 8 });
    const cancel = await (await routes.jobAction()).POST(
      req(`/api/v1/dead-letters/replay-jobs/${ja.job.id}/cancel`, operatorToken, { method: 'POST' }),
      params({ id: String(ja.job.id), action: 'cancel' }),
    );
    expect((await cancel.json()).state).toBe('cancelled');
    const again = await (await routes.jobAction()).POST(
      req(`/api/v1/dead-letters/replay-jobs/${ja.job.id}/explode`, operatorToken, { method: 'POST' }),
      params({ id: String(ja.job.id), action: 'explode' }),
    );
    expect(again.status).toBe(400);
    const audit = await db.pool.query(`SELECT actor_label, action FROM audit_log WHERE target_id = $1 ORDER BY id`, [String(ja.job.id)]);
    expect(audit.rows).toEqual([
      { actor_label: 'token ops script', action: 'dlq.replay' },
      { actor_label: 'token ops script', action: 'dlq.replay.cancel' },
    ]);
  });

  it('previews, exports and purges the frozen set', async () => {
    const p = await (await routes.preview()).POST(req('/api/v1/dead-letters/purge-previews', operatorToken, { method: 'POST', body: { scope: { filter: { task: 'emails' } } } }), params({}));
    expect(p.status).toBe(201);
    const preview = await p.json();
    expect(preview).toMatchObject({ total: 5, confirmation: 'purge 5' });
    const ex = await (await routes.exportSet()).GET(req(`/api/v1/dead-letters/purge-previews/${preview.id}/export`, operatorToken), params({ id: preview.id }));
    expect(ex.headers.get('content-type')).toContain('ndjson');
    expect((await ex.text()).trim().split('\n').map((l) => JSON.parse(l).task)).toEqual(Array(5).fill('emails'));
    const { POST } = await routes.purge();
    const wrong = await POST(req('/api/v1/dead-letters/purge', operatorToken, { method: 'POST', body: { previewId: preview.id, confirm: 'purge' } }), params({}));
    expect(wrong.status).toBe(400);
    const ok = await POST(req('/api/v1/dead-letters/purge', operatorToken, { method: 'POST', body: { previewId: preview.id, confirm: 'purge 5' } }), params({}));
    expect(await ok.json()).toMatchObject({ deleted: 5, frozen: 5 });
    const twice = await POST(req('/api/v1/dead-letters/purge', operatorToken, { method: 'POST', body: { previewId: preview.id, confirm: 'purge 5' } }), params({}));
    expect(twice.status).toBe(409);
    // The export of a purged set is a 409 with a JSON error, before any stream starts.
    const gone = await (await routes.exportSet()).GET(req(`/api/v1/dead-letters/purge-previews/${preview.id}/export`, operatorToken), params({ id: preview.id }));
    expect(gone.status).toBe(409);
    expect(await gone.json()).toMatchObject({ code: 'CONFLICT', error: expect.stringContaining('already purged') });
    const unknown = '00000000-0000-4000-8000-000000000000';
    const missing = await (await routes.exportSet()).GET(req(`/api/v1/dead-letters/purge-previews/${unknown}/export`, operatorToken), params({ id: unknown }));
    expect(missing.status).toBe(404);
  });
});

describe('CLI sluice dlq', () => {
  it('list, replay --dry-run, replay (waits with progress), purge with --export and --confirm', async () => {
    await insertDeadLetters(db.pool, Array.from({ length: 6 }, (_, i) => ({ task: 'emails', payload: { cli: i }, fingerprint: 'f3', error: 'Error: cli case' })));
    const list = await cli(['dlq', 'list', '--task', 'emails', '--json']);
    expect(list.code).toBe(0);
    expect(JSON.parse(list.stdout).count).toBe(6);

    const dry = await cli(['dlq', 'replay', '--fingerprint', 'f3', '--dry-run']);
    expect(dry.stdout).toContain('Dry run: would replay 6 dead letter(s)');
    expect((await db.pool.query(`SELECT count(*)::int AS n FROM dlq_replay_jobs`)).rows[0].n).toBe(1); // only the REST test's job

    const run = await cli(['dlq', 'replay', '--fingerprint', 'f3', '--json']);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ state: 'completed', replayed: 6, total: 6 });
    const audit = await db.pool.query(`SELECT actor_type, meta FROM audit_log WHERE action = 'dlq.replay' ORDER BY id DESC LIMIT 1`);
    expect(audit.rows[0]).toMatchObject({ actor_type: 'cli', meta: { filter: { fingerprint: 'f3' }, total: 6 } });

    const noConfirm = await cli(['dlq', 'purge', '--fingerprint', 'f3']);
    expect(noConfirm.code).toBe(2);
    expect(noConfirm.stderr).toContain('--confirm "purge 6"');
    const file = path.join(root, `.tmp-dlq-export-${process.pid}.jsonl`);
    const purge = await cli(['dlq', 'purge', '--fingerprint', 'f3', '--export', file, '--confirm', 'purge 6']);
    expect(purge.code).toBe(0);
    expect(purge.stdout).toContain('Exported 6 dead letter(s)');
    expect(purge.stdout).toContain('Purged 6 of 6');
    const { readFileSync, rmSync } = await import('node:fs');
    expect(readFileSync(file, 'utf8').trim().split('\n')).toHaveLength(6);
    rmSync(file);
    expect((await db.pool.query(`SELECT count(*)::int AS n FROM dead_letters WHERE fingerprint = 'f3'`)).rows[0].n).toBe(0);

    const bad = await cli(['dlq', 'replay', '--status', 'weird', '--ids', '1']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('either --ids or filter options');
  }, 180_000); // six CLI processes, each a cold tsx start: 60 s ran out on a loaded 2-core machine
});
