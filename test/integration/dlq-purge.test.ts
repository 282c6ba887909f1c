// Purging dead letters: the preview freezes the exact ids; the purge deletes those and
// nothing else — not the dead letters that arrive (matching the same filter) while the
// operator reads the preview and types the confirmation.
import { describe, it, expect } from 'vitest';
import { testDatabase } from './db';
import { insertDeadLetters } from '../support/dead-letter-fixtures';
import { exportFrozenSet, previewPurge, purgeDeadLetters } from '../../server/services/dead-letter-purge';
import { isCoreError } from '../../server/core/errors';
import type { Actor } from '../../server/db/audit';

const db = await testDatabase();
const alice: Actor = { type: 'user', id: '00000000-0000-0000-0000-000000000001', label: 'alice@example.com' };

const ids = async (where = 'TRUE', params: unknown[] = []) =>
  (await db.pool.query<{ id: number }>(`SELECT id FROM dead_letters WHERE ${where} ORDER BY id`, params)).rows.map((r) => r.id);

describe('purge of a frozen set', () => {
  it('deletes only the frozen ids while new matching dead letters keep arriving', async () => {
    const seeded = await insertDeadLetters(db.pool, Array.from({ length: 500 }, (_, i) => ({ task: 'billing', fingerprint: i % 2 ? 'aa' : 'bb' })));
    const other = await insertDeadLetters(db.pool, Array.from({ length: 50 }, () => ({ task: 'emails', fingerprint: 'aa' })));

    // New dead letters of the same task and fingerprint arrive continuously, on their own
    // connections, from before the preview until after the purge.
    let arriving = true;
    const arrived: number[] = [];
    const producer = (async () => {
      while (arriving) {
        const r = await insertDeadLetters(db.pool, Array.from({ length: 5 }, () => ({ task: 'billing', fingerprint: 'aa' })));
        arrived.push(...r.map((x) => x.id));
        await new Promise((res) => setTimeout(res, 2));
      }
    })();
    await new Promise((res) => setTimeout(res, 30));

    const preview = await previewPurge(db.pool, alice, { filter: { task: 'billing', fingerprint: 'aa' } });
    const frozen = (await db.pool.query<{ id: number }>('SELECT dead_letter_id AS id FROM dlq_purge_preview_items WHERE preview_id = $1 ORDER BY 1', [preview.id])).rows.map((r) => r.id);
    expect(frozen.length).toBe(preview.total);
    expect(preview.total).toBeGreaterThanOrEqual(250);
    expect(preview.confirmation).toBe(`purge ${preview.total}`);

    await new Promise((res) => setTimeout(res, 50)); // more arrive while the operator types
    const result = await purgeDeadLetters(db.pool, alice, { previewId: preview.id, confirm: `purge ${preview.total}` });
    await new Promise((res) => setTimeout(res, 30));
    arriving = false;
    await producer;

    expect(result.deleted).toBe(preview.total);
    const remaining = new Set(await ids());
    for (const id of frozen) expect(remaining.has(id)).toBe(false);
    const frozenSet = new Set(frozen);
    const arrivedAfter = arrived.filter((id) => !frozenSet.has(id));
    expect(arrivedAfter.length).toBeGreaterThan(10); // the race really happened
    for (const id of arrivedAfter) expect(remaining.has(id)).toBe(true);
    for (const x of other) expect(remaining.has(x.id)).toBe(true);
    const bb = seeded.filter((_, i) => i % 2 === 0).map((x) => x.id);
    for (const id of bb) expect(remaining.has(id)).toBe(true);

    // audited with the filter and the counts, in the same transaction
    const audit = await db.pool.query(`SELECT actor_label, action, target_id, meta FROM audit_log WHERE action = 'dlq.purge'`);
    expect(audit.rows).toHaveLength(1);
    expect(audit.rows[0]).toMatchObject({
      actor_label: 'alice@example.com',
      target_id: preview.id,
      meta: { scope: 'filter', filter: { task: 'billing', fingerprint: 'aa', status: 'all' }, frozen: preview.total, deleted: preview.total, byTask: [{ task: 'billing', count: preview.total }] },
    });
  });

  it('refuses a wrong confirmation, a second purge and an expired preview', async () => {
    await insertDeadLetters(db.pool, Array.from({ length: 3 }, () => ({ task: 'exports' })));
    const p = await previewPurge(db.pool, alice, { filter: { task: 'exports' } });
    expect(p.total).toBe(3);

    const wrong = await purgeDeadLetters(db.pool, alice, { previewId: p.id, confirm: 'purge 4' }).catch((e: unknown) => e);
    expect(isCoreError(wrong) && wrong.code).toBe('BAD_REQUEST');
    expect((wrong as { fieldErrors: { path: string }[] }).fieldErrors[0]!.path).toBe('confirm');
    expect(await ids(`task = 'exports'`)).toHaveLength(3);

    expect((await purgeDeadLetters(db.pool, alice, { previewId: p.id, confirm: 'Purge 3' })).deleted).toBe(3);
    const again = await purgeDeadLetters(db.pool, alice, { previewId: p.id, confirm: 'purge 3' }).catch((e: unknown) => e);
    expect(isCoreError(again) && again.code).toBe('CONFLICT');

    await insertDeadLetters(db.pool, [{ task: 'exports' }]);
    const old = await previewPurge(db.pool, alice, { filter: { task: 'exports' } });
    await db.pool.query(`UPDATE dlq_purge_previews SET expires_at = now() - interval '1 second' WHERE id = $1`, [old.id]);
    const expired = await purgeDeadLetters(db.pool, alice, { previewId: old.id, confirm: 'purge 1' }).catch((e: unknown) => e);
    expect(isCoreError(expired) && expired.code).toBe('PRECONDITION_FAILED');
    expect(await ids(`task = 'exports'`)).toHaveLength(1);
  });

  it('two concurrent purges of one preview delete once', async () => {
    await insertDeadLetters(db.pool, Array.from({ length: 20 }, () => ({ task: 'reports' })));
    const p = await previewPurge(db.pool, alice, { filter: { task: 'reports' } });
    const results = await Promise.allSettled([1, 2, 3].map(() => purgeDeadLetters(db.pool, alice, { previewId: p.id, confirm: 'purge 20' })));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(results.filter((r) => r.status === 'rejected').every((r) => isCoreError((r as PromiseRejectedResult).reason))).toBe(true);
    const audits = await db.pool.query(`SELECT 1 FROM audit_log WHERE action = 'dlq.purge' AND target_id = $1`, [p.id]);
    expect(audits.rowCount).toBe(1);
  });

  it('a selection freezes only existing ids; a dry run stores nothing', async () => {
    const rows = await insertDeadLetters(db.pool, Array.from({ length: 4 }, () => ({ task: 'sel' })));
    const before = (await db.pool.query('SELECT count(*)::int AS n FROM dlq_purge_previews')).rows[0].n;
    const dry = await previewPurge(db.pool, alice, { ids: [rows[0]!.id, rows[1]!.id, 999_999_999] }, { dryRun: true });
    expect(dry.total).toBe(2);
    expect((await db.pool.query('SELECT count(*)::int AS n FROM dlq_purge_previews')).rows[0].n).toBe(before);
    const p = await previewPurge(db.pool, alice, { ids: [rows[0]!.id, rows[1]!.id] });
    expect((await purgeDeadLetters(db.pool, alice, { previewId: p.id, confirm: 'purge 2' })).deleted).toBe(2);
    expect(await ids(`task = 'sel'`)).toEqual([rows[2]!.id, rows[3]!.id]);
  });

  it('a preview is audited (who froze which set, how many); a dry run is not', async () => {
    await insertDeadLetters(db.pool, Array.from({ length: 3 }, () => ({ task: 'audited' })));
    const auditRows = () => db.pool.query(`SELECT actor_label, target_type, target_id, after, meta FROM audit_log WHERE action = 'dlq.purge.preview' ORDER BY id`);
    const before = (await auditRows()).rowCount;
    await previewPurge(db.pool, alice, { filter: { task: 'audited' } }, { dryRun: true });
    expect((await auditRows()).rowCount).toBe(before);
    const p = await previewPurge(db.pool, alice, { filter: { task: 'audited' } });
    const rows = (await auditRows()).rows;
    expect(rows).toHaveLength(before! + 1);
    expect(rows.at(-1)).toMatchObject({
      actor_label: alice.label,
      target_type: 'dead_letters',
      target_id: p.id,
      after: { frozen: 3 },
      meta: { scope: 'filter', filter: { task: 'audited', status: 'all' }, frozen: 3, byTask: [{ task: 'audited', count: 3 }] },
    });
  });

  it('exports the frozen set as JSON lines before purging', async () => {
    const rows = await insertDeadLetters(db.pool, Array.from({ length: 2503 }, (_, i) => ({ task: 'exp', payload: { i }, error: `E${i}` })));
    const p = await previewPurge(db.pool, alice, { filter: { task: 'exp' } });
    await insertDeadLetters(db.pool, [{ task: 'exp' }]); // arrives after the preview: not exported
    let text = '';
    for await (const chunk of exportFrozenSet(db.pool, p.id)) text += chunk;
    const lines = text.trimEnd().split('\n').map((l) => JSON.parse(l));
    expect(lines).toHaveLength(2503);
    expect(lines.map((l) => l.id)).toEqual(rows.map((r) => r.id));
    expect(lines[7]).toMatchObject({ task: 'exp', payload: { i: 7 }, lastError: 'E7' });
  });

  it('validates its input', async () => {
    for (const input of [{}, { ids: [] }, { filter: { group: 'x' } }, { ids: [1], filter: {} }]) {
      const e = await previewPurge(db.pool, alice, input as never).catch((x: unknown) => x);
      expect(isCoreError(e) && e.code).toBe('BAD_REQUEST');
    }
    const e = await purgeDeadLetters(db.pool, alice, { previewId: 'nope', confirm: 'x' }).catch((x: unknown) => x);
    expect(isCoreError(e) && e.code).toBe('BAD_REQUEST');
  });
});
