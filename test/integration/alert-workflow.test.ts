// The alert workflow through the real router on a real database: a comment on acknowledge
// and on silence (stored on the event, shown in the history, audited), un-silence, the
// episode's clock on each history event, and related alerts of one task (hot partition +
// depth + imbalance) grouped as one incident in the list and the detail.
import { describe, it, expect, beforeAll } from 'vitest';
import { testDatabase } from './db';
import { applyTasks } from '../support/engine-fixtures';
import { setGroupKeyLoads, setPartitionDepths } from '../support/observe-fixtures';
import { callerAs } from '../support/trpc-caller';
import { evaluateAlerts, unsilenceAlertById } from '../../server/services/alerts';
import { compareAlertsForList, DEFAULT_ALERT_POLICY, type AlertPolicy } from '../../server/core/alert-evaluation';
import type { SessionUser } from '../../server/services/sessions';

const db = await testDatabase();
const policy: AlertPolicy = { ...DEFAULT_ALERT_POLICY, forMs: 30_000, clearForMs: 30_000, windowMs: 60_000, hotPartition: { factor: 3, floorDepth: 1000 } };
const operator: SessionUser = { id: '00000000-0000-4000-8000-0000000000a1', email: 'ops@example.com', role: 'operator' };
const viewer: SessionUser = { id: '00000000-0000-4000-8000-0000000000a2', email: 'viewer@example.com', role: 'viewer' };

beforeAll(async () => {
  await applyTasks(db.pool, [
    { name: 'shop', partitions: 4, thresholds: { depth: { warning: 100, critical: 500 }, imbalance: { warning: 2, critical: 3 } } },
    { name: 'quiet', partitions: 2, thresholds: { depth: { warning: 100, critical: 500 } } },
    { name: 'keyed', partitions: 4, groups: [{ name: 'tenant', limit: 5, keyPath: 'tenant' }] },
    { name: 'spread', partitions: 4, groups: [{ name: 'tenant', limit: 5, keyPath: 'tenant' }] },
    { name: 'mild', partitions: 2, thresholds: { depth: { warning: 100, critical: 5000 } } },
  ]);
  await setPartitionDepths(db.pool, 'mild', [200, 190]);
  // A hot partition with no dominant key: no hot-key alert, the partition's own evidence keeps the keys.
  await setPartitionDepths(db.pool, 'spread', [3000, 10, 10, 10]);
  await setGroupKeyLoads(db.pool, 'spread', 'tenant', { north: { inFlight: 2, queued: 1000 }, south: { inFlight: 2, queued: 990 }, west: { inFlight: 1, queued: 980 } });
  // A hot partition caused by one hot key: the hot-key alert stores the top keys as it fires.
  await setPartitionDepths(db.pool, 'keyed', [3000, 10, 10, 10]);
  await setGroupKeyLoads(db.pool, 'keyed', 'tenant', { acme: { inFlight: 5, queued: 2900 }, globex: { inFlight: 1, queued: 20 } });
  // One partition runs hot: its depth, the task's imbalance and the hot partition all fire.
  await setPartitionDepths(db.pool, 'shop', [3000, 10, 10, 10]);
  await setPartitionDepths(db.pool, 'quiet', [700, 0]);
  const now = Date.now();
  await evaluateAlerts(db.pool, new Date(now - 40_000), policy);
  await evaluateAlerts(db.pool, new Date(now - 5_000), policy);
});

const firing = async (task: string, rule: string) =>
  (await db.pool.query<{ id: number }>(`SELECT id FROM alerts WHERE task = $1 AND rule = $2 AND status = 'firing'`, [task, rule])).rows[0]!.id;

