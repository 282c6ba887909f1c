// The observe routers through the real app router: roles (viewers read, operators act
// on alerts, admins change webhooks), list filters and pages, alert detail evidence and
// remedies, and the audit trail of an acknowledgement as the Audit page lists it.
import { describe, it, expect, beforeAll } from 'vitest';
import { testDatabase, type TestDatabase } from './db';
import { applyTasks } from '../support/engine-fixtures';
import { insertSamples, sampleTimes, setPartitionDepths } from '../support/observe-fixtures';
import { callerAs } from '../support/trpc-caller';
import { evaluateAlerts } from '../../server/services/alerts';
import { rollupMetrics } from '../../server/control-plane/services/rollup-metrics';
import { DEFAULT_ALERT_POLICY } from '../../server/core/alert-evaluation';
import type { SessionUser } from '../../server/services/sessions';

// The webhook targets below use 127.0.0.1, an address webhooks may reach only when allowed.
process.env.SLUICE_WEBHOOK_ALLOW_HOSTS = '127.0.0.1';

let db: TestDatabase;
const viewer: SessionUser = { id: '00000000-0000-4000-8000-000000000001', email: 'v@example.com', role: 'viewer' };
const operator: SessionUser = { id: '00000000-0000-4000-8000-000000000002', email: 'o@example.com', role: 'operator' };
const admin: SessionUser = { id: '00000000-0000-4000-8000-000000000003', email: 'a@example.com', role: 'admin' };
const policy = { ...DEFAULT_ALERT_POLICY, forMs: 0, clearForMs: 0 };

beforeAll(async () => {
  db = await testDatabase();
  await applyTasks(db.pool, [
    { name: 'alpha', partitions: 4, routing: { strategy: 'hash', keyPath: 'tenant' } },
    { name: 'beta', partitions: 2 },
  ]);
  const now = Date.now();
  await insertSamples(db.pool, {
    task: 'alpha',
    partitions: 4,
    intervalMs: 5000,
    times: sampleTimes(now, 5000, 60),
    values: (p) => ({ depth: p === 2 ? 3000 : 50, arrivals: p === 2 ? 40 : 2, processed: 2 }),
  });
  await rollupMetrics(db.pool, new Date(now));
  await setPartitionDepths(db.pool, 'alpha', [50, 50, 3000, 50]);
  await setPartitionDepths(db.pool, 'beta', [2000, 0]);
  await evaluateAlerts(db.pool, new Date(now), policy);
});

describe('metrics router', () => {
  it('viewers read the overview and drill-down; signed-out callers cannot', async () => {
    const o = await callerAs(db.pool, viewer).metrics.overview({ range: '1h' });
    expect(o.cards.map((c) => c.task).sort()).toEqual(['alpha', 'beta']);
    expect(o.fleet.alertsFiring.critical + o.fleet.alertsFiring.warning).toBeGreaterThan(0);
    // Five minutes of samples: the 1 h range is drawn as 15 m (core/chart-scale fitRange).
    expect(o.charts).toMatchObject({ range: '15m', requestedRange: '1h' });
    expect(o.charts?.points.length).toBe(91);
    // 7 d reads 1 h buckets first, whose start overstates the data's age: fitted again on the finer rows.
    const week = await callerAs(db.pool, viewer).metrics.overview({ range: '7d', task: 'alpha' });
    expect(week.charts).toMatchObject({ range: '15m', requestedRange: '7d', resolutionS: 10 });
    const parts = await callerAs(db.pool, viewer).metrics.taskPartitions({ task: 'alpha' });
    expect(parts.partitions[2]!.depth).toBe(3000);
    await expect(callerAs(db.pool, null).metrics.overview({ range: '1h' })).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
    await expect(callerAs(db.pool, viewer).metrics.overview({ range: '2h' as '1h' })).rejects.toMatchObject({ code: 'BAD_REQUEST' });
  });
});

