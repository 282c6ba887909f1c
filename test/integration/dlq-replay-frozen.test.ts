// The console's replay is frozen at confirmation like the purge: the preview freezes the
// dead letters not yet replayed, the job replays exactly those (new arrivals in between are
// left alone), a preview is used once and never purged; and each job reports what became
// of its new executions (succeeded / failed again / still running), each one listed.
import { describe, it, expect, beforeAll } from 'vitest';
import { testDatabase } from './db';
import { applyTasks, fakeCoordinator } from '../support/engine-fixtures';
import { insertDeadLetters } from '../support/dead-letter-fixtures';
import { claimExecutions } from '../../server/db/claim-executions';
import { finishExecutions } from '../../server/db/finish-executions';
import { previewReplay, replayPreview } from '../../server/services/dead-letter-replay';
import { purgeDeadLetters } from '../../server/services/dead-letter-purge';
import { runReplayJobs } from '../../server/services/dead-letter-replay-runner';
import { replayExecutions, replayJob } from '../../server/presenters/dead-letters';
import type { Actor } from '../../server/db/audit';

const db = await testDatabase();
const alice: Actor = { type: 'user', id: '00000000-0000-0000-0000-00000000000a', label: 'alice@example.com' };
const run = () => runReplayJobs(db.pool, { owner: 'runner-frozen', deadline: Date.now() + 60_000 });
const seeds = (task: string, n: number, tag: string) => Array.from({ length: n }, (_, i) => ({ task, payload: { i, tag }, fingerprint: 'ff' }));

beforeAll(async () => {
  await applyTasks(db.pool, [
    { name: 'frozen', partitions: 1, concurrency: 50, backpressure: { maxDepth: 100_000 } },
    { name: 'outcomes', partitions: 1, concurrency: 50, retry: { maxAttempts: 1 }, backpressure: { maxDepth: 100_000 } },
  ]);
});