describe('alert workflow', () => {
  it('acknowledge with a comment: on the event, in the history with its time since firing, and in the audit', async () => {
    const op = callerAs(db.pool, operator);
    const id = Number(await firing('shop', 'depth'));
    await op.alerts.acknowledge({ id, comment: '  rolling back config 14  ' });
    const ev = await db.pool.query(`SELECT type, actor, detail FROM alert_events WHERE alert_id = $1 ORDER BY id`, [id]);
    expect(ev.rows.map((e) => e.type)).toEqual(['fired', 'acknowledged']);
    expect(ev.rows[1]).toMatchObject({ actor: 'ops@example.com', detail: { comment: 'rolling back config 14' } });
    const audit = await db.pool.query(`SELECT meta FROM audit_log WHERE action = 'alert.acknowledge' AND target_id = $1`, [String(id)]);
    expect(audit.rows[0].meta).toMatchObject({ comment: 'rolling back config 14' });

    const detail = await callerAs(db.pool, viewer).alerts.get({ id });
    const ack = detail.events.find((e) => e.type === 'acknowledged')!;
    expect(ack.comment).toBe('rolling back config 14');
    expect(ack.sinceFiredMs).toBeGreaterThanOrEqual(0);
    expect(ack.sinceFiredMs).toBe(ack.at.getTime() - detail.firedAt.getTime());
    expect(detail.durationMs).toBeGreaterThan(0);
    expect(detail.events.find((e) => e.type === 'fired')!.comment).toBeNull();
  });

  it('a comment over 500 characters is refused field by field and nothing is written', async () => {
    const id = Number(await firing('shop', 'imbalance'));
    await expect(callerAs(db.pool, operator).alerts.acknowledge({ id, comment: 'x'.repeat(501) })).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    const rows = await db.pool.query(`SELECT status FROM alerts WHERE id = $1`, [id]);
    expect(rows.rows[0].status).toBe('firing');
    expect((await db.pool.query(`SELECT count(*)::int AS n FROM alert_events WHERE alert_id = $1 AND type = 'acknowledged'`, [id])).rows[0].n).toBe(0);
    await expect(callerAs(db.pool, viewer).alerts.acknowledge({ id })).rejects.toMatchObject({ code: 'FORBIDDEN' });
  });

  it('silence with a comment, then un-silence: the silence ends at once, both in the history and the audit', async () => {
    const op = callerAs(db.pool, operator);
    const id = Number(await firing('shop', 'imbalance'));
    const s = await op.alerts.silence({ id, durationMs: 3600_000, comment: 'vendor outage' });
    expect(s.silencedUntil!.getTime()).toBeGreaterThan(Date.now());
    const u = await op.alerts.unsilence({ id });
    expect(u.silencedUntil).toBeNull();
    const row = await db.pool.query(`SELECT silenced_until, silenced_by FROM alerts WHERE id = $1`, [id]);
    expect(row.rows[0]).toEqual({ silenced_until: null, silenced_by: null });
    const ev = await db.pool.query(`SELECT type, silenced, detail FROM alert_events WHERE alert_id = $1 ORDER BY id`, [id]);
    expect(ev.rows.map((e) => e.type)).toEqual(['fired', 'silenced', 'unsilenced']);
    expect(ev.rows[1].detail).toMatchObject({ durationMs: 3600_000, comment: 'vendor outage' });
    expect(ev.rows[2].detail.remainingMs).toBeGreaterThan(3500_000);
    const audit = await db.pool.query(`SELECT action, meta FROM audit_log WHERE target_id = $1 ORDER BY id`, [String(id)]);
    expect(audit.rows.map((a) => a.action)).toEqual(['alert.silence', 'alert.unsilence']);
    expect(audit.rows[0].meta).toMatchObject({ comment: 'vendor outage', durationMs: 3600_000 });
    expect(audit.rows[1].meta).toMatchObject({ silencedBy: 'ops@example.com' });
    // Not silenced any more: a second un-silence is a conflict, not a silent no-op.
    await expect(op.alerts.unsilence({ id })).rejects.toMatchObject({ code: 'CONFLICT' });
    await expect(unsilenceAlertById(db.pool, { type: 'user', id: operator.id, label: operator.email }, { id: 99_999_999 })).rejects.toThrow(/not found/);
  });

  it('groups the hot partition, depth and imbalance of one task as one incident; another task stays apart', async () => {
    const list = await callerAs(db.pool, viewer).alerts.list({ status: 'open' });
    const shop = list.items.filter((i) => i.task === 'shop');
    expect(new Set(shop.map((i) => i.rule))).toEqual(new Set(['depth', 'imbalance', 'hotPartition']));
    expect(new Set(shop.map((i) => i.incidentId)).size).toBe(1);
    expect(shop.map((i) => i.id)).toContain(shop[0]!.incidentId);
    const quiet = list.items.filter((i) => i.task === 'quiet');
    expect(quiet.length).toBeGreaterThan(0);
    expect(quiet.every((i) => i.incidentId !== shop[0]!.incidentId)).toBe(true);

    const hot = shop.find((i) => i.rule === 'hotPartition')!;
    const detail = await callerAs(db.pool, viewer).alerts.get({ id: hot.id });
    expect(new Set(detail.related.map((r) => r.rule))).toEqual(new Set(['depth', 'imbalance']));
    expect(detail.related.every((r) => r.task === 'shop')).toBe(true);
  });

  it('a hot partition keeps its top keys after the episode (from the hot-key alert of its incident)', async () => {
    const op = callerAs(db.pool, operator);
    const hot = Number(await firing('keyed', 'hotPartition'));
    Number(await firing('keyed', 'hotKey'));
    const during = await callerAs(db.pool, viewer).alerts.get({ id: hot });
    expect(during.topKeysAt).toBe('now');
    expect(during.topKeys[0]).toMatchObject({ group: 'tenant', key: 'acme', queued: 2900 });

    // The load drains and the episode is resolved: the live key loads say nothing any more.
    await db.pool.query(`DELETE FROM group_slots WHERE task = 'keyed'`);
    await op.alerts.resolve({ id: hot });
    const after = await callerAs(db.pool, viewer).alerts.get({ id: hot });
    expect(after.status).toBe('resolved');
    expect(after.topKeysAt).toBe('episode');
    expect(after.episodeAlertId).not.toBeNull();
    expect(after.topKeys.map((k) => k.key)).toEqual(['acme', 'globex']);
    expect(after.topKeys[0]).toMatchObject({ group: 'tenant', inFlight: 5, queued: 2900 });
    expect(after.topKeys[0]!.share).toBeGreaterThan(0.9);
  });

  it('a hot partition with no hot key keeps the top keys it fired with once the evaluator resolves it', async () => {
    const hot = Number(await firing('spread', 'hotPartition'));
    const keyAlerts = await db.pool.query(`SELECT count(*)::int AS n FROM alerts WHERE task = 'spread' AND rule = 'hotKey'`);
    expect(keyAlerts.rows[0].n).toBe(0);
    const fired = await db.pool.query(`SELECT evidence FROM alerts WHERE id = $1`, [hot]);
    expect(fired.rows[0].evidence.topKeys.map((k: { key: string }) => k.key)).toEqual(['north', 'south', 'west']);

    // The keys drain first (the partition still deep): the snapshot is not replaced by an empty one.
    await db.pool.query(`DELETE FROM group_slots WHERE task = 'spread'`);
    const t0 = Date.now();
    await evaluateAlerts(db.pool, new Date(t0 + 10_000), policy);
    // Then the partition drains and stays clear for clearForMs: the evaluator resolves it.
    await setPartitionDepths(db.pool, 'spread', [10, 10, 10, 10]);
    await evaluateAlerts(db.pool, new Date(t0 + 20_000), policy);
    await evaluateAlerts(db.pool, new Date(t0 + 60_000), policy);
    const row = await db.pool.query(`SELECT status, resolved_by, evidence FROM alerts WHERE id = $1`, [hot]);
    expect(row.rows[0]).toMatchObject({ status: 'resolved', resolved_by: null });
    expect(row.rows[0].evidence.topKeys).toHaveLength(3);

    const after = await callerAs(db.pool, viewer).alerts.get({ id: hot });
    expect(after.topKeysAt).toBe('episode');
    expect(after.episodeAlertId).toBe(hot);
    expect(after.topKeys.map((k) => `${k.group}=${k.key}`)).toEqual(['tenant=north', 'tenant=south', 'tenant=west']);
    expect(after.topKeys[0]).toMatchObject({ inFlight: 2, queued: 1000 });
    expect(after.topKeys[0]!.share).toBeCloseTo(1002 / 2975, 5);
  });

  it('lists critical first, then the newest fired, the same page by page', async () => {
    // Firing times spread over a few minutes, so the order within a severity is visible.
    await db.pool.query(`UPDATE alerts SET fired_at = fired_at - (id % 5) * interval '1 minute' WHERE status IN ('firing', 'acknowledged')`);
    const viewerCaller = callerAs(db.pool, viewer);
    const all = (await viewerCaller.alerts.list({ status: 'open', limit: 200 })).items;
    expect(all.some((a) => a.severity === 'warning')).toBe(true);
    expect(all.some((a) => a.severity === 'critical')).toBe(true);
    const lastCritical = all.map((a) => a.severity).lastIndexOf('critical');
    expect(all.findIndex((a) => a.severity === 'warning')).toBe(lastCritical + 1);
    expect(all.map((a) => a.id)).toEqual([...all].sort(compareAlertsForList).map((a) => a.id));
    expect(new Set(all.map((a) => a.firedAt.getTime())).size).toBeGreaterThan(1);
    // Keyset pages of 2 read the same order, none twice, none skipped.
    const paged: number[] = [];
    let cursor: number | undefined;
    do {
      const page = await viewerCaller.alerts.list({ status: 'open', limit: 2, ...(cursor ? { cursor } : {}) });
      paged.push(...page.items.map((a) => a.id));
      cursor = page.nextCursor ?? undefined;
    } while (cursor !== undefined);
    expect(paged).toEqual(all.map((a) => a.id));
  });
});
