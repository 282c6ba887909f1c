// Canceling with real coordinator processes (bin/sluice.js coordinator): a running
// execution's handler observes the abort, the execution is recorded canceled by its
// coordinator, and only then are its group slot and stream freed — nothing of its key or
// stream starts before its handler was aborted. Cancel by filter while a producer keeps
// enqueuing matching work changes exactly the frozen set.
import { describe, it, expect, beforeAll } from 'vitest';
import { applyTasks, sleep } from '../support/engine-fixtures';
import { coordinatorTestContext, waitFor } from '../support/coordinator-harness';
import { enqueue } from '../../server/services/enqueue';
import { cancelExecution } from '../../server/services/execution-actions';
import { cancelMatching, previewCancelMatching } from '../../server/services/execution-cancel-matching';
import type { Actor } from '../../server/db/audit';

const ctx = coordinatorTestContext();
const actor: Actor = { type: 'user', id: null, label: 'ops@example.com' };
const HANDLERS = 'test/support/handlers/cancel-observe.ts';

const q = async <T = Record<string, unknown>>(sql: string, params: unknown[] = []) => (await ctx.db.pool.query(sql, params)).rows as T[];
const stateOf = async (id: number) => (await q<{ state: string }>('SELECT state FROM executions WHERE id = $1', [id]))[0]?.state;
const eventsOf = (id: number) => q<{ kind: string; reason: string | null; at_ms: number }>('SELECT kind, reason, at_ms FROM test_cancel_events WHERE execution_id = $1 ORDER BY at_ms', [id]);

beforeAll(async () => {
  await ctx.db.pool.query('CREATE TABLE test_cancel_events (execution_id bigint NOT NULL, kind text NOT NULL, reason text, at_ms double precision NOT NULL)');
  await applyTasks(ctx.db.pool, [
    { name: 'slow', partitions: 2, concurrency: 4, timeoutMs: 120_000, groups: [{ name: 'tenant', limit: 1, keyPath: 't' }], stream: { keyPath: 's' } },
  ]);
  await ctx.h.start({ name: 'c1', handlers: HANDLERS, slots: 4 });
});