describe('replay frozen at confirmation', () => {
  it('replays the 29 previewed, not the 5 that arrived after the preview; the preview is used once and cannot be purged', async () => {
    const first = await insertDeadLetters(db.pool, seeds('frozen', 29, 'before'));
    const preview = await previewReplay(db.pool, alice, { filter: { task: 'frozen' } });
    expect(preview.total).toBe(29);
    expect(preview.confirmation).toBe('replay 29');
    const late = await insertDeadLetters(db.pool, seeds('frozen', 5, 'after'));

    const created = await replayPreview(db.pool, alice, { previewId: preview.id, requestId: 'frozen-click-1' });
    expect(created.total).toBe(29);
    await run();
    const job = await replayJob(db.pool, { id: created.job!.id });
    expect(job).toMatchObject({ state: 'completed', total: 29, replayed: 29 });

    const replayed = await db.pool.query<{ id: number }>(`SELECT id FROM dead_letters WHERE task = 'frozen' AND replayed_at IS NOT NULL ORDER BY id`);
    expect(replayed.rows.map((r) => Number(r.id))).toEqual(first.map((d) => d.id));
    const untouched = await db.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM dead_letters WHERE id = ANY ($1) AND replayed_at IS NULL`, [late.map((d) => d.id)]);
    expect(untouched.rows[0]!.n).toBe(5);

    // The same click again returns the same job; another click on the used preview is refused.
    const again = await replayPreview(db.pool, alice, { previewId: preview.id, requestId: 'frozen-click-1' });
    expect(again).toMatchObject({ existing: true, job: { id: created.job!.id } });
    await expect(replayPreview(db.pool, alice, { previewId: preview.id, requestId: 'frozen-click-2' })).rejects.toThrow(/already replayed by alice@example.com/);
    // A replay preview is not a purge preview.
    await expect(purgeDeadLetters(db.pool, alice, { previewId: preview.id, confirm: 'purge 29' })).rejects.toThrow(/not found/);
    expect((await db.pool.query(`SELECT count(*)::int AS n FROM dead_letters WHERE task = 'frozen'`)).rows[0].n).toBe(34);

    const audit = await db.pool.query<{ action: string; meta: Record<string, unknown> }>(
      `SELECT action, meta FROM audit_log WHERE action IN ('dlq.replay.preview', 'dlq.replay') AND (target_id = $1 OR target_id = $2) ORDER BY id`,
      [preview.id, String(created.job!.id)],
    );
    expect(audit.rows.map((r) => r.action)).toEqual(['dlq.replay.preview', 'dlq.replay']);
    expect(audit.rows[1]!.meta).toMatchObject({ previewId: preview.id, frozen: 29, total: 29 });
  });

  it('freezes only dead letters not replayed yet, and refuses an expired preview', async () => {
    await insertDeadLetters(db.pool, seeds('frozen', 3, 'third'));
    const preview = await previewReplay(db.pool, alice, { filter: { task: 'frozen' } });
    expect(preview.total).toBe(8); // the 5 late ones + 3 new; the 29 replayed are left out
    await db.pool.query(`UPDATE dlq_purge_previews SET expires_at = now() - interval '1 second' WHERE id = $1`, [preview.id]);
    await expect(replayPreview(db.pool, alice, { previewId: preview.id })).rejects.toThrow(/expired/);
    await expect(replayPreview(db.pool, alice, { previewId: 'not-a-uuid' })).rejects.toMatchObject({ code: 'BAD_REQUEST', fieldErrors: [{ path: 'previewId' }] });
  });
});

describe('replay outcomes', () => {
  it('counts succeeded / failed again / still running of the new executions and lists each one', async () => {
    await insertDeadLetters(db.pool, seeds('outcomes', 6, 'o'));
    const preview = await previewReplay(db.pool, alice, { filter: { task: 'outcomes' } });
    const { job } = await replayPreview(db.pool, alice, { previewId: preview.id });
    await run();
    const before = await replayJob(db.pool, { id: job!.id });
    expect(before.outcomes).toMatchObject({ succeeded: 0, failedAgain: 0, running: 6, checked: 6, capped: false });

    const coord = await fakeCoordinator(db.pool, ['outcomes']);
    const claimed = await claimExecutions(db.pool, coord, 'outcomes', 5, 30_000);
    expect(claimed).toHaveLength(5);
    const [a, b, c, d] = claimed;
    await finishExecutions(db.pool, 'outcomes', [
      { id: a!.id, leaseToken: a!.leaseToken, outcome: 'succeeded' },
      { id: b!.id, leaseToken: b!.leaseToken, outcome: 'succeeded' },
      { id: c!.id, leaseToken: c!.leaseToken, outcome: 'succeeded' },
      { id: d!.id, leaseToken: d!.leaseToken, outcome: 'dead', error: 'Error: still broken', fingerprint: 'gg' },
    ]);
    const after = await replayJob(db.pool, { id: job!.id });
    // 3 succeeded, 1 dead again, 1 claimed (running) + 1 still queued.
    expect(after.outcomes).toMatchObject({ succeeded: 3, failedAgain: 1, canceled: 0, running: 2, removed: 0, checked: 6 });

    // A finished execution deleted by retention: known as failed again while its dead letter exists.
    await db.pool.query(`DELETE FROM executions WHERE id = $1`, [d!.id]);
    expect((await replayJob(db.pool, { id: job!.id })).outcomes.failedAgain).toBe(1);

    const page1 = await replayExecutions(db.pool, { jobId: job!.id, limit: 4 });
    expect(page1.items).toHaveLength(4);
    expect(page1.next).not.toBeNull();
    const page2 = await replayExecutions(db.pool, { jobId: job!.id, limit: 4, after: page1.next! });
    const all = [...page1.items, ...page2.items];
    expect(all).toHaveLength(6);
    const ids = await db.pool.query<{ id: number }>(`SELECT execution_id::float8 AS id FROM dlq_replay_items WHERE job_id = $1`, [job!.id]);
    expect(new Set(all.map((x) => x.executionId))).toEqual(new Set(ids.rows.map((r) => r.id)));
    const byExec = new Map(all.map((x) => [x.executionId, x]));
    expect(byExec.get(a!.id)).toMatchObject({ outcome: 'succeeded', state: 'succeeded' });
    expect(byExec.get(d!.id)).toMatchObject({ outcome: 'failedAgain', state: null });
    expect(all.filter((x) => x.outcome === 'running')).toHaveLength(2);
  });
});
