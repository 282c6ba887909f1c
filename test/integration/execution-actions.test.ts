// Operator actions on executions, on real Postgres (services/execution-actions.ts,
// services/execution-cancel-matching.ts, db/cancel-executions.ts): cancel of waiting work
// with its counters, slots and stream released; a spilled row; retry now; cancel by filter
// acting on the frozen set only while new executions arrive; audit rows; hostile input
// answered 4xx naming the field with nothing written; the canceled outcome in sluice_finish.
import { describe, it, expect, beforeAll } from 'vitest';
import { testDatabase, type TestDatabase } from './db';
import { applyTasks, fakeCoordinator } from '../support/engine-fixtures';
import { enqueue } from '../../server/services/enqueue';
import { claimExecutions } from '../../server/db/claim-executions';
import { finishExecutions } from '../../server/db/finish-executions';
import { cancelExecution, retryExecutionNow } from '../../server/services/execution-actions';
import { cancelMatching, cancelPreviewStatus, previewCancelMatching } from '../../server/services/execution-cancel-matching';
import type { Actor } from '../../server/db/audit';
import { listExecutionPage } from '../../server/presenters/execution';
import { executionFilterSchema, type ExecutionFilterInput } from '../../server/core/execution-filter';
import { CANCELABLE_STATES, DEFAULT_CANCEL_STATES, cancelFilterForListFilter } from '../../server/core/execution-cancel-filter';
import { foldSlotDeltas } from '../../server/db/fold-slot-deltas';

let db: TestDatabase;
let me: string; // a registered member owning every partition (claims without a process)
const actor: Actor = { type: 'user', id: null, label: 'ops@example.com' };

const one = async <T = Record<string, unknown>>(sql: string, params: unknown[] = []) => (await db.pool.query(sql, params)).rows[0] as T;
const n = async (sql: string, params: unknown[] = []) => Number((await one<{ n: unknown }>(sql, params)).n);
const depth = (task: string) => n(`SELECT coalesce(sum(depth), 0) AS n FROM partition_stats WHERE task = $1`, [task]);
const queuedOf = (task: string, key: string) =>
  n(`SELECT coalesce(sum(queued), 0) AS n FROM group_slot_counts WHERE task = $1 AND group_name || '=' || group_key = $2`, [task, key]);
const stateOf = async (id: number) => (await one<{ state: string }>('SELECT state FROM executions WHERE id = $1', [id]))?.state;
const audits = (action: string) => n(`SELECT count(*) AS n FROM audit_log WHERE action = $1`, [action]);

beforeAll(async () => {
  db = await testDatabase();
  await applyTasks(db.pool, [
    { name: 'mail', partitions: 2, concurrency: 4, groups: [{ name: 'tenant', limit: 2, keyPath: 'tenant' }], stream: { keyPath: 's' } },
    { name: 'spilly', partitions: 1, backpressure: { maxDepth: 2, policy: 'spill' } },
  ]);
  me = await fakeCoordinator(db.pool, ['mail']);
});

/** Claims until every one of `ids` runs, finishing whatever else it claims as succeeded. */
async function claimAll(task: string, ids: number[]) {
  const got = new Map<number, string>();
  for (let round = 0; round < 20 && got.size < ids.length; round++) {
    const claimed = await claimExecutions(db.pool, me, task, 4, 60_000);
    for (const c of claimed) if (ids.includes(c.id)) got.set(c.id, c.leaseToken);
    const others = claimed.filter((c) => !ids.includes(c.id));
    await finishExecutions(db.pool, task, others.map((c) => ({ id: c.id, leaseToken: c.leaseToken, outcome: 'succeeded' as const })));
  }
  expect(got.size).toBe(ids.length);
  return got;
}

