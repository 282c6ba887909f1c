// Hostile input over every input of the tRPC routers and the REST API: each string leaf
// of a valid input replaced by NUL, a lone surrogate, a 1 MB string or a value nested
// 5,000 levels deep; an unknown field added to every object; hostile keys and a deep
// value added to every open map (payloads, groups, overrides). Every one must answer a
// 4xx that names the field, and write nothing: the database's fingerprint (every row of
// every table) is the same before and after. The summary line counts what was sent and
// how many answered 500 (the figures in the hardening note).
import { DEFAULT_MAX_PAYLOAD_BYTES } from '@/server/core/input-text';
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { TRPCError } from '@trpc/server';
import { getHTTPStatusCodeFromError } from '@trpc/server/http';
import { ZodError } from 'zod';
import { testDatabase, type TestDatabase } from './db';
import { callerAs } from '../support/trpc-caller';
import { applyTasks } from '../support/engine-fixtures';
import { insertDeadLetters } from '../support/dead-letter-fixtures';
import { changedTables, databaseFingerprint, hostileVariants, namesField, toJson, type PathSeg, type Variant } from '../support/hostile-input';
import { createUser } from '../../server/services/users';
import { createToken } from '../../server/services/tokens';
import { createWebhook } from '../../server/services/webhooks';
import { previewPurge } from '../../server/services/dead-letter-purge';
import { SYSTEM_ACTOR } from '../../server/db/audit';
import { isCoreError, issueFieldErrors } from '../../server/core/errors';
import type { SessionUser } from '../../server/services/sessions';

let db: TestDatabase;
let admin: SessionUser;
let caller: ReturnType<typeof callerAs>;
let producerToken: string;
let operatorToken: string;
const ids = { viewer: '', token: '', webhook: '', deadLetter: 0, preview: '', version: 0 };

interface Outcome {
  target: string;
  variant: string;
  status: number;
  named: boolean;
  wrote: string[];
  message: string;
}
const outcomes: Outcome[] = [];

beforeAll(async () => {
  db = await testDatabase();
  process.env.DATABASE_URL = db.url;
  const { user } = await createUser(db.pool, SYSTEM_ACTOR, { email: 'hostile-admin@example.com', role: 'admin', password: 'hostile-admin-pass-1' });
  admin = { id: user.id, email: user.email, role: 'admin' };
  caller = callerAs(db.pool, admin);
  ids.viewer = (await createUser(db.pool, SYSTEM_ACTOR, { email: 'hostile-viewer@example.com', role: 'viewer', password: 'hostile-viewer-pass-1' })).user.id;
  ids.token = (await createToken(db.pool, SYSTEM_ACTOR, { name: 'to-revoke', role: 'producer' })).record.id;
  producerToken = (await createToken(db.pool, SYSTEM_ACTOR, { name: 'hostile-producer', role: 'producer' })).token;
  operatorToken = (await createToken(db.pool, SYSTEM_ACTOR, { name: 'hostile-operator', role: 'operator' })).token;
  const applied = await applyTasks(db.pool, [
    { name: 'send-email', partitions: 2, routing: { strategy: 'hash', keyPath: 'tenant' }, groups: [{ name: 'tenant', limit: 5, keyPath: 'tenant' }], stream: { keyPath: 'thread' } },
  ]);
  ids.version = applied.version;
  ids.webhook = (await createWebhook(db.pool, SYSTEM_ACTOR, { name: 'ops', url: 'https://hooks.example.com/sluice', secret: '0123456789abcdef' })).id;
  ids.deadLetter = (await insertDeadLetters(db.pool, [{ task: 'send-email', error: 'Error: boom', fingerprint: 'f00d', groups: { tenant: 'acme' }, streamKey: 's1' }]))[0]!.id;
  ids.preview = (await previewPurge(db.pool, SYSTEM_ACTOR, { filter: { task: 'send-email' } })).id!;
});