describe('alerts router', () => {
  it('lists open alerts with filters and keyset pages', async () => {
    const all = await callerAs(db.pool, viewer).alerts.list({ status: 'open' });
    const rules = all.items.map((a) => `${a.task}:${a.rule}:${a.subject}`).sort();
    expect(rules).toEqual(expect.arrayContaining(['alpha:depth:', 'alpha:hotPartition:2', 'alpha:imbalance:', 'beta:depth:', 'beta:hotPartition:0']));
    const hot = await callerAs(db.pool, viewer).alerts.list({ rule: 'hotPartition', task: 'alpha' });
    expect(hot.items).toHaveLength(1);
    expect((await callerAs(db.pool, viewer).alerts.list({ rule: 'hotPartition' })).items).toHaveLength(2);
    expect(hot.items[0]).toMatchObject({ task: 'alpha', partition: 2, summary: 'Hot partition — alpha partition 2' });
    const p1 = await callerAs(db.pool, viewer).alerts.list({ limit: 2 });
    const p2 = await callerAs(db.pool, viewer).alerts.list({ limit: 2, cursor: p1.nextCursor! });
    expect(p1.items).toHaveLength(2);
    expect(p2.items.map((a) => a.id)).not.toContain(p1.items[0]!.id);
    expect([...p1.items, ...p2.items].length).toBe(Math.min(4, all.items.length));
  });

  it('detail carries the evidence chart against siblings, top keys and remedies linking to the task editor', async () => {
    const id = (await callerAs(db.pool, viewer).alerts.list({ task: 'alpha', rule: 'hotPartition' })).items[0]!.id;
    const d = await callerAs(db.pool, viewer).alerts.get({ id });
    expect(d.chart?.metric).toBe('depth');
    const withData = d.chart!.points.filter((p) => p.subject !== null);
    expect(withData.length).toBeGreaterThan(0);
    expect(withData.at(-1)).toMatchObject({ subject: 3000, siblingsMedian: 50, siblingsMax: 50 });
    expect(d.evidence).toMatchObject({ reasons: expect.arrayContaining(['depth', 'arrivals']), routing: 'hash' });
    expect(d.remedies.map((r) => r.href)).toEqual(['/tasks/alpha#sec-routing', '/tasks/alpha#sec-general']);
    expect(d.events.map((e) => e.type)).toEqual(['fired']);
    await expect(callerAs(db.pool, viewer).alerts.get({ id: 987654 })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('viewers cannot act; an operator acknowledges and the audit log shows it', async () => {
    const id = (await callerAs(db.pool, viewer).alerts.list({ task: 'beta', rule: 'depth' })).items[0]!.id;
    await expect(callerAs(db.pool, viewer).alerts.acknowledge({ id })).rejects.toMatchObject({ code: 'FORBIDDEN' });
    const r = await callerAs(db.pool, operator).alerts.acknowledge({ id });
    expect(r).toMatchObject({ id, status: 'acknowledged', acknowledgedBy: 'o@example.com' });
    await expect(callerAs(db.pool, operator).alerts.acknowledge({ id })).rejects.toMatchObject({ code: 'CONFLICT' });
    const s = await callerAs(db.pool, operator).alerts.silence({ id, durationMs: 3600_000 });
    expect(s.silencedUntil!.getTime()).toBeGreaterThan(Date.now() + 3500_000);
    const audit = await callerAs(db.pool, viewer).audit.list({ action: 'alert.' });
    expect(audit.entries.map((e) => e.action)).toEqual(['alert.silence', 'alert.acknowledge']);
    expect(audit.entries[1]).toMatchObject({ actor: { label: 'o@example.com' }, target: { type: 'alert', id: String(id) } });
    const res = await callerAs(db.pool, operator).alerts.resolve({ id });
    expect(res).toMatchObject({ status: 'resolved', resolvedBy: 'o@example.com' });
    expect((await callerAs(db.pool, viewer).alerts.list({ status: 'resolved' })).items.map((a) => a.id)).toContain(id);
  });
});

describe('webhooks router', () => {
  it('admins manage targets, operators only read, viewers nothing; secrets never come back', async () => {
    await expect(callerAs(db.pool, operator).webhooks.create({ name: 'x', url: 'http://127.0.0.1:9/x' })).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(callerAs(db.pool, viewer).webhooks.list()).rejects.toMatchObject({ code: 'FORBIDDEN' });
    const t = await callerAs(db.pool, admin).webhooks.create({ name: 'pager', url: 'http://127.0.0.1:9/hook', secret: 'sixteen-chars-or-more' });
    const list = await callerAs(db.pool, operator).webhooks.list();
    expect(list).toEqual([expect.objectContaining({ id: t.id, name: 'pager', hasSecret: true })]);
    expect(JSON.stringify(list)).not.toContain('sixteen-chars');
    await callerAs(db.pool, admin).webhooks.test({ id: t.id });
    const log = await callerAs(db.pool, operator).webhooks.deliveries({ targetId: t.id });
    expect(log).toEqual([expect.objectContaining({ event: 'test', status: 'pending', targetName: 'pager' })]);
    await expect(callerAs(db.pool, admin).webhooks.create({ name: 'bad', url: 'not a url' })).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    await callerAs(db.pool, admin).webhooks.delete({ id: t.id });
    expect(await callerAs(db.pool, operator).webhooks.list()).toEqual([]);
  });
});

describe('control-plane /metrics text', () => {
  it('exposes firing alerts per task/rule/severity, rollup lag and service state', async () => {
    const { controlPlaneMetricsText } = await import('../../server/presenters/control-plane-metrics');
    const text = await controlPlaneMetricsText(db.pool);
    const open = await db.pool.query(`SELECT count(*)::int AS n FROM alerts WHERE status = 'firing'`);
    expect(text).toContain(`sluice_alerts_firing_all ${open.rows[0].n}`);
    expect(text).toMatch(/sluice_alerts_firing\{task="alpha",rule="hotPartition",severity="(warning|critical)"\} 1/);
    expect(text).toMatch(/sluice_rollup_lag_seconds\{resolution="10s"\} \d/);
    expect(text).toContain('# TYPE sluice_webhook_deliveries gauge');
  });

  it('exposes how long the oldest snapshot has been held (a REPEATABLE READ transaction in another session)', async () => {
    const { controlPlaneMetricsText } = await import('../../server/presenters/control-plane-metrics');
    const holder = await db.pool.connect();
    try {
      await holder.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
      await holder.query('SELECT 1');
      await new Promise((r) => setTimeout(r, 1200));
      const age = Number(/^sluice_db_oldest_snapshot_age_seconds (\S+)$/m.exec(await controlPlaneMetricsText(db.pool))?.[1]);
      expect(age).toBeGreaterThanOrEqual(1);
    } finally {
      await holder.query('COMMIT');
      holder.release();
    }
  });
});
