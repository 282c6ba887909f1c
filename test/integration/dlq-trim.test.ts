// The DLQ limits: beyond a task's dlq.retentionDays and dlq.maxDepth the oldest dead
// letters are deleted by the trim service, counted, recorded in dlq_events and audited;
// dead letters arriving during a trim stay.
import { describe, it, expect, beforeAll } from 'vitest';
import { testDatabase } from './db';
import { applyTasks } from '../support/engine-fixtures';
import { insertDeadLetters } from '../support/dead-letter-fixtures';
import { trimDeadLetters, TRIM_BATCH } from '../../server/services/dead-letter-trim';
import { runServiceOnce } from '../../server/db/maintenance-runner';
import { trimDeadLettersService } from '../../server/control-plane/services/trim-dead-letters';

const db = await testDatabase();
const day = 86_400_000;

beforeAll(async () => {
  await applyTasks(db.pool, [
    { name: 'short', dlq: { maxDepth: 100_000, retentionDays: 3 } },
    { name: 'shallow', dlq: { maxDepth: 50, retentionDays: 30 } },
    { name: 'roomy', dlq: { maxDepth: 100_000, retentionDays: 30 } },
  ]);
});

const ids = async (task: string) =>
  (await db.pool.query<{ id: number }>(`SELECT id FROM dead_letters WHERE task = $1 ORDER BY dead_at, id`, [task])).rows.map((r) => r.id);

describe('DLQ trim', () => {
  it('removes dead letters older than retentionDays, and only those', async () => {
    const now = Date.now();
    const old = await insertDeadLetters(db.pool, Array.from({ length: 7 }, (_, i) => ({ task: 'short', deadAt: new Date(now - 4 * day - i * 1000) })));
    const fresh = await insertDeadLetters(db.pool, Array.from({ length: 5 }, (_, i) => ({ task: 'short', deadAt: new Date(now - 2 * day - i * 1000) })));
    await insertDeadLetters(db.pool, Array.from({ length: 4 }, () => ({ task: 'roomy', deadAt: new Date(now - 10 * day) })));
    const s = await trimDeadLetters(db.pool);
    expect(s.events).toEqual([{ task: 'short', kind: 'retention', removed: 7, limit: 3 }]);
    expect(await ids('short')).toEqual(fresh.map((r) => r.id).sort((a, b) => b - a));
    expect((await ids('roomy')).length).toBe(4);
    void old;
    const ev = await db.pool.query(`SELECT task, kind, removed, limit_value FROM dlq_events`);
    expect(ev.rows).toEqual([{ task: 'short', kind: 'retention', removed: 7, limit_value: 3 }]);
    const audit = await db.pool.query(`SELECT actor_type, action, target_id, meta FROM audit_log WHERE action = 'dlq.trim'`);
    expect(audit.rows).toMatchObject([{ actor_type: 'system', target_id: 'short', meta: { kind: 'retention', removed: 7, limit: 3 } }]);
    // nothing left to do: a second run records nothing
    expect((await trimDeadLetters(db.pool)).events).toEqual([]);
  });

  it('keeps the newest maxDepth, removing the oldest beyond it across batches, while new ones arrive', async () => {
    const now = Date.now();
    const n = TRIM_BATCH * 2 + 123; // several delete batches
    await db.pool.query(
      `INSERT INTO dead_letters (execution_id, task, payload, partition, attempts, last_error, fingerprint, enqueued_at, dead_at)
       SELECT nextval('executions_id_seq'), 'shallow', '{}', 0, 3, 'Error: x', 'ff', $1::timestamptz - make_interval(secs => g), $1::timestamptz - make_interval(secs => g)
         FROM generate_series(1, $2) g`,
      [new Date(now - 60_000), n],
    );
    const keep = (await ids('shallow')).slice(-50);
    let arriving = true;
    const arrived: number[] = [];
    const producer = (async () => {
      while (arriving) {
        arrived.push(...(await insertDeadLetters(db.pool, [{ task: 'shallow' }])).map((r) => r.id));
        await new Promise((r) => setTimeout(r, 5));
      }
    })();
    const s = await trimDeadLetters(db.pool);
    arriving = false;
    await producer;
    const ev = s.events.find((e) => e.task === 'shallow')!;
    expect(ev.kind).toBe('max_depth');
    // everything beyond the 50 newest at the time of the boundary went; later arrivals stayed
    const left = await ids('shallow');
    for (const id of arrived) expect(left).toContain(id);
    expect(left.filter((id) => !arrived.includes(id))).toEqual(keep.slice(keep.length - (left.length - arrived.length)));
    expect(ev.removed + left.length - arrived.length).toBe(n);
    expect(left.length - arrived.length).toBeLessThanOrEqual(50);
    const rec = await db.pool.query(`SELECT removed, limit_value FROM dlq_events WHERE task = 'shallow'`);
    expect(rec.rows).toEqual([{ removed: ev.removed, limit_value: 50 }]);
  });

  it('runs as the control-plane service trim-dead-letters', async () => {
    await insertDeadLetters(db.pool, [{ task: 'short', deadAt: new Date(Date.now() - 5 * day) }]);
    const r = await runServiceOnce(db.pool, trimDeadLettersService, { intervalMs: 0, namespace: 'cp:' }, { log: () => {} });
    expect(r.ran).toBe(true);
    // (the previous test's late arrivals put 'shallow' over its depth again: trimmed too)
    expect((r.result as { events: unknown[] }).events).toContainEqual({ task: 'short', kind: 'retention', removed: 1, limit: 3 });
    const run = await db.pool.query(`SELECT runs, last_error FROM maintenance_runs WHERE name = 'cp:trim-dead-letters'`);
    expect(run.rows).toEqual([{ runs: 1, last_error: null }]);
  });
});