afterAll(() => {
  const count = (f: (o: Outcome) => boolean) => outcomes.filter(f).length;
  const trpc = outcomes.filter((o) => o.target.startsWith('trpc '));
  const rest = outcomes.filter((o) => o.target.startsWith('REST '));
  console.log(
    `[hostile-input] sent ${outcomes.length} hostile requests (tRPC ${trpc.length}, REST ${rest.length}): ` +
      `${count((o) => o.status >= 500)} answered 500 (tRPC ${trpc.filter((o) => o.status >= 500).length}, REST ${rest.filter((o) => o.status >= 500).length}), ` +
      `${count((o) => o.status < 400)} were accepted, ${count((o) => o.status >= 400 && o.status < 500 && !o.named)} 4xx did not name the field, ` +
      `${count((o) => o.wrote.length > 0)} wrote rows`,
  );
});

function fieldErrorsOf(e: unknown): { path: string; message: string }[] {
  const cause = (e as { cause?: unknown }).cause;
  if (isCoreError(cause) || isCoreError(e)) return (isCoreError(cause) ? cause : (e as { fieldErrors?: [] })).fieldErrors ?? [];
  if (cause instanceof ZodError || (cause && Array.isArray((cause as { issues?: unknown }).issues))) {
    return issueFieldErrors((cause as ZodError).issues);
  }
  return [];
}

async function record(target: string, v: Variant, send: () => Promise<{ status: number; fieldErrors: { path: string; message: string }[]; message: string }>) {
  const before = await databaseFingerprint(db.pool);
  const r = await send();
  const after = await databaseFingerprint(db.pool);
  const o: Outcome = { target, variant: v.label, status: r.status, named: namesField(r.fieldErrors, r.message, v), wrote: changedTables(before, after), message: r.message.slice(0, 160) };
  outcomes.push(o);
  return o;
}

function failures(target: string) {
  return outcomes
    .filter((o) => o.target === target && (o.status < 400 || o.status >= 500 || !o.named || o.wrote.length > 0))
    .map((o) => `${o.variant} → ${o.status}${o.named ? '' : ' (field not named)'}${o.wrote.length ? ` wrote ${o.wrote.join(',')}` : ''}: ${o.message}`);
}

// ─── tRPC ─────────────────────────────────────────────────────────────────────────