describe('cancel with coordinator processes', () => {
  it('a running execution: its handler observes the abort, it is recorded canceled, then its group slot and stream free', async () => {
    const r = await enqueue(ctx.db.pool, 'slow', [
      { payload: { t: 'acme', s: 'order-1', sleepMs: 120_000 } }, // the long head
      { payload: { t: 'acme', s: 'order-1', sleepMs: 50 } }, // behind it in the stream
      { payload: { t: 'acme', sleepMs: 50 } }, // behind it on tenant=acme (limit 1)
      { payload: { t: 'other', sleepMs: 50 } }, // unrelated: runs meanwhile
    ]);
    const [head, streamNext, sameKey, other] = r.executions.map((e) => e.id!) as [number, number, number, number];
    await waitFor('the head to start', async () => (await eventsOf(head)).some((e) => e.kind === 'start'));
    await waitFor('the unrelated one to finish', async () => (await stateOf(other)) === 'succeeded');
    // Held: the stream and the key are taken by the running head.
    await sleep(500);
    expect(await stateOf(streamNext)).toBe('blocked');
    expect(await stateOf(sameKey)).toBe('queued');
    expect(await eventsOf(sameKey)).toEqual([]);

    const out = await cancelExecution(ctx.db.pool, actor, head);
    expect(out).toMatchObject({ prior: 'running', result: 'requested' });
    await waitFor('the head to be recorded canceled', async () => (await stateOf(head)) === 'canceled', 10_000, 20);
    const row = (await q<{ finished_at: Date | null; attempts: number }>('SELECT finished_at, attempts FROM executions WHERE id = $1', [head]))[0]!;
    expect(row.finished_at).not.toBeNull();
    await waitFor('the handler to observe the abort', async () => (await eventsOf(head)).find((e) => e.kind === 'abort'));
    const abort = (await eventsOf(head)).find((e) => e.kind === 'abort')!;
    expect(abort.reason).toBe('CancelAbort');
    expect((await eventsOf(head)).some((e) => e.kind === 'done')).toBe(false);

    // Freed: the stream's next execution and the key's next one run, none before the abort.
    await waitFor('the stream and the key to move on', async () => (await stateOf(streamNext)) === 'succeeded' && (await stateOf(sameKey)) === 'succeeded', 15_000);
    for (const id of [streamNext, sameKey]) {
      const start = (await eventsOf(id)).find((e) => e.kind === 'start')!;
      expect(start.at_ms, `execution ${id} started before the head's handler was aborted`).toBeGreaterThanOrEqual(abort.at_ms);
    }
    // group_slots takes the members' logged moves when their folders run (slotFoldMs)
    await waitFor('the key\'s slot counter to be folded back to 0', async () =>
      (await q<{ in_flight: number }>(`SELECT in_flight FROM group_slots WHERE task = 'slow' AND group_key = 'acme'`))[0]!.in_flight === 0);
    const rt = await q<{ in_flight: number }>(`SELECT in_flight FROM task_counters WHERE task = 'slow'`);
    expect(rt[0]!.in_flight).toBe(0);
    expect((await q(`SELECT 1 FROM audit_log WHERE action = 'execution.cancel_request' AND target_id = $1`, [String(head)])).length).toBe(1);
    expect((await q(`SELECT 1 FROM execution_attempts WHERE execution_id = $1`, [head])).length).toBe(0);
  });

  it('cancel by filter while new matching executions arrive: exactly the frozen set is canceled', async () => {
    // tenant=hot is held by one long run, so its backlog stays queued under the coordinator.
    const blocker = (await enqueue(ctx.db.pool, 'slow', [{ payload: { t: 'hot', sleepMs: 120_000 } }])).executions[0]!.id!;
    await waitFor('the blocker to run', async () => (await stateOf(blocker)) === 'running');
    await enqueue(ctx.db.pool, 'slow', Array.from({ length: 40 }, (_, i) => ({ payload: { t: 'hot', i, sleepMs: 10 } })));
    const preview = await previewCancelMatching(ctx.db.pool, actor, { task: 'slow', group: 'tenant=hot' });
    expect(preview.total).toBe(40);
    const frozen = (await q<{ id: number }>('SELECT execution_id AS id FROM execution_cancel_preview_items WHERE preview_id = $1', [preview.id])).map((r) => r.id).sort((a, b) => a - b);

    // A producer keeps enqueuing matching work during the cancel.
    let producing = true;
    const arrived: number[] = [];
    const producer = (async () => {
      while (producing) {
        const r = await enqueue(ctx.db.pool, 'slow', Array.from({ length: 5 }, (_, i) => ({ payload: { t: 'hot', late: i, sleepMs: 10 } })));
        arrived.push(...r.executions.map((e) => e.id!));
        await sleep(5);
      }
    })();
    await sleep(50);
    const out = await cancelMatching(ctx.db.pool, actor, { previewId: preview.id, confirm: preview.confirmation });
    await sleep(50);
    producing = false;
    await producer;
    expect(arrived.length).toBeGreaterThan(0);
    expect(out).toMatchObject({ frozen: 40, canceled: 40, requested: 0, skipped: 0 });
    const canceled = (await q<{ id: number }>(`SELECT id FROM executions WHERE task = 'slow' AND state = 'canceled' AND group_keys @> ARRAY['tenant=hot']`)).map((r) => r.id).sort((a, b) => a - b);
    expect(canceled).toEqual(frozen);
    const lateStates = await q<{ state: string; n: number }>(`SELECT state, count(*)::int AS n FROM executions WHERE id = ANY ($1) GROUP BY state`, [arrived]);
    expect(lateStates.map((s) => s.state)).toEqual(['queued']);
    expect(lateStates[0]!.n).toBe(arrived.length);
    // The running blocker was not in the filter's states: still running.
    expect(await stateOf(blocker)).toBe('running');
    // Depth: exactly the late arrivals remain queued on this task.
    const depth = (await q<{ d: number }>(`SELECT sum(depth)::int AS d FROM partition_stats WHERE task = 'slow'`))[0]!.d;
    expect(depth).toBe(arrived.length);
    await cancelExecution(ctx.db.pool, actor, blocker);
    await waitFor('the blocker to be canceled', async () => (await stateOf(blocker)) === 'canceled', 10_000);
  });
});
