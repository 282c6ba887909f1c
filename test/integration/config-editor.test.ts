// The task editor's operations on a real database: every change is a new version with
// its audit row and NOTIFY; stale edits are refused (also when two race); rollback adds
// a version and rewrites nothing; delete refuses a busy task unless drained, and a drain
// moves the backlog to the dead-letter queue; history and export read it all back.
import { describe, it, expect, beforeAll } from 'vitest';
import pg from 'pg';
import { parse } from 'yaml';
import { testDatabase, type TestDatabase } from './db';
import { applyTasks, fakeCoordinator } from '../support/engine-fixtures';
import { enqueue } from '../../server/services/enqueue';
import { claimExecutions } from '../../server/db/claim-executions';
import { currentConfig, applyConfig } from '../../server/services/config-versions';
import {
  deleteTask,
  previewRollback,
  previewTaskSave,
  rollbackConfig,
  saveTask,
  setTaskPaused,
} from '../../server/services/task-config';
import { listConfigHistory, exportConfigYaml, getConfigVersionView } from '../../server/presenters/config-history';
import { getTask, listTasks } from '../../server/presenters/tasks';
import { configsEqual } from '../../server/core/config-diff';
import { findTask } from '../../server/core/config-edits';
import { isCoreError } from '../../server/core/errors';
import type { Actor } from '../../server/db/audit';
import { foldSlotDeltas } from '../../server/db/fold-slot-deltas';

const alice: Actor = { type: 'user', id: '00000000-0000-4000-8000-00000000000a', label: 'alice@example.com' };
const bob: Actor = { type: 'user', id: '00000000-0000-4000-8000-00000000000b', label: 'bob@example.com' };

async function failure(p: Promise<unknown>): Promise<{ code: string; message: string; fieldErrors?: unknown }> {
  try {
    await p;
  } catch (e) {
    if (isCoreError(e)) return { code: e.code, message: e.message, fieldErrors: e.fieldErrors };
    throw e;
  }
  throw new Error('expected a CoreError, got success');
}

