// Per-task revert: one task's definition comes back from an older version as a new
// version, through the same preview (diff) and apply as other edits, while other tasks'
// later edits stay; pause / resume audited with the field that changed and the version.
import { describe, it, expect } from 'vitest';
import { testDatabase } from './db';
import { applyConfig, currentConfig } from '../../server/services/config-versions';
import { previewRollback, rollbackConfig, rollbackInput, setTaskPaused } from '../../server/services/task-config';
import { findTask } from '../../server/core/config-edits';
import type { Actor } from '../../server/db/audit';

const db = await testDatabase();
const alice: Actor = { type: 'user', id: '00000000-0000-4000-8000-00000000000a', label: 'alice@example.com' };

async function edit(name: string, concurrency: number, msg: string) {
  const cur = await currentConfig(db.pool);
  const tasks = cur.config.tasks.map((t) => (t.name === name ? { ...t, concurrency } : t));
  return (await applyConfig(db.pool, alice, { ...cur.config, tasks }, { message: msg, basedOn: cur.version })).version;
}

describe('per-task revert', () => {
  it('restores one task from an older version and leaves another task’s later edit in place', async () => {
    const v1 = (await applyConfig(db.pool, alice, { tasks: [{ name: 'mail', concurrency: 5 }, { name: 'bill', concurrency: 7 }] }, { message: 'start' })).version;
    await edit('mail', 50, 'mail too fast');
    const v3 = await edit('bill', 9, 'bill a bit more');

    const preview = await previewRollback(db.pool, { to: v1, basedOn: v3, task: 'mail' });
    expect(preview.changes.map((g) => g.task)).toEqual(['mail']);
    const r = await rollbackConfig(db.pool, alice, rollbackInput.parse({ to: v1, basedOn: v3, task: 'mail' }));
    expect(r.version).toBe(v3 + 1);
    const cur = await currentConfig(db.pool);
    expect(findTask(cur.config, 'mail')!.concurrency).toBe(5);
    expect(findTask(cur.config, 'bill')!.concurrency).toBe(9); // bill's later edit kept

    const row = await db.pool.query(`SELECT message FROM config_versions WHERE version = $1`, [r.version]);
    expect(row.rows[0].message).toBe(`Revert mail to version ${v1}`);
    const audit = await db.pool.query(`SELECT action, target_id, meta FROM audit_log WHERE action IN ('config.apply', 'task.revert') ORDER BY id DESC LIMIT 2`);
    expect(audit.rows.map((a) => a.action).sort()).toEqual(['config.apply', 'task.revert']);
    const rev = audit.rows.find((a) => a.action === 'task.revert')!;
    expect(rev).toMatchObject({ target_id: 'mail', meta: { version: r.version, revertedTo: v1 } });

    // Nothing left to revert, a stale base, a task that did not exist then: refused, nothing written.
    await expect(rollbackConfig(db.pool, alice, rollbackInput.parse({ to: v1, basedOn: r.version, task: 'mail' }))).rejects.toMatchObject({ code: 'PRECONDITION_FAILED' });
    await expect(rollbackConfig(db.pool, alice, rollbackInput.parse({ to: v1, basedOn: v3, task: 'mail' }))).rejects.toMatchObject({ code: 'CONFLICT' });
    const cur2 = await currentConfig(db.pool);
    await applyConfig(db.pool, alice, { tasks: [...cur2.config.tasks, { name: 'late', concurrency: 1 }] }, { message: 'add late', basedOn: cur2.version });
    const latest = (await currentConfig(db.pool)).version;
    await expect(rollbackConfig(db.pool, alice, rollbackInput.parse({ to: v1, basedOn: latest, task: 'late' }))).rejects.toMatchObject({
      code: 'PRECONDITION_FAILED',
      fieldErrors: [{ path: 'task' }],
    });
    expect((await currentConfig(db.pool)).version).toBe(latest);
    expect(() => rollbackInput.parse({ to: v1, basedOn: latest, task: 'Not A Name!' })).toThrow();
  });

  it('a task deleted since comes back', async () => {
    const cur = await currentConfig(db.pool);
    const withMail = cur.version;
    await applyConfig(db.pool, alice, { tasks: cur.config.tasks.filter((t) => t.name !== 'mail') }, { message: 'drop mail', basedOn: cur.version });
    const latest = (await currentConfig(db.pool)).version;
    await rollbackConfig(db.pool, alice, rollbackInput.parse({ to: withMail, basedOn: latest, task: 'mail' }));
    expect(findTask((await currentConfig(db.pool)).config, 'mail')).toBeDefined();
  });

  it('pause and resume are audited with the field diff and the version they made', async () => {
    const p = await setTaskPaused(db.pool, alice, { task: 'bill', paused: true });
    const r = await setTaskPaused(db.pool, alice, { task: 'bill', paused: false });
    const audit = await db.pool.query(`SELECT action, target_type, target_id, before, after, meta FROM audit_log WHERE action IN ('task.pause', 'task.resume') ORDER BY id`);
    expect(audit.rows).toEqual([
      { action: 'task.pause', target_type: 'task', target_id: 'bill', before: { paused: false }, after: { paused: true }, meta: { version: p.version, basedOn: p.version - 1 } },
      { action: 'task.resume', target_type: 'task', target_id: 'bill', before: { paused: true }, after: { paused: false }, meta: { version: r.version, basedOn: r.version - 1 } },
    ]);
  });
});