type Call = (input: unknown) => Promise<unknown>;
const trpcTargets: { name: string; call: () => Call; valid: () => unknown; open?: PathSeg[][] }[] = [
  { name: 'auth.signIn', call: () => (i) => caller.auth.signIn(i as never), valid: () => ({ email: 'admin@example.com', password: 'not-the-password' }) },
  { name: 'users.create', call: () => (i) => caller.users.create(i as never), valid: () => ({ email: 'new-user@example.com', role: 'viewer', password: 'new-user-pass-123' }) },
  { name: 'users.update', call: () => (i) => caller.users.update(i as never), valid: () => ({ id: ids.viewer, role: 'operator' }) },
  { name: 'users.resetPassword', call: () => (i) => caller.users.resetPassword(i as never), valid: () => ({ id: ids.viewer, password: 'another-pass-123' }) },
  { name: 'tokens.create', call: () => (i) => caller.tokens.create(i as never), valid: () => ({ name: 'ci token', role: 'producer' }) },
  { name: 'tokens.revoke', call: () => (i) => caller.tokens.revoke(i as never), valid: () => ({ id: ids.token }) },
  {
    name: 'audit.list',
    call: () => (i) => caller.audit.list(i as never),
    valid: () => ({ actor: 'admin', action: 'user.', targetType: 'user', targetId: ids.viewer, cursor: '100', limit: 10 }),
  },
  { name: 'tasks.get', call: () => (i) => caller.tasks.get(i as never), valid: () => ({ name: 'send-email' }) },
  ...(['preview', 'save'] as const).map((p) => ({
    name: `tasks.${p}`,
    call: () => (i: unknown) => caller.tasks[p](i as never),
    valid: () => ({
      mode: 'create',
      task: { name: 'new-task', description: 'sends things', groups: [{ name: 'tenant', limit: 5, keyPath: 'tenant', overrides: { acme: 3 } }], stream: { keyPath: 'thread' } },
      basedOn: ids.version,
      ...(p === 'save' ? { message: 'add new-task' } : {}),
    }),
    open: [['task', 'groups', 0, 'overrides']],
  })),
  { name: 'tasks.setPaused', call: () => (i) => caller.tasks.setPaused(i as never), valid: () => ({ task: 'send-email', paused: true, message: 'pause it' }) },
  { name: 'tasks.breaker', call: () => (i) => caller.tasks.breaker(i as never), valid: () => ({ name: 'send-email' }) },
  { name: 'tasks.resetBreaker', call: () => (i) => caller.tasks.resetBreaker(i as never), valid: () => ({ name: 'send-email' }) },
  { name: 'tasks.delete', call: () => (i) => caller.tasks.delete(i as never), valid: () => ({ task: 'send-email', basedOn: ids.version, message: 'remove it', drain: true }) },
  { name: 'config.history', call: () => (i) => caller.config.history(i as never), valid: () => ({ task: 'send-email', limit: 5 }) },
  { name: 'config.version', call: () => (i) => caller.config.version(i as never), valid: () => ({ version: ids.version }) },
  { name: 'config.export', call: () => (i) => caller.config.export(i as never), valid: () => ({ version: ids.version }) },
  { name: 'config.previewRollback', call: () => (i) => caller.config.previewRollback(i as never), valid: () => ({ to: 1, basedOn: ids.version }) },
  { name: 'config.rollback', call: () => (i) => caller.config.rollback(i as never), valid: () => ({ to: 1, basedOn: ids.version, message: 'roll back' }) },
  { name: 'coordinators.drain', call: () => (i) => caller.coordinators.drain(i as never), valid: () => ({ id: '00000000-0000-4000-8000-000000000000' }) },
  ...(['list', 'fingerprints'] as const).map((p) => ({
    name: `deadLetters.${p}`,
    call: () => (i: unknown) => caller.deadLetters[p](i as never),
    valid: () => ({ filter: { task: 'send-email', fingerprint: 'f00d', group: 'tenant=acme', stream: 's1', q: 'boom', status: 'all', from: '2020-01-01T00:00:00Z' }, limit: 10 }),
  })),
  { name: 'deadLetters.get', call: () => (i) => caller.deadLetters.get(i as never), valid: () => ({ id: ids.deadLetter }) },
  { name: 'deadLetters.replayJobs', call: () => (i) => caller.deadLetters.replayJobs(i as never), valid: () => ({ limit: 5 }) },
  { name: 'deadLetters.replayJob', call: () => (i) => caller.deadLetters.replayJob(i as never), valid: () => ({ id: 1 }) },
  {
    name: 'deadLetters.replay',
    call: () => (i) => caller.deadLetters.replay(i as never),
    valid: () => ({ scope: { filter: { task: 'send-email', q: 'boom', group: 'tenant=acme', stream: 's1' } }, requestId: 'request-0001', dryRun: false }),
  },
  { name: 'deadLetters.controlReplay', call: () => (i) => caller.deadLetters.controlReplay(i as never), valid: () => ({ jobId: 1, action: 'pause' }) },
  { name: 'deadLetters.previewPurge', call: () => (i) => caller.deadLetters.previewPurge(i as never), valid: () => ({ scope: { filter: { q: 'boom', group: 'tenant=acme', stream: 's1' } } }) },
  { name: 'deadLetters.purgePreview', call: () => (i) => caller.deadLetters.purgePreview(i as never), valid: () => ({ id: ids.preview }) },
  { name: 'deadLetters.purge', call: () => (i) => caller.deadLetters.purge(i as never), valid: () => ({ previewId: ids.preview, confirm: 'purge 1' }) },
  { name: 'metrics.overview', call: () => (i) => caller.metrics.overview(i as never), valid: () => ({ range: '1h', task: 'send-email' }) },
  { name: 'metrics.taskCharts', call: () => (i) => caller.metrics.taskCharts(i as never), valid: () => ({ task: 'send-email', range: '1h' }) },
  { name: 'metrics.taskPartitions', call: () => (i) => caller.metrics.taskPartitions(i as never), valid: () => ({ task: 'send-email' }) },
  { name: 'metrics.partitionKeys', call: () => (i) => caller.metrics.partitionKeys(i as never), valid: () => ({ task: 'send-email', partition: 0 }) },
  { name: 'alerts.list', call: () => (i) => caller.alerts.list(i as never), valid: () => ({ status: 'open', task: 'send-email', rule: 'depth', severity: 'warning', limit: 10 }) },
  { name: 'alerts.get', call: () => (i) => caller.alerts.get(i as never), valid: () => ({ id: 1 }) },
  { name: 'alerts.acknowledge', call: () => (i) => caller.alerts.acknowledge(i as never), valid: () => ({ id: 1 }) },
  { name: 'alerts.silence', call: () => (i) => caller.alerts.silence(i as never), valid: () => ({ id: 1, durationMs: 3_600_000 }) },
  { name: 'alerts.resolve', call: () => (i) => caller.alerts.resolve(i as never), valid: () => ({ id: 1 }) },
  { name: 'webhooks.deliveries', call: () => (i) => caller.webhooks.deliveries(i as never), valid: () => ({ targetId: ids.webhook, limit: 10 }) },
  {
    name: 'webhooks.create',
    call: () => (i) => caller.webhooks.create(i as never),
    valid: () => ({ name: 'pager', url: 'https://hooks.example.com/pager', secret: 'fedcba9876543210', minSeverity: 'critical', enabled: true }),
  },
  {
    name: 'webhooks.update',
    call: () => (i) => caller.webhooks.update(i as never),
    valid: () => ({ id: ids.webhook, name: 'ops-2', url: 'https://hooks.example.com/ops', secret: 'fedcba9876543210', minSeverity: 'critical', enabled: false }),
  },
  { name: 'webhooks.delete', call: () => (i) => caller.webhooks.delete(i as never), valid: () => ({ id: ids.webhook }) },
  { name: 'webhooks.test', call: () => (i) => caller.webhooks.test(i as never), valid: () => ({ id: ids.webhook }) },
];

