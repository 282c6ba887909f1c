// The dlq tRPC router: roles (viewer browses, operator replays and purges), the whole
// flow through the router as the browser drives it, and a property: any input to any
// dlq procedure is a success or a 4xx with a readable message, never a 500.
import { describe, it, expect, beforeAll } from 'vitest';
import fc from 'fast-check';
import { TRPCError } from '@trpc/server';
import { getHTTPStatusCodeFromError } from '@trpc/server/http';
import { testDatabase } from './db';
import { callerAs, trpcCode } from '../support/trpc-caller';
import { insertDeadLetters } from '../support/dead-letter-fixtures';
import { applyTasks } from '../support/engine-fixtures';
import { runReplayJobs } from '../../server/services/dead-letter-replay-runner';
import type { SessionUser } from '../../server/services/sessions';

const db = await testDatabase();
const viewer: SessionUser = { id: '00000000-0000-0000-0000-0000000000a1', email: 'viewer@example.com', role: 'viewer' };
const operator: SessionUser = { id: '00000000-0000-0000-0000-0000000000a2', email: 'op@example.com', role: 'operator' };

beforeAll(async () => {
  await applyTasks(db.pool, [{ name: 'billing', partitions: 1 }]);
  await insertDeadLetters(db.pool, Array.from({ length: 12 }, (_, i) => ({ task: 'billing', payload: { i }, fingerprint: i % 2 ? 'odd' : 'even' })));
});

const code = trpcCode;