const versionCount = async (pool: pg.Pool) => (await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM config_versions')).rows[0]!.n;

const emailTask = (limit: number) => ({
  name: 'send-email',
  concurrency: 50,
  groups: [{ name: 'tenant', limit, keyPath: 'tenant', overrides: { acme: 40 } }],
});

describe('save, preview, optimistic concurrency', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await testDatabase();
  });

  it('creates a task as version 1: audit row, NOTIFY and runtime row in the same commit', async () => {
    const listener = new pg.Client({ connectionString: db.url });
    await listener.connect();
    const notes: string[] = [];
    listener.on('notification', (n) => notes.push(n.payload ?? ''));
    await listener.query('LISTEN sluice_config');
    try {
      const r = await saveTask(db.pool, alice, { mode: 'create', task: emailTask(20), basedOn: null, message: 'add send-email' });
      expect(r.version).toBe(1);
      expect(r.changes).toHaveLength(1);
      expect(r.changes[0]).toMatchObject({ task: 'send-email', kind: 'task-added' });
      const v = await db.pool.query('SELECT author, author_type, author_id, message FROM config_versions WHERE version = 1');
      expect(v.rows[0]).toEqual({ author: 'alice@example.com', author_type: 'user', author_id: alice.id, message: 'add send-email' });
      const audit = await db.pool.query(`SELECT actor_label, action, target_id FROM audit_log WHERE action = 'config.apply'`);
      expect(audit.rows).toEqual([{ actor_label: 'alice@example.com', action: 'config.apply', target_id: '1' }]);
      const rt = await db.pool.query(`SELECT groups, config_version FROM task_runtime WHERE task = 'send-email'`);
      expect(rt.rows[0]).toEqual({ groups: { tenant: { limit: 20, overrides: { acme: 40 } } }, config_version: 1 });
      await expect.poll(() => notes).toEqual(['1']);
    } finally {
      await listener.end();
    }
  });

  it('preview shows the diff and writes nothing', async () => {
    const before = await versionCount(db.pool);
    const p = await previewTaskSave(db.pool, { mode: 'update', task: emailTask(5), basedOn: 1 });
    expect(p).toEqual({
      basedOn: 1,
      changes: [
        {
          task: 'send-email',
          kind: 'changed',
          rows: [{ path: 'groups.tenant.limit', label: 'Group "tenant" › limit', kind: 'changed', before: '20', after: '5' }],
        },
      ],
    });
    expect(await versionCount(db.pool)).toBe(before);
  });

  it('validation errors come back field by field, relative to the task', async () => {
    const f = await failure(
      saveTask(db.pool, alice, {
        mode: 'update',
        task: { ...emailTask(0), concurrency: 0, thresholds: { depth: { warning: 10, critical: 5 } }, routing: { strategy: 'hash' } },
        basedOn: 1,
        message: 'broken',
      }),
    );
    expect(f.code).toBe('BAD_REQUEST');
    expect(f.fieldErrors).toEqual(
      expect.arrayContaining([
        { path: 'concurrency', message: 'must be at least 1' },
        { path: 'groups.0.limit', message: 'must be at least 1' },
        { path: 'thresholds.depth.warning', message: 'warning must be below critical' },
        { path: 'routing.keyPath', message: 'hash routing needs a key path' },
      ]),
    );
    expect(await versionCount(db.pool)).toBe(1);
  });

  it('an edit based on a stale version is refused with a clear message and nothing is lost', async () => {
    const v2 = await saveTask(db.pool, bob, { mode: 'update', task: emailTask(10), basedOn: 1, message: 'bob: tenant 10' });
    expect(v2.version).toBe(2);
    const f = await failure(saveTask(db.pool, alice, { mode: 'update', task: emailTask(5), basedOn: 1, message: 'alice: tenant 5' }));
    expect(f).toMatchObject({ code: 'CONFLICT', message: 'config changed since version 1: the latest is version 2; reload and re-apply your change' });
    const cur = await currentConfig(db.pool);
    expect(cur.version).toBe(2);
    expect(findTask(cur.config, 'send-email')?.groups[0]?.limit).toBe(10);
  });

  it('two editors racing on the same version: exactly one wins, the other gets CONFLICT', async () => {
    const results = await Promise.allSettled([
      saveTask(db.pool, alice, { mode: 'update', task: emailTask(7), basedOn: 2, message: 'alice' }),
      saveTask(db.pool, bob, { mode: 'update', task: emailTask(8), basedOn: 2, message: 'bob' }),
      saveTask(db.pool, bob, { mode: 'update', task: { ...emailTask(9), concurrency: 9 }, basedOn: 2, message: 'bob again' }),
    ]);
    const ok = results.filter((r) => r.status === 'fulfilled');
    const refused = results.filter((r) => r.status === 'rejected').map((r) => (r as PromiseRejectedResult).reason);
    expect(ok).toHaveLength(1);
    expect(refused.every((e) => isCoreError(e) && e.code === 'CONFLICT')).toBe(true);
    expect(await versionCount(db.pool)).toBe(3);
  });

  it('creating a task whose name exists is refused on the name field; a no-op save is refused', async () => {
    const cur = await currentConfig(db.pool);
    const dup = await failure(saveTask(db.pool, alice, { mode: 'create', task: { name: 'send-email' }, basedOn: cur.version, message: 'dup' }));
    expect(dup).toMatchObject({ code: 'CONFLICT', fieldErrors: [{ path: 'name', message: 'a task with this name already exists' }] });
    const def = findTask(cur.config, 'send-email')!;
    const same = await failure(saveTask(db.pool, alice, { mode: 'update', task: def as unknown as Record<string, unknown>, basedOn: cur.version, message: 'same' }));
    expect(same).toMatchObject({ code: 'PRECONDITION_FAILED', message: 'nothing to apply: this is the same as the current version' });
  });

  it('pause and resume are versions too, applied onto the latest whatever the page showed', async () => {
    const before = await versionCount(db.pool);
    const p = await setTaskPaused(db.pool, alice, { task: 'send-email', paused: true });
    expect(p.version).toBe(before + 1);
    expect(p.changes[0]?.rows).toEqual([{ path: 'paused', label: 'Paused', kind: 'changed', before: 'false', after: 'true' }]);
    expect((await db.pool.query(`SELECT paused FROM task_runtime WHERE task = 'send-email'`)).rows[0]).toEqual({ paused: true });
    expect((await db.pool.query(`SELECT message FROM config_versions WHERE version = $1`, [p.version])).rows[0]).toEqual({ message: 'Pause send-email' });
    expect(await failure(setTaskPaused(db.pool, alice, { task: 'send-email', paused: true }))).toMatchObject({
      code: 'PRECONDITION_FAILED',
      message: 'task "send-email" is already paused',
    });
    await setTaskPaused(db.pool, bob, { task: 'send-email', paused: false });
    expect((await getTask(db.pool, 'send-email'))?.definition.paused).toBe(false);
  });
});