describe('hostile input over every tRPC procedure: 4xx naming the field, nothing written', () => {
  it.each(trpcTargets.map((t) => [t.name, t] as const))('%s', async (name, t) => {
    const call = t.call();
    for (const v of hostileVariants(t.valid(), t.open ?? [])) {
      await record(`trpc ${name}`, v, async () => {
        try {
          await call(v.input);
          return { status: 200, fieldErrors: [], message: 'accepted' };
        } catch (e) {
          if (!(e instanceof TRPCError)) return { status: 500, fieldErrors: [], message: `not a TRPCError: ${String(e)}` };
          return { status: getHTTPStatusCodeFromError(e), fieldErrors: fieldErrorsOf(e), message: e.message };
        }
      });
    }
    expect(failures(`trpc ${name}`)).toEqual([]);
  });
});

// ─── REST ─────────────────────────────────────────────────────────────────────────

type RouteModule = Record<string, (req: Request, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>>;
const load = (p: string) => import(/* @vite-ignore */ `../../app/api/v1/${p}/route`) as Promise<RouteModule>;

async function restCall(
  mod: string,
  method: 'GET' | 'POST',
  opts: { params?: Record<string, string>; query?: Record<string, string>; body?: string; token?: string },
): Promise<{ status: number; fieldErrors: { path: string; message: string }[]; message: string }> {
  const route = await load(mod);
  const url = new URL(`http://127.0.0.1/api/v1/${mod}`);
  for (const [k, val] of Object.entries(opts.query ?? {})) url.searchParams.set(k, val);
  const req = new Request(url, {
    method,
    headers: { authorization: `Bearer ${opts.token ?? operatorToken}`, 'content-type': 'application/json' },
    ...(opts.body !== undefined ? { body: opts.body } : {}),
  });
  try {
    const res = await route[method]!(req, { params: Promise.resolve(opts.params ?? {}) });
    const text = await res.text();
    let body: { error?: string; fieldErrors?: { path: string; message: string }[] } = {};
    try {
      body = JSON.parse(text);
    } catch {
      body = { error: text };
    }
    return { status: res.status, fieldErrors: body.fieldErrors ?? [], message: body.error ?? '' };
  } catch (e) {
    return { status: 500, fieldErrors: [], message: `threw: ${String(e).slice(0, 200)}` };
  }
}

const execution = () => ({ payload: { tenant: 'acme', thread: 't-1', to: 'a@example.com', lines: ['hi'] }, groups: { tenant: 'acme' }, streamKey: 's-1', idempotencyKey: 'order-1', routingKey: 'acme', delayMs: 0 });

const restBodyTargets: { name: string; mod: string; params?: Record<string, string>; token: () => string; valid: () => unknown; open?: PathSeg[][] }[] = [
  { name: 'POST tasks/{task}/executions (one)', mod: 'tasks/[task]/executions', params: { task: 'send-email' }, token: () => producerToken, valid: execution, open: [['payload'], ['groups']] },
  {
    name: 'POST tasks/{task}/executions (batch)',
    mod: 'tasks/[task]/executions',
    params: { task: 'send-email' },
    token: () => producerToken,
    valid: () => ({ executions: [execution()] }),
    open: [['executions', 0, 'payload'], ['executions', 0, 'groups']],
  },
  {
    name: 'POST dead-letters/replay',
    mod: 'dead-letters/replay',
    token: () => operatorToken,
    valid: () => ({ scope: { filter: { task: 'send-email', q: 'boom', group: 'tenant=acme', stream: 's1' } }, requestId: 'request-0002' }),
  },
  { name: 'POST dead-letters/purge-previews', mod: 'dead-letters/purge-previews', token: () => operatorToken, valid: () => ({ scope: { filter: { q: 'boom', group: 'tenant=acme', stream: 's1', fingerprint: 'f00d' } } }) },
  { name: 'POST dead-letters/purge', mod: 'dead-letters/purge', token: () => operatorToken, valid: () => ({ previewId: ids.preview, confirm: 'purge 1' }) },
];

const restQueryTargets: { name: string; mod: string; valid: Record<string, string> }[] = [
  {
    name: 'GET dead-letters',
    mod: 'dead-letters',
    valid: { task: 'send-email', fingerprint: 'f00d', group: 'tenant=acme', stream: 's1', q: 'boom', status: 'all', from: '2020-01-01T00:00:00Z', to: '2030-01-01T00:00:00Z', limit: '10' },
  },
  { name: 'GET dead-letters/fingerprints', mod: 'dead-letters/fingerprints', valid: { task: 'send-email', group: 'tenant=acme', stream: 's1', q: 'boom', limit: '10' } },
  { name: 'GET dead-letters/replay-jobs', mod: 'dead-letters/replay-jobs', valid: { limit: '10', beforeId: '5' } },
];

const restPathTargets: { name: string; mod: string; method: 'GET' | 'POST'; valid: () => Record<string, string> }[] = [
  { name: 'GET executions/{id}', mod: 'executions/[id]', method: 'GET', valid: () => ({ id: '1' }) },
  { name: 'GET dead-letters/{id}', mod: 'dead-letters/[id]', method: 'GET', valid: () => ({ id: String(ids.deadLetter) }) },
  { name: 'GET dead-letters/replay-jobs/{id}', mod: 'dead-letters/replay-jobs/[id]', method: 'GET', valid: () => ({ id: '1' }) },
  { name: 'POST dead-letters/replay-jobs/{id}/{action}', mod: 'dead-letters/replay-jobs/[id]/[action]', method: 'POST', valid: () => ({ id: '1', action: 'pause' }) },
  { name: 'GET dead-letters/purge-previews/{id}/export', mod: 'dead-letters/purge-previews/[id]/export', method: 'GET', valid: () => ({ id: ids.preview }) },
];

describe('hostile input over every REST route: 4xx naming the field, nothing written', () => {
  it.each(restBodyTargets.map((t) => [t.name, t] as const))('%s', async (name, t) => {
    for (const v of hostileVariants(t.valid(), t.open ?? [])) {
      await record(`REST ${name}`, v, () => restCall(t.mod, 'POST', { params: t.params ?? {}, body: v.deep ? toJson(v.input) : JSON.stringify(v.input), token: t.token() }));
    }
    expect(failures(`REST ${name}`)).toEqual([]);
  });

  it.each(restQueryTargets.map((t) => [t.name, t] as const))('%s (query string)', async (name, t) => {
    // Query strings carry text only: NUL (%00) and a huge value; a lone surrogate cannot be
    // percent-encoded (it arrives as U+FFFD, which is valid text).
    for (const k of Object.keys(t.valid)) {
      for (const [label, value] of [
        ['NUL', 'a\u0000b'],
        ['huge string (1 MB)', 'x'.repeat(1_000_000)],
      ] as const) {
        const v: Variant = { label: `${k}: ${label}`, path: [k === 'limit' || k === 'beforeId' ? k : `filter.${k}`].flatMap((p) => p.split('.')), input: null };
        if (k === 'limit' || k === 'beforeId') v.path = [k];
        await record(`REST ${name}`, v, () => restCall(t.mod, 'GET', { query: { ...t.valid, [k]: value } }));
      }
    }
    expect(failures(`REST ${name}`)).toEqual([]);
  });

  it.each(restPathTargets.map((t) => [t.name, t] as const))('%s (path)', async (name, t) => {
    const valid = t.valid();
    for (const k of Object.keys(valid)) {
      for (const [label, value] of [
        ['NUL', 'a\u0000b'],
        ['lone surrogate', '1\ud800'],
        ['huge string (1 MB)', '1'.repeat(1_000_000)],
      ] as const) {
        const v: Variant = { label: `${k}: ${label}`, path: [k === 'id' && t.mod.includes('replay-jobs/[id]/[action]') ? 'jobId' : k], input: null };
        await record(`REST ${name}`, v, () => restCall(t.mod, t.method, { params: { ...valid, [k]: value } }));
      }
    }
    expect(failures(`REST ${name}`)).toEqual([]);
  });

  it('an idempotent retry with a lone-surrogate key is refused both times, never a 500, and writes nothing', async () => {
    const body = JSON.stringify({ payload: { tenant: 'acme', thread: 't' }, idempotencyKey: 'retry-\ud800' });
    const v: Variant = { label: 'idempotencyKey: lone surrogate, sent twice', path: ['idempotencyKey'], input: null };
    const statuses: number[] = [];
    for (let i = 0; i < 2; i++) {
      statuses.push((await record('REST idempotent retry', v, () => restCall('tasks/[task]/executions', 'POST', { params: { task: 'send-email' }, body, token: producerToken }))).status);
    }
    expect(statuses).toEqual([400, 400]);
    expect(failures('REST idempotent retry')).toEqual([]);
  });

  it('a payload over SLUICE_MAX_PAYLOAD_BYTES and a batch over its limit answer 413 naming the field; a NUL beside a big payload stays a 400', async () => {
    const big = { blob: 'x'.repeat(DEFAULT_MAX_PAYLOAD_BYTES) };
    const cases: [string, unknown, string, number][] = [
      ['payload over the limit', { payload: big }, 'payload', 413],
      ['one of a batch over the limit', { executions: [{ payload: { ok: 1 } }, { payload: big }] }, 'executions.1.payload', 413],
      ['batch of 10,001', { executions: Array.from({ length: 10_001 }, () => ({ payload: {} })) }, 'executions', 413],
      ['big payload and a NUL key', { payload: big, idempotencyKey: 'a\u0000b' }, 'idempotencyKey', 400],
    ];
    for (const [label, body, field, status] of cases) {
      const v: Variant = { label, path: field.split('.'), input: null };
      const o = await record('REST size limits', v, () => restCall('tasks/[task]/executions', 'POST', { params: { task: 'send-email' }, body: JSON.stringify(body), token: producerToken }));
      expect(o.status, label).toBe(status);
    }
    expect(failures('REST size limits')).toEqual([]);
  });
});
