// The marks on a task's charts: config versions that changed the task (a pause and a
// resume named as such), a version that changed only another task left out, and DLQ
// replays and purges whose frozen set held the task's dead letters — through the real
// services, read back by the Overview presenter.
import { describe, it, expect, beforeAll } from 'vitest';
import { testDatabase, type TestDatabase } from './db';
import { applyTasks } from '../support/engine-fixtures';
import { insertDeadLetters } from '../support/dead-letter-fixtures';
import { setTaskPaused } from '../../server/services/task-config';
import { createReplayJob } from '../../server/services/dead-letter-replay';
import { previewPurge, purgeDeadLetters } from '../../server/services/dead-letter-purge';
import { readChartMarkers } from '../../server/db/read-chart-markers';
import { getOverview } from '../../server/presenters/overview';
import type { Actor } from '../../server/db/audit';

const alice: Actor = { type: 'user', id: '00000000-0000-0000-0000-00000000000a', label: 'alice@example.com' };
let db: TestDatabase;
let start: Date;

beforeAll(async () => {
  db = await testDatabase();
  start = new Date(Date.now() - 1000);
  await applyTasks(db.pool, [{ name: 'alpha', partitions: 2 }, { name: 'beta', partitions: 2 }], 'first'); // v1: both created
  await applyTasks(db.pool, [{ name: 'alpha', partitions: 2 }, { name: 'beta', partitions: 2, concurrency: 7 }], 'beta only'); // v2
  await setTaskPaused(db.pool, alice, { task: 'alpha', paused: true }); // v3
  await setTaskPaused(db.pool, alice, { task: 'alpha', paused: false }); // v4
  await insertDeadLetters(db.pool, [
    { task: 'alpha', payload: { i: 1 }, fingerprint: 'aa' },
    { task: 'alpha', payload: { i: 2 }, fingerprint: 'aa' },
    { task: 'beta', payload: { i: 3 }, fingerprint: 'bb' },
  ]);
  await createReplayJob(db.pool, alice, { scope: { filter: { task: 'alpha', fingerprint: 'aa' } }, requestId: 'markers-1' });
  const p = await previewPurge(db.pool, alice, { filter: { task: 'beta' } });
  await purgeDeadLetters(db.pool, alice, { previewId: p.id, confirm: `purge ${p.total}` });
});

describe('chart markers', () => {
  it("marks the versions that changed a task, its pause and resume, and replays of its dead letters", async () => {
    const m = await readChartMarkers(db.pool, 'alpha', start, new Date());
    expect(m.map((x) => [x.kind, x.ref === undefined ? null : x.kind === 'replay' ? 'job' : x.ref])).toEqual([
      ['config', '1'],
      ['pause', '3'],
      ['resume', '4'],
      ['replay', 'job'],
    ]);
    const replay = m.find((x) => x.kind === 'replay')!;
    expect(replay.count).toBe(2);
    expect(replay.actor).toBe('alice@example.com');
    const audit = await db.pool.query(`SELECT target_id FROM audit_log WHERE action = 'dlq.replay'`);
    expect(replay.ref).toBe(audit.rows[0].target_id);
  });

  it("another task's marks: its own edit and the purge of its dead letters, not alpha's pause", async () => {
    const m = await readChartMarkers(db.pool, 'beta', start, new Date());
    expect(m.map((x) => x.kind)).toEqual(['config', 'config', 'purge']);
    expect(m.map((x) => x.ref).slice(0, 2)).toEqual(['1', '2']);
    expect(m[2]!.count).toBe(1);
  });

  it('only inside the window', async () => {
    expect(await readChartMarkers(db.pool, 'alpha', new Date(Date.now() + 60_000), new Date(Date.now() + 120_000))).toEqual([]);
  });

  it('the Overview charts carry them, each linking to its version or job', async () => {
    const o = await getOverview(db.pool, { range: '1h', task: 'alpha' });
    const marks = o.charts!.markers;
    expect(marks.map((x) => x.kind)).toEqual(['config', 'pause', 'resume', 'replay']);
    expect(marks[1]).toMatchObject({ label: 'v3 · Pause alpha', by: 'alice@example.com', href: '/config/history?before=4' });
    expect(marks[3]!.href).toMatch(/^\/audit\?targetType=dlq_replay_job&targetId=\d+$/);
  });
});