describe('rollback and history', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await testDatabase();
    await saveTask(db.pool, alice, { mode: 'create', task: emailTask(20), basedOn: null, message: 'v1: add send-email' });
    await saveTask(db.pool, alice, { mode: 'create', task: { name: 'resize' }, basedOn: 1, message: 'v2: add resize' });
    await saveTask(db.pool, bob, { mode: 'update', task: emailTask(5), basedOn: 2, message: 'v3: tenant 5' });
  });

  it('rollback creates a new version equal to the older one and keeps every earlier version', async () => {
    const before = await db.pool.query('SELECT version, config FROM config_versions ORDER BY version');
    const preview = await previewRollback(db.pool, { to: 1, basedOn: 3 });
    expect(preview.changes.map((g) => [g.task, g.kind])).toEqual([
      ['resize', 'task-removed'],
      ['send-email', 'changed'],
    ]);
    expect(preview.changes[1]?.rows).toEqual([
      { path: 'groups.tenant.limit', label: 'Group "tenant" › limit', kind: 'changed', before: '5', after: '20' },
    ]);
    const r = await rollbackConfig(db.pool, bob, { to: 1, basedOn: 3 });
    expect(r.version).toBe(4);
    const after = await db.pool.query('SELECT version, config, message, author FROM config_versions ORDER BY version');
    expect(after.rows.slice(0, 3).map((x) => [x.version, x.config])).toEqual(before.rows.map((x) => [x.version, x.config]));
    expect(after.rows[3]).toMatchObject({ version: 4, message: 'Roll back to version 1', author: 'bob@example.com' });
    const v1 = (await currentConfig(db.pool)).config;
    expect(configsEqual(v1, after.rows[0].config)).toBe(true);
    // The runtime follows: resize is inactive again, the tenant limit is back to 20.
    const rt = await db.pool.query(`SELECT task, active, groups FROM task_runtime ORDER BY task`);
    expect(rt.rows).toEqual([
      { task: 'resize', active: false, groups: {} },
      { task: 'send-email', active: true, groups: { tenant: { limit: 20, overrides: { acme: 40 } } } },
    ]);
  });

  it('a stale rollback and a rollback to the current state are refused', async () => {
    expect(await failure(rollbackConfig(db.pool, bob, { to: 2, basedOn: 3 }))).toMatchObject({ code: 'CONFLICT' });
    expect(await failure(rollbackConfig(db.pool, bob, { to: 1, basedOn: 4 }))).toMatchObject({ code: 'PRECONDITION_FAILED' });
    expect(await failure(rollbackConfig(db.pool, bob, { to: 99, basedOn: 4 }))).toMatchObject({ code: 'NOT_FOUND' });
  });

  it('history lists versions newest first with the diff to the previous one, paged', async () => {
    const page1 = await listConfigHistory(db.pool, { limit: 2 });
    expect(page1.latest).toBe(4);
    expect(page1.versions.map((v) => [v.version, v.author, v.message])).toEqual([
      [4, 'bob@example.com', 'Roll back to version 1'],
      [3, 'bob@example.com', 'v3: tenant 5'],
    ]);
    expect(page1.versions[1]!.changes).toEqual([
      {
        task: 'send-email',
        kind: 'changed',
        rows: [{ path: 'groups.tenant.limit', label: 'Group "tenant" › limit', kind: 'changed', before: '20', after: '5' }],
      },
    ]);
    expect(page1.nextBefore).toBe(3);
    const page2 = await listConfigHistory(db.pool, { limit: 2, before: 3 });
    expect(page2.versions.map((v) => v.version)).toEqual([2, 1]);
    expect(page2.nextBefore).toBeNull();
    expect(page2.versions[1]!.changes[0]).toMatchObject({ task: 'send-email', kind: 'task-added' });
  });

  it('history filtered by task lists only the versions that changed it, with only its changes', async () => {
    const h = await listConfigHistory(db.pool, { task: 'resize', limit: 20 });
    expect(h.versions.map((v) => [v.version, v.changes.map((g) => `${g.task}:${g.kind}`)])).toEqual([
      [4, ['resize:task-removed']],
      [2, ['resize:task-added']],
    ]);
    const e = await listConfigHistory(db.pool, { task: 'send-email', limit: 20 });
    expect(e.versions.map((v) => v.version)).toEqual([4, 3, 1]);
    expect(e.versions[0]!.changes.every((g) => g.task === 'send-email')).toBe(true);
    expect((await getConfigVersionView(db.pool, 2)).changes.map((g) => g.task)).toEqual(['resize']);
  });

  it('export → apply round-trips exactly, and the re-export is the same text', async () => {
    await saveTask(db.pool, alice, {
      mode: 'create',
      task: { name: 'ordered', stream: { keyPath: 'order.id' }, routing: { strategy: 'hash', keyPath: 'order.id' }, groups: [{ name: 'z', limit: 1 }, { name: 'a', limit: 2, overrides: { 'x.y': 3 } }] },
      basedOn: 4,
      message: 'add ordered',
    });
    const exported = await exportConfigYaml(db.pool);
    expect(exported.filename).toBe('sluice-config-v5.yaml');
    const cur = await currentConfig(db.pool);
    expect(configsEqual(parse(exported.yaml), cur.config)).toBe(true);
    await applyConfig(db.pool, alice, parse(exported.yaml), { message: 're-apply export', basedOn: 5 });
    const again = await exportConfigYaml(db.pool);
    expect(again.yaml.split('\n').slice(1)).toEqual(exported.yaml.split('\n').slice(1));
  });
});