describe('dlq router', () => {
  it('viewers browse but cannot replay or purge; anonymous callers cannot browse', async () => {
    const v = callerAs(db.pool, viewer);
    expect((await v.deadLetters.list({ filter: { task: 'billing' } })).items).toHaveLength(12);
    expect(await code(v.deadLetters.fingerprints({}))).toBe('OK');
    expect(await code(v.deadLetters.replay({ scope: { filter: {} } }))).toBe('FORBIDDEN');
    expect(await code(v.deadLetters.previewPurge({ scope: { filter: {} } }))).toBe('FORBIDDEN');
    expect(await code(v.deadLetters.purge({ previewId: '00000000-0000-0000-0000-000000000000', confirm: 'purge 1' }))).toBe('FORBIDDEN');
    expect(await code(v.deadLetters.controlReplay({ jobId: 1, action: 'cancel' }))).toBe('FORBIDDEN');
    expect(await code(callerAs(db.pool, null).deadLetters.list({}))).toBe('UNAUTHORIZED');
  });

  it('operators replay a selection and purge by filter, as the pages do', async () => {
    const op = callerAs(db.pool, operator);
    const page = await op.deadLetters.list({ filter: { fingerprint: 'odd' }, limit: 3 });
    expect(page.count).toBe(6);
    const r = await op.deadLetters.replay({ scope: { ids: page.items.map((x) => x.id) }, requestId: 'dialog-1', ratePerSecond: null });
    expect(r.total).toBe(3);
    await runReplayJobs(db.pool, { owner: 't', deadline: Date.now() + 10_000 });
    const job = await op.deadLetters.replayJob({ id: r.job!.id });
    expect(job).toMatchObject({ state: 'completed', replayed: 3, progress: 1 });
    const detail = await op.deadLetters.get({ id: page.items[0]!.id });
    expect(detail.replays[0]).toMatchObject({ byLabel: 'op@example.com', itemState: 'replayed', executionId: detail.replayExecutionId });

    const preview = await op.deadLetters.previewPurge({ scope: { filter: { fingerprint: 'even' } } });
    expect(preview.total).toBe(6);
    const wrong = await code(op.deadLetters.purge({ previewId: preview.id, confirm: 'yes' }));
    expect(wrong).toBe('BAD_REQUEST');
    const done = await op.deadLetters.purge({ previewId: preview.id, confirm: preview.confirmation });
    expect(done.deleted).toBe(6);
    const audit = await op.audit.list({ action: 'dlq.' });
    expect(audit.entries.map((e) => e.action).sort()).toEqual(['dlq.purge', 'dlq.purge.preview', 'dlq.replay']);
  });

  it('any input → success or a 4xx with a readable message', async () => {
    const op = callerAs(db.pool, operator);
    const anyInput = fc.anything({ withDate: true, withBigInt: true, withNullPrototype: true });
    const filter = fc.record(
      {
        task: fc.oneof(fc.string(), fc.constantFrom('billing', 'BAD')),
        fingerprint: fc.string(),
        group: fc.oneof(fc.string(), fc.constant('tenant=x')),
        stream: fc.string({ maxLength: 300 }),
        from: fc.oneof(fc.date(), fc.string()),
        to: fc.oneof(fc.date({ noInvalidDate: false }), fc.string()),
        q: fc.string({ maxLength: 300 }),
        status: fc.oneof(fc.constantFrom('all', 'pending', 'replayed'), fc.string()),
      },
      { requiredKeys: [] },
    );
    const num = fc.oneof(fc.integer(), fc.double(), fc.constant(Number.MAX_SAFE_INTEGER), fc.constant(2 ** 63));
    const check = async (p: Promise<unknown>) => {
      try {
        await p;
      } catch (e) {
        expect(e).toBeInstanceOf(TRPCError);
        const status = getHTTPStatusCodeFromError(e as TRPCError);
        if (status < 400 || status >= 500) throw new Error(`${(e as TRPCError).code}: ${(e as Error).message} (${String((e as Error).cause)})`);
      }
    };
    await fc.assert(
      fc.asyncProperty(fc.oneof(anyInput, fc.record({ filter, cursor: fc.string(), limit: num }, { requiredKeys: [] })), async (input) => {
        await check(op.deadLetters.list(input as never));
        await check(op.deadLetters.fingerprints(input as never));
      }),
      { numRuns: 80 },
    );
    await fc.assert(
      fc.asyncProperty(fc.oneof(anyInput, fc.record({ id: num })), async (input) => {
        await check(op.deadLetters.get(input as never));
        await check(op.deadLetters.replayJob(input as never));
      }),
      { numRuns: 40 },
    );
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(anyInput, fc.record({ scope: fc.oneof(fc.record({ ids: fc.array(num, { maxLength: 5 }) }), fc.record({ filter })), ratePerSecond: fc.oneof(num, fc.constant(null)), resetAttempts: fc.anything(), requestId: fc.string(), dryRun: fc.constant(true) }, { requiredKeys: ['scope', 'dryRun'] })),
        async (input) => {
          await check(op.deadLetters.replay(input as never));
        },
      ),
      { numRuns: 60 },
    );
    await fc.assert(
      fc.asyncProperty(fc.oneof(anyInput, fc.record({ previewId: fc.oneof(fc.uuid(), fc.string()), confirm: fc.string() }), fc.record({ jobId: num, action: fc.string() })), async (input) => {
        await check(op.deadLetters.purge(input as never));
        await check(op.deadLetters.controlReplay(input as never));
      }),
      { numRuns: 40 },
    );
    // The console's frozen replay: its preview, its confirmation and the job's executions.
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          anyInput,
          fc.record({ scope: fc.oneof(fc.record({ ids: fc.array(num, { maxLength: 5 }) }), fc.record({ filter })) }),
          fc.record({ previewId: fc.oneof(fc.uuid(), fc.string()), ratePerSecond: fc.oneof(num, fc.constant(null)), resetAttempts: fc.anything(), requestId: fc.string() }, { requiredKeys: ['previewId'] }),
          fc.record({ jobId: num, after: num, limit: num }, { requiredKeys: ['jobId'] }),
        ),
        async (input) => {
          await check(op.deadLetters.previewReplay(input as never));
          await check(op.deadLetters.replayPreview(input as never));
          await check(op.deadLetters.replayExecutions(input as never));
        },
      ),
      { numRuns: 60 },
    );
  });
});