describe('cancel one execution', () => {
  it('queued: canceled now, depth, group queued and canceled_total move, audited', async () => {
    const r = await enqueue(db.pool, 'mail', [{ payload: { tenant: 'acme' } }, { payload: { tenant: 'acme' } }]);
    const [a, b] = r.executions.map((e) => e.id!) as [number, number];
    const d0 = await depth('mail');
    const q0 = await queuedOf('mail', 'tenant=acme');
    const c0 = await n(`SELECT sum(canceled_total) AS n FROM partition_outcomes WHERE task = 'mail'`);
    const out = await cancelExecution(db.pool, actor, a);
    expect(out).toEqual({ id: a, task: 'mail', prior: 'queued', result: 'canceled' });
    const row = await one<{ state: string; finished_at: Date | null; cancel_requested_at: Date | null }>('SELECT * FROM executions WHERE id = $1', [a]);
    expect(row.state).toBe('canceled');
    expect(row.finished_at).not.toBeNull();
    expect(await depth('mail')).toBe(d0 - 1);
    expect(await queuedOf('mail', 'tenant=acme')).toBe(q0 - 1);
    expect(await n(`SELECT sum(canceled_total) AS n FROM partition_outcomes WHERE task = 'mail'`)).toBe(c0 + 1);
    const audit = await one<{ actor_label: string; target_id: string; before: unknown; after: unknown }>(
      `SELECT * FROM audit_log WHERE action = 'execution.cancel' AND target_id = $1`,
      [String(a)],
    );
    expect(audit).toMatchObject({ actor_label: 'ops@example.com', before: { state: 'queued' }, after: { state: 'canceled' } });
    // Again: nothing to cancel (409), nothing written.
    await expect(cancelExecution(db.pool, actor, a)).rejects.toMatchObject({ code: 'CONFLICT' });
    expect(await depth('mail')).toBe(d0 - 1);
    // The other one is untouched and claimable.
    expect(await stateOf(b)).toBe('queued');
  });

  it('a canceled stream head releases its stream at once: the next one is claimed', async () => {
    const r = await enqueue(db.pool, 'mail', [1, 2, 3].map((seq) => ({ payload: { s: 'order-7', seq } })));
    const [h, next, last] = r.executions.map((e) => e.id!) as [number, number, number];
    expect(r.executions.map((e) => e.state)).toEqual(['queued', 'blocked', 'blocked']);
    // Cancel a blocked one in the middle first: the head stays the head.
    expect((await cancelExecution(db.pool, actor, last)).prior).toBe('blocked');
    expect(await stateOf(h)).toBe('queued');
    expect(await stateOf(next)).toBe('blocked');
    // Drain what else is claimable, so the claim below can only find the stream's row.
    let claimed = await claimExecutions(db.pool, me, 'mail', 4, 60_000);
    await finishExecutions(db.pool, 'mail', claimed.filter((c) => c.id !== h).map((c) => ({ id: c.id, leaseToken: c.leaseToken, outcome: 'succeeded' as const })));
    const head = claimed.find((c) => c.id === h);
    if (head) {
      // The head was claimed: put it back as a scheduled retry so it is waiting again.
      await finishExecutions(db.pool, 'mail', [{ id: h, leaseToken: head.leaseToken, outcome: 'retry', runAt: new Date(Date.now() + 3_600_000), error: 'x' }]);
    }
    expect((await cancelExecution(db.pool, actor, h)).result).toBe('canceled');
    expect(await stateOf(next)).toBe('queued');
    claimed = await claimExecutions(db.pool, me, 'mail', 4, 60_000);
    expect(claimed.map((c) => c.id)).toContain(next);
    await finishExecutions(db.pool, 'mail', claimed.map((c) => ({ id: c.id, leaseToken: c.leaseToken, outcome: 'succeeded' as const })));
  });

  it('spilled: the overflow row becomes a canceled execution and the spilled counter falls', async () => {
    const r = await enqueue(db.pool, 'spilly', [1, 2, 3, 4].map((i) => ({ payload: { i } })));
    expect(r.executions.map((e) => e.state)).toEqual(['queued', 'queued', 'spilled', 'spilled']);
    const spilledId = r.executions[2]!.id!;
    const before = await one<{ depth: number; spilled: number }>(`SELECT depth, spilled FROM partition_stats WHERE task = 'spilly'`);
    expect(await cancelExecution(db.pool, actor, spilledId)).toMatchObject({ prior: 'spilled', result: 'canceled' });
    expect(await n('SELECT count(*) AS n FROM overflow WHERE id = $1', [spilledId])).toBe(0);
    expect(await stateOf(spilledId)).toBe('canceled');
    const after = await one<{ depth: number; spilled: number }>(`SELECT depth, spilled FROM partition_stats WHERE task = 'spilly'`);
    expect(after).toEqual({ depth: before.depth, spilled: before.spilled - 1 });
  });

  it('unknown ids are 404, hostile ids 400 naming the field, and nothing is written', async () => {
    const before = await n('SELECT count(*) AS n FROM audit_log');
    await expect(cancelExecution(db.pool, actor, 987654321)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    for (const bad of ['abc', -1, 0, 1.5, '1e3', '12\u0000', '\uD800', { id: 1 }, null, '9'.repeat(40)]) {
      const e = await cancelExecution(db.pool, actor, bad).catch((x: unknown) => x);
      expect(e, JSON.stringify(bad)).toMatchObject({ code: 'BAD_REQUEST' });
      const fe = (e as { fieldErrors?: { path: string; message: string }[] }).fieldErrors ?? [];
      expect(fe[0]?.message).toMatch(/execution id|too large/);
    }
    expect(await n('SELECT count(*) AS n FROM audit_log')).toBe(before);
  });
});

describe('retry now', () => {
  it('a scheduled execution becomes due at once and is claimed; a due one is a 409', async () => {
    const r = await enqueue(db.pool, 'mail', [{ payload: { tenant: 'later' }, delayMs: 3_600_000 }]);
    const id = r.executions[0]!.id!;
    expect((await claimExecutions(db.pool, me, 'mail', 4, 60_000)).map((c) => c.id)).not.toContain(id);
    const out = await retryExecutionNow(db.pool, actor, String(id));
    expect(out.runAt.getTime()).toBeLessThanOrEqual(Date.now() + 1000);
    expect(out.previousRunAt.getTime()).toBeGreaterThan(Date.now() + 3_000_000);
    expect(await audits('execution.retry_now')).toBe(1);
    const token = (await claimAll('mail', [id])).get(id)!;
    await finishExecutions(db.pool, 'mail', [{ id, leaseToken: token, outcome: 'succeeded' }]);
    await expect(retryExecutionNow(db.pool, actor, id)).rejects.toMatchObject({ code: 'CONFLICT' });
    const due = (await enqueue(db.pool, 'mail', [{ payload: { tenant: 'now' } }])).executions[0]!.id!;
    await expect(retryExecutionNow(db.pool, actor, due)).rejects.toMatchObject({ code: 'CONFLICT', message: expect.stringMatching(/already due/) });
    expect(await audits('execution.retry_now')).toBe(1);
  });
});

describe('sluice_finish with a cancel request', () => {
  it('a failure or release of a cancel-requested running row finishes it as canceled; succeeded stays; late finishes are fenced', async () => {
    const r = await enqueue(db.pool, 'mail', [{ payload: { tenant: 'f1' } }, { payload: { tenant: 'f2' } }, { payload: { tenant: 'f3' } }]);
    const ids = r.executions.map((e) => e.id!);
    const by = await claimAll('mail', ids);
    for (const id of ids) expect((await cancelExecution(db.pool, actor, id)).result).toBe('requested');
    // Still running (slots held) until the runner reports.
    for (const id of ids) expect(await stateOf(id)).toBe('running');
    await foldSlotDeltas(db.pool, 'mail');
    expect(await n(`SELECT in_flight AS n FROM group_slots WHERE task = 'mail' AND group_key = 'f1'`)).toBe(1);
    const applied = await finishExecutions(db.pool, 'mail', [
      { id: ids[0]!, leaseToken: by.get(ids[0]!)!, outcome: 'retry', runAt: new Date(), error: 'AbortError' },
      { id: ids[1]!, leaseToken: by.get(ids[1]!)!, outcome: 'release' },
      { id: ids[2]!, leaseToken: by.get(ids[2]!)!, outcome: 'succeeded' },
    ]);
    expect(Object.fromEntries(applied)).toEqual({ [ids[0]!]: 'canceled', [ids[1]!]: 'canceled', [ids[2]!]: 'succeeded' });
    expect([await stateOf(ids[0]!), await stateOf(ids[1]!), await stateOf(ids[2]!)]).toEqual(['canceled', 'canceled', 'succeeded']);
    await foldSlotDeltas(db.pool, 'mail');
    expect(await n(`SELECT coalesce(sum(in_flight), 0) AS n FROM group_slots WHERE task = 'mail' AND group_key IN ('f1', 'f2', 'f3')`)).toBe(0);
    expect(await n(`SELECT count(*) AS n FROM execution_attempts WHERE execution_id = ANY ($1)`, [ids])).toBe(0);
    // A late finish of a canceled row matches nothing.
    const late = await finishExecutions(db.pool, 'mail', [{ id: ids[0]!, leaseToken: by.get(ids[0]!)!, outcome: 'succeeded' }]);
    expect(late.size).toBe(0);
    expect(await stateOf(ids[0]!)).toBe('canceled');
  });
});

describe('cancel matching a filter', () => {
  it('cancels only the frozen set while new executions arrive; typed confirmation; once', async () => {
    await applyTasks(db.pool, [
      { name: 'mail', partitions: 2, concurrency: 4, groups: [{ name: 'tenant', limit: 2, keyPath: 'tenant' }], stream: { keyPath: 's' } },
      { name: 'spilly', partitions: 1, backpressure: { maxDepth: 2, policy: 'spill' } },
      { name: 'bulk', partitions: 4, paused: true, groups: [{ name: 'tenant', limit: 8, keyPath: 'tenant' }] },
    ]);
    await enqueue(db.pool, 'bulk', Array.from({ length: 50 }, (_, i) => ({ payload: { tenant: 'acme', i } })));
    await enqueue(db.pool, 'bulk', Array.from({ length: 20 }, (_, i) => ({ payload: { tenant: 'other', i } })));
    const p = await previewCancelMatching(db.pool, actor, { task: 'bulk', group: 'tenant=acme' });
    expect(p).toMatchObject({ task: 'bulk', total: 50, confirmation: 'cancel 50', byState: [{ state: 'queued', count: 50 }] });
    // New arrivals after the preview, matching the same filter.
    const late = await enqueue(db.pool, 'bulk', Array.from({ length: 30 }, (_, i) => ({ payload: { tenant: 'acme', late: i } })));
    expect(await depth('bulk')).toBe(100);
    // Wrong phrase: 400 on `confirm`, nothing changes.
    const wrong = await cancelMatching(db.pool, actor, { previewId: p.id, confirm: 'cancel 80' }).catch((e: unknown) => e);
    expect(wrong).toMatchObject({ code: 'BAD_REQUEST', fieldErrors: [{ path: 'confirm' }] });
    expect(await depth('bulk')).toBe(100);
    const out = await cancelMatching(db.pool, actor, { previewId: p.id, confirm: '  Cancel   50 ' });
    expect(out).toMatchObject({ frozen: 50, canceled: 50, requested: 0, skipped: 0 });
    expect(await depth('bulk')).toBe(50);
    expect(await queuedOf('bulk', 'tenant=acme')).toBe(30);
    expect(await queuedOf('bulk', 'tenant=other')).toBe(20);
    const lateIds = late.executions.map((e) => e.id!);
    expect(await n(`SELECT count(*) AS n FROM executions WHERE id = ANY ($1) AND state = 'queued'`, [lateIds])).toBe(30);
    expect(await n(`SELECT count(*) AS n FROM executions WHERE task = 'bulk' AND state = 'canceled'`)).toBe(50);
    // Once only, and the status says so.
    await expect(cancelMatching(db.pool, actor, { previewId: p.id, confirm: 'cancel 50' })).rejects.toMatchObject({ code: 'CONFLICT' });
    expect(await cancelPreviewStatus(db.pool, p.id)).toMatchObject({ appliedCount: 50, appliedByLabel: 'ops@example.com' });
    const audit = await one<{ meta: { task: string; filter: { group: string } }; after: unknown }>(`SELECT * FROM audit_log WHERE action = 'execution.cancel_matching'`);
    expect(audit.meta).toMatchObject({ task: 'bulk', filter: { group: 'tenant=acme' } });
    expect(audit.after).toEqual({ canceled: 50, requested: 0, skipped: 0 });
  });

  it('a dry run stores nothing; states narrow the set; hostile filters are 400 naming the field with nothing written', async () => {
    await enqueue(db.pool, 'bulk', [{ payload: { tenant: 'dry' }, delayMs: 3_600_000 }, { payload: { tenant: 'dry' } }]);
    const previews = () => n('SELECT count(*) AS n FROM execution_cancel_previews');
    const p0 = await previews();
    const dry = await previewCancelMatching(db.pool, actor, { task: 'bulk', group: 'tenant=dry', states: ['scheduled'] }, { dryRun: true });
    expect(dry).toMatchObject({ total: 1, byState: [{ state: 'scheduled', count: 1 }] });
    expect(await previews()).toBe(p0);
    const cases: [unknown, string][] = [
      [{}, 'task'],
      [{ task: 'Bad Task' }, 'task'],
      [{ task: 'bulk', states: ['dead'] }, 'states.0'],
      [{ task: 'bulk', states: [] }, 'states'],
      [{ task: 'bulk', states: ['queued', 'queued'] }, 'states'],
      [{ task: 'bulk', group: 'tenant' }, 'group'],
      [{ task: 'bulk', group: 'tenant=a\u0000b' }, 'group'],
      [{ task: 'bulk', stream: 'x\uDC00' }, 'stream'],
      [{ task: 'bulk', stream: 'x'.repeat(201) }, 'stream'],
      [{ task: 'bulk', from: 'yesterday' }, 'from'],
      [{ task: 'bulk', from: '2026-02-01T00:00:00Z', to: '2026-01-01T00:00:00Z' }, 'to'],
      [{ task: 'bulk', sneaky: 1 }, ''],
      ['not an object', ''],
    ];
    for (const [input, path] of cases) {
      const e = await previewCancelMatching(db.pool, actor, input as never).catch((x: unknown) => x);
      expect(e, JSON.stringify(input)).toMatchObject({ code: 'BAD_REQUEST' });
      const paths = ((e as { fieldErrors?: { path: string }[] }).fieldErrors ?? []).map((f) => f.path);
      expect(paths, JSON.stringify(input)).toContain(path);
    }
    for (const bad of [{ previewId: 'nope', confirm: 'x' }, { previewId: '00000000-0000-4000-8000-000000000000', confirm: 'x'.repeat(101) }, { previewId: '00000000-0000-4000-8000-000000000000', confirm: 'x', extra: 1 }]) {
      await expect(cancelMatching(db.pool, actor, bad as never)).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    }
    await expect(cancelMatching(db.pool, actor, { previewId: '00000000-0000-4000-8000-000000000000', confirm: 'cancel 0' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(await previews()).toBe(p0);
  });
  it('a filter means one set: the list and the cancel preview select the same executions (one WHERE)', async () => {
    await applyTasks(db.pool, [
      { name: 'mail', partitions: 2, concurrency: 4, groups: [{ name: 'tenant', limit: 2, keyPath: 'tenant' }], stream: { keyPath: 's' } },
      { name: 'spilly', partitions: 1, backpressure: { maxDepth: 2, policy: 'spill' } },
      { name: 'bulk', partitions: 4, paused: true, groups: [{ name: 'tenant', limit: 8, keyPath: 'tenant' }] },
      { name: 'agree', partitions: 2, concurrency: 3, groups: [{ name: 'tenant', limit: 10, keyPath: 'tenant' }], stream: { keyPath: 's' }, backpressure: { maxDepth: 8, policy: 'spill' } },
    ]);
    const claimer = await fakeCoordinator(db.pool, ['agree']);
    // Every waiting state, running and finished rows, over two tenants and two streams.
    await enqueue(db.pool, 'agree', Array.from({ length: 6 }, (_, i) => ({ payload: { tenant: i % 2 ? 'a' : 'b', i } })));
    const running = await claimExecutions(db.pool, claimer, 'agree', 3, 60_000);
    expect(running).toHaveLength(3);
    await finishExecutions(db.pool, 'agree', [{ id: running[0]!.id, leaseToken: running[0]!.leaseToken, outcome: 'succeeded' }]);
    await enqueue(db.pool, 'agree', [{ payload: { tenant: 'a', late: 1 }, delayMs: 3_600_000 }, { payload: { tenant: 'b', late: 2 }, delayMs: 3_600_000 }]);
    const streams = await enqueue(db.pool, 'agree', [
      ...Array.from({ length: 3 }, (_, i) => ({ payload: { tenant: 'a', s: 's1', i } })),
      ...Array.from({ length: 2 }, (_, i) => ({ payload: { tenant: 'b', s: 's2', i } })),
    ]);
    const from = (await one<{ at: Date }>('SELECT enqueued_at AS at FROM executions WHERE id = $1', [streams.executions[0]!.id])).at;
    await enqueue(db.pool, 'agree', Array.from({ length: 16 }, (_, i) => ({ payload: { tenant: i % 2 ? 'a' : 'b', spill: i } })));
    const states = await db.pool.query<{ st: string; n: number }>(
      `SELECT CASE WHEN state = 'queued' AND run_at > now() THEN 'scheduled' ELSE state END AS st, count(*)::int AS n FROM executions WHERE task = 'agree' GROUP BY 1
       UNION ALL SELECT 'spilled', count(*)::int FROM overflow WHERE task = 'agree'`,
    );
    const have = new Map(states.rows.map((r) => [r.st, r.n]));
    for (const st of [...CANCELABLE_STATES, 'succeeded']) expect(have.get(st) ?? 0, st).toBeGreaterThan(0);

    const narrowings: Partial<ExecutionFilterInput>[] = [{}, { group: 'tenant=a' }, { stream: 's1' }, { enqueuedFrom: from }, { group: 'tenant=b', enqueuedFrom: from }];
    let compared = 0;
    for (const narrow of narrowings) {
      for (const state of [undefined, ...CANCELABLE_STATES]) {
        const filter = executionFilterSchema.parse({ task: 'agree', ...narrow, ...(state ? { state } : {}) });
        const page = await listExecutionPage(db.pool, { filter, limit: 200 });
        expect(page.nextCursor).toBeNull();
        // A list filter without a state shows finished rows too; the cancel takes the backlog.
        const listed = page.items.filter((r) => state !== undefined || (DEFAULT_CANCEL_STATES as readonly string[]).includes(r.state)).map((r) => Number(r.id));
        const m = cancelFilterForListFilter(filter);
        if (!('filter' in m)) throw new Error(m.reason);
        const p = await previewCancelMatching(db.pool, actor, m.filter, { dryRun: false });
        const frozen = await db.pool.query<{ id: string }>('SELECT execution_id AS id FROM execution_cancel_preview_items WHERE preview_id = $1', [p.id]);
        const label = JSON.stringify({ narrow, state });
        expect(frozen.rows.map((r) => Number(r.id)).sort((a, b) => a - b), label).toEqual(listed.sort((a, b) => a - b));
        expect(p.total, label).toBe(listed.length);
        compared += listed.length;
      }
    }
    expect(compared).toBeGreaterThan(40);
  });
});