describe('delete', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await testDatabase();
  });

  it('an idle task is deleted; the version removes it and the runtime row goes inactive', async () => {
    await applyTasks(db.pool, [{ name: 'idle' }, { name: 'keep' }]);
    const r = await deleteTask(db.pool, alice, { task: 'idle', basedOn: 1, message: 'remove idle', drain: false });
    expect(r).toMatchObject({ version: 2, drained: null, changes: [{ task: 'idle', kind: 'task-removed' }] });
    expect((await db.pool.query(`SELECT active FROM task_runtime WHERE task = 'idle'`)).rows[0]).toEqual({ active: false });
    expect((await listTasks(db.pool)).tasks.map((t) => t.name)).toEqual(['keep']);
  });

  it('a busy task is refused without drain; with drain its backlog becomes dead letters, counters follow', async () => {
    const cur = await currentConfig(db.pool);
    await applyConfig(db.pool, alice, { tasks: [...cur.config.tasks, { name: 'busy', partitions: 2, groups: [{ name: 'tenant', limit: 5, keyPath: 'tenant' }], stream: { keyPath: 's' } }] }, { message: 'add busy' });
    await enqueue(db.pool, 'busy', [
      { payload: { tenant: 'acme', s: 'a' } },
      { payload: { tenant: 'acme', s: 'a' } },
      { payload: { tenant: 'globex' } },
      { payload: { tenant: 'globex' } },
    ]);
    const coord = await fakeCoordinator(db.pool, ['busy']);
    const claimed = await claimExecutions(db.pool, coord, 'busy', 1, 60_000);
    expect(claimed).toHaveLength(1);
    const version = (await currentConfig(db.pool)).version;

    const refused = await failure(deleteTask(db.pool, alice, { task: 'busy', basedOn: version, message: 'rm', drain: false }));
    expect(refused).toMatchObject({ code: 'PRECONDITION_FAILED' });
    expect(refused.message).toBe('task "busy" is not idle (1 running, 3 queued or blocked, 0 spilled); delete it with drain to move its backlog to the dead-letter queue');
    const running = await failure(deleteTask(db.pool, alice, { task: 'busy', basedOn: version, message: 'rm', drain: true }));
    expect(running.message).toMatch(/has 1 running executions; pause it and wait/);

    // Finish the running one, then drain.
    await db.pool.query(`SELECT * FROM sluice_finish('busy', $1, $2, '{succeeded}', '{NULL}', '{NULL}', '{NULL}', '{NULL}')`, [[claimed[0]!.id], [claimed[0]!.leaseToken]]);
    const r = await deleteTask(db.pool, alice, { task: 'busy', basedOn: version, message: 'rm busy', drain: true });
    expect(r.drained).toEqual({ executions: 3, spilled: 0, running: 0 });
    const dl = await db.pool.query(`SELECT task, last_error, attempts FROM dead_letters WHERE task = 'busy'`);
    expect(dl.rows).toHaveLength(3);
    expect(dl.rows[0].last_error).toBe(`task "busy" was deleted in config version ${r.version} (drained by alice@example.com)`);
    const left = await db.pool.query(`SELECT count(*)::int AS n FROM executions WHERE task = 'busy' AND state IN ('queued', 'blocked', 'running')`);
    expect(left.rows[0]).toEqual({ n: 0 });
    const ps = await db.pool.query(`SELECT sum(depth)::int AS depth, sum(po.dead_total)::int AS dead FROM partition_stats ps JOIN partition_outcomes po USING (task, partition) WHERE task = 'busy'`);
    expect(ps.rows[0]).toEqual({ depth: 0, dead: 3 });
    await foldSlotDeltas(db.pool, 'busy'); // the claim's and finish's moves, as a coordinator folds them
    const gs = await db.pool.query(`SELECT group_key, queued FROM group_slots WHERE task = 'busy' ORDER BY group_key`);
    expect(gs.rows.every((x) => x.queued === 0)).toBe(true);
    const audit = await db.pool.query(`SELECT action, target_id, after FROM audit_log WHERE action = 'task.drain'`);
    expect(audit.rows).toEqual([{ action: 'task.drain', target_id: 'busy', after: { executions: 3, spilled: 0, running: 0 } }]);
  });

  it('delete + drain is one transaction: a drain that fails leaves no new version, the task and its backlog in place', async () => {
    const cur = await currentConfig(db.pool);
    await applyConfig(db.pool, alice, { tasks: [...cur.config.tasks, { name: 'fragile', partitions: 1 }] }, { message: 'add fragile' });
    await enqueue(db.pool, 'fragile', [{ payload: { n: 1 } }, { payload: { n: 2 } }]);
    const version = (await currentConfig(db.pool)).version!;
    // The dead-letter insert of the drain fails (a stand-in for any failure mid-drain).
    await db.pool.query(`CREATE FUNCTION refuse_fragile() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.task = 'fragile' THEN RAISE EXCEPTION 'dead letters unavailable'; END IF; RETURN NEW; END $$`);
    await db.pool.query(`CREATE TRIGGER refuse_fragile BEFORE INSERT ON dead_letters FOR EACH ROW EXECUTE FUNCTION refuse_fragile()`);
    try {
      await expect(deleteTask(db.pool, alice, { task: 'fragile', basedOn: version, message: 'rm fragile', drain: true })).rejects.toThrow(/dead letters unavailable/);
    } finally {
      await db.pool.query(`DROP TRIGGER refuse_fragile ON dead_letters; DROP FUNCTION refuse_fragile()`);
    }
    expect((await currentConfig(db.pool)).version).toBe(version);
    expect((await currentConfig(db.pool)).config.tasks.map((t) => t.name)).toContain('fragile');
    expect((await db.pool.query(`SELECT active FROM task_runtime WHERE task = 'fragile'`)).rows[0]).toEqual({ active: true });
    const queued = await db.pool.query(`SELECT count(*)::int AS n FROM executions WHERE task = 'fragile' AND state = 'queued'`);
    expect(queued.rows[0]).toEqual({ n: 2 });
    const audit = await db.pool.query(`SELECT count(*)::int AS n FROM audit_log WHERE target_id IN ('fragile', $1)`, [String(version + 1)]);
    expect(audit.rows[0]).toEqual({ n: 0 });
    // Without the failure the same call deletes and drains together.
    const r = await deleteTask(db.pool, alice, { task: 'fragile', basedOn: version, message: 'rm fragile', drain: true });
    expect(r).toMatchObject({ version: version + 1, drained: { executions: 2, spilled: 0, running: 0 } });
  });

  it('deleting an unknown task is NOT_FOUND', async () => {
    const version = (await currentConfig(db.pool)).version;
    expect(await failure(deleteTask(db.pool, alice, { task: 'ghost', basedOn: version, message: 'x', drain: false }))).toMatchObject({ code: 'NOT_FOUND' });
  });
});
