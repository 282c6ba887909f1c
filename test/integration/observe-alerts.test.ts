// The alert engine on a real database: threshold rules with for-duration, escalation and
// hysteresis; hot partitions and hot keys with evidence and remedies; auto-resolve;
// operator acknowledge / silence / resolve with audit rows; webhook notifications
// delivered to a receiver on 127.0.0.1 (signed), retried, and filtered by severity.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { testDatabase, type TestDatabase } from './db';
import { applyTasks } from '../support/engine-fixtures';
import { insertSamples, sampleTimes, setGroupKeyLoads, setPartitionDepths } from '../support/observe-fixtures';
import { evaluateAlerts, acknowledgeAlertById, silenceAlertById, resolveAlertById } from '../../server/services/alerts';
import { createWebhook, deliverDueWebhooks, signBody, updateWebhook } from '../../server/services/webhooks';
import { DEFAULT_ALERT_POLICY, type AlertPolicy } from '../../server/core/alert-evaluation';
import type { Actor } from '../../server/db/audit';

// The receivers listen on 127.0.0.1, an address webhooks may reach only when allowed.
process.env.SLUICE_WEBHOOK_ALLOW_HOSTS = '127.0.0.1';

let db: TestDatabase;
const policy: AlertPolicy = { ...DEFAULT_ALERT_POLICY, forMs: 30_000, clearForMs: 30_000, windowMs: 60_000, hotPartition: { factor: 3, floorDepth: 1000 } };
const operator: Actor = { type: 'user', id: '00000000-0000-4000-8000-00000000000a', label: 'op@example.com' };
const T0 = Date.now();
const at = (s: number) => new Date(T0 + s * 1000);

interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
}
const received: Received[] = [];
let receiver: http.Server;
let receiverUrl = '';
let failing: http.Server;
let failingUrl = '';

async function alerts(task: string, rule?: string) {
  const r = await db.pool.query(`SELECT * FROM alerts WHERE task = $1 AND ($2::text IS NULL OR rule = $2) ORDER BY id`, [task, rule ?? null]);
  return r.rows;
}
async function events(alertId: number) {
  const r = await db.pool.query(`SELECT type, actor, silenced, severity FROM alert_events WHERE alert_id = $1 ORDER BY id`, [alertId]);
  return r.rows;
}

beforeAll(async () => {
  db = await testDatabase();
  receiver = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      res.writeHead(204).end();
    });
  });
  failing = http.createServer((_req, res) => res.writeHead(503).end('down for maintenance'));
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  await new Promise<void>((r) => failing.listen(0, '127.0.0.1', r));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  failingUrl = `http://127.0.0.1:${(failing.address() as AddressInfo).port}/hook`;
  await applyTasks(db.pool, [
    { name: 'orders', partitions: 4, thresholds: { depth: { warning: 100, critical: 500 }, imbalance: { warning: 50, critical: 100 } } },
    { name: 'skewed', partitions: 4, routing: { strategy: 'hash', keyPath: 'tenant' } },
    { name: 'tenants', partitions: 1, groups: [{ name: 'tenant', limit: 5, keyPath: 'tenant' }] },
  ]);
});

afterAll(async () => {
  receiver.close();
  failing.close();
});

describe('threshold rules', () => {
  it('pending for forMs, then fires; escalates to critical; hysteresis holds it; resolves after clearForMs', async () => {
    await setPartitionDepths(db.pool, 'orders', [150, 10, 10, 10]);
    await evaluateAlerts(db.pool, at(0), policy);
    let rows = await alerts('orders', 'depth');
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ rule: 'depth', status: 'pending', fired_at: null, partition: 0, last_value: 150 });

    const r = await evaluateAlerts(db.pool, at(30), policy);
    expect(r.fired).toBe(1);
    // 150 vs siblings' 10 is skewed, but under this policy's hot-partition floor (1000).
    expect(await alerts('orders', 'hotPartition')).toEqual([]);
    rows = await alerts('orders', 'depth');
    expect(rows[0]).toMatchObject({ status: 'firing', severity: 'warning', threshold: 100 });
    expect(rows[0].remedy).toMatch(/concurrency/);
    expect(rows[0].evidence).toMatchObject({ warning: 100, critical: 500, depths: [150, 10, 10, 10], deepestPartition: 0 });

    await setPartitionDepths(db.pool, 'orders', [700, 10, 10, 10]);
    expect((await evaluateAlerts(db.pool, at(45), policy)).escalated).toBe(1);
    rows = await alerts('orders', 'depth');
    expect(rows[0]).toMatchObject({ status: 'firing', severity: 'critical', peak_value: 700 });

    // 95 is under the 100 line but above the 90 hysteresis line: still breaching.
    await setPartitionDepths(db.pool, 'orders', [95, 10, 10, 10]);
    await evaluateAlerts(db.pool, at(60), policy);
    await evaluateAlerts(db.pool, at(120), policy);
    expect((await alerts('orders', 'depth'))[0]).toMatchObject({ status: 'firing', clear_since: null });

    // Really clear: resolves once clear for 30 s, and stays one episode.
    await setPartitionDepths(db.pool, 'orders', [50, 10, 10, 10]);
    await evaluateAlerts(db.pool, at(130), policy);
    expect((await alerts('orders', 'depth'))[0].status).toBe('firing');
    expect((await evaluateAlerts(db.pool, at(160), policy)).resolved).toBe(1);
    rows = await alerts('orders', 'depth');
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ status: 'resolved', resolved_by: null, severity: 'critical' });
    expect((await events(rows[0].id)).map((e) => e.type)).toEqual(['fired', 'escalated', 'resolved']);
  });

  it('a breach that clears before forMs leaves no alert behind', async () => {
    await setPartitionDepths(db.pool, 'orders', [300, 10, 10, 10]);
    await evaluateAlerts(db.pool, at(200), policy);
    expect((await alerts('orders', 'depth')).filter((a) => a.status === 'pending')).toHaveLength(1);
    await setPartitionDepths(db.pool, 'orders', [0, 0, 0, 0]);
    await evaluateAlerts(db.pool, at(210), policy);
    expect((await alerts('orders', 'depth')).filter((a) => a.status === 'pending')).toHaveLength(0);
  });

  it('rates come from the samples window: retry rate over the task totals', async () => {
    await insertSamples(db.pool, {
      task: 'orders',
      partitions: 4,
      intervalMs: 5000,
      times: sampleTimes(T0 + 300_000, 5000, 6),
      values: () => ({ depth: 0, processed: 6, failed: 4, retried: 4 }),
    });
    await evaluateAlerts(db.pool, at(300), policy);
    await evaluateAlerts(db.pool, at(330), policy);
    const retry = (await alerts('orders')).find((a) => a.rule === 'retryRate')!;
    expect(retry).toMatchObject({ status: 'firing', severity: 'critical' });
    expect(retry.last_value).toBeCloseTo(0.4);
    expect(retry.evidence.window).toMatchObject({ processed: 144, failed: 96, retried: 96 });
  });
});

describe('hot partitions and hot keys', () => {
  it('a hot partition fires with evidence and a routing remedy, and auto-resolves when depths even out', async () => {
    await setPartitionDepths(db.pool, 'skewed', [1200, 40, 30, 50]);
    await evaluateAlerts(db.pool, at(400), policy);
    await evaluateAlerts(db.pool, at(430), policy);
    const hot = (await alerts('skewed')).filter((a) => a.rule === 'hotPartition');
    expect(hot).toHaveLength(1);
    expect(hot[0]).toMatchObject({ status: 'firing', partition: 0, subject: '0', key: 'skewed|hotPartition|0', severity: 'critical' });
    expect(hot[0].last_value).toBeCloseTo(1200 / 40);
    expect(hot[0].evidence).toMatchObject({ reasons: ['depth'], siblingMedianDepth: 40, depths: [1200, 40, 30, 50], routing: 'hash' });
    expect(hot[0].remedy).toMatch(/drains slowly|coordinator/);
    // Imbalance (default 2/5) fires too, deduplicated to one alert per rule.
    expect((await alerts('skewed')).filter((a) => a.rule === 'imbalance')).toHaveLength(1);

    await setPartitionDepths(db.pool, 'skewed', [300, 280, 310, 290]);
    await evaluateAlerts(db.pool, at(440), policy);
    await evaluateAlerts(db.pool, at(470), policy);
    const after = (await alerts('skewed')).filter((a) => a.status !== 'resolved');
    expect(after).toEqual([]);
  });

  it('a hot key (one tenant holding most of the group) fires with the top keys and an override remedy', async () => {
    await setGroupKeyLoads(db.pool, 'tenants', 'tenant', {
      acme: { inFlight: 5, queued: 400 },
      beta: { inFlight: 2, queued: 10 },
      gamma: { inFlight: 1, queued: 12 },
      delta: { inFlight: 1, queued: 3 },
    });
    await evaluateAlerts(db.pool, at(500), policy);
    await evaluateAlerts(db.pool, at(530), policy);
    const hot = (await alerts('tenants')).filter((a) => a.rule === 'hotKey');
    expect(hot).toHaveLength(1);
    expect(hot[0]).toMatchObject({ status: 'firing', group_name: 'tenant', group_key: 'acme', subject: 'tenant=acme', severity: 'critical' });
    expect(hot[0].last_value).toBeCloseTo(405 / 434);
    expect(hot[0].evidence.topKeys[0]).toEqual({ key: 'acme', inFlight: 5, queued: 400 });
    expect(hot[0].remedy).toMatch(/per-key override/);

    await setGroupKeyLoads(db.pool, 'tenants', 'tenant', { acme: { inFlight: 5, queued: 5 } });
    await evaluateAlerts(db.pool, at(540), policy);
    await evaluateAlerts(db.pool, at(570), policy);
    expect((await alerts('tenants')).find((a) => a.rule === 'hotKey')!.status).toBe('resolved');
  });
});

describe('operator actions and notifications', () => {
  let hookId = '';
  it('creates a webhook target (audited without the secret)', async () => {
    const t = await createWebhook(db.pool, operator, { name: 'ops', url: receiverUrl, secret: 'a-very-secret-signing-key' });
    hookId = t.id;
    expect(t).toMatchObject({ name: 'ops', hasSecret: true, minSeverity: 'warning', enabled: true });
    const audit = await db.pool.query(`SELECT action, actor_label, after FROM audit_log WHERE action = 'webhook.create'`);
    expect(audit.rows[0]).toMatchObject({ actor_label: 'op@example.com', after: { name: 'ops', hasSecret: true } });
    expect(JSON.stringify(audit.rows)).not.toContain('a-very-secret');
    await expect(createWebhook(db.pool, operator, { name: 'ops', url: receiverUrl })).rejects.toThrow(/already exists/);
    await expect(createWebhook(db.pool, operator, { name: 'x', url: 'ftp://example.com' })).rejects.toThrow(/http/);
  });

  it('fired alert → signed webhook; acknowledge and silence are audited; a silenced resolution notifies nobody', async () => {
    await setPartitionDepths(db.pool, 'orders', [600, 10, 10, 10]);
    await evaluateAlerts(db.pool, at(600), policy);
    await evaluateAlerts(db.pool, at(630), policy);
    const alert = (await alerts('orders')).find((a) => a.rule === 'depth' && a.status === 'firing')!;
    expect(alert).toBeDefined();

    const sent = await deliverDueWebhooks(db.pool);
    expect(sent).toMatchObject({ delivered: 1, failed: 0 });
    const hit = received.find((r) => JSON.parse(r.body).alert?.id === alert.id)!;
    expect(hit.headers['x-sluice-event']).toBe('alert.fired');
    const body = JSON.parse(hit.body);
    expect(body.alert).toMatchObject({ task: 'orders', rule: 'depth', severity: 'critical', status: 'firing', value: 600 });
    expect(hit.headers['x-sluice-signature']).toBe(signBody('a-very-secret-signing-key', String(hit.headers['x-sluice-timestamp']), hit.body));
    const log = await db.pool.query(`SELECT status, attempts, response_status FROM webhook_deliveries WHERE alert_id = $1`, [alert.id]);
    expect(log.rows).toEqual([{ status: 'delivered', attempts: 1, response_status: 204 }]);

    const acked = await acknowledgeAlertById(db.pool, operator, { id: alert.id }, at(640));
    expect(acked).toMatchObject({ status: 'acknowledged', acknowledged_by: 'op@example.com' });
    await expect(acknowledgeAlertById(db.pool, operator, { id: alert.id })).rejects.toThrow(/only a firing alert/);
    await silenceAlertById(db.pool, operator, { id: alert.id, durationMs: 3600_000 }, at(641));
    const audit = await db.pool.query(`SELECT action, target_id, actor_label, after FROM audit_log WHERE target_type = 'alert' ORDER BY id`);
    expect(audit.rows.map((a) => a.action)).toEqual(['alert.acknowledge', 'alert.silence']);
    expect(audit.rows[0]).toMatchObject({ target_id: String(alert.id), actor_label: 'op@example.com', after: { status: 'acknowledged' } });

    // Auto-resolution while silenced: recorded, not sent.
    await setPartitionDepths(db.pool, 'orders', [0, 0, 0, 0]);
    await evaluateAlerts(db.pool, at(650), policy);
    await evaluateAlerts(db.pool, at(680), policy);
    const ev = await events(alert.id);
    expect(ev.map((e) => e.type)).toEqual(['fired', 'acknowledged', 'silenced', 'resolved']);
    expect(ev.at(-1)).toMatchObject({ silenced: true, actor: 'system' });
    const queued = await db.pool.query(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE alert_id = $1`, [alert.id]);
    expect(queued.rows[0].n).toBe(1);

    // The silence carries into the next episode of the same key while it lasts.
    await setPartitionDepths(db.pool, 'orders', [600, 10, 10, 10]);
    await evaluateAlerts(db.pool, at(700), policy);
    await evaluateAlerts(db.pool, at(730), policy);
    const next = (await alerts('orders')).find((a) => a.rule === 'depth' && a.status === 'firing')!;
    expect(next.id).not.toBe(alert.id);
    expect(next.silenced_until.getTime()).toBe(at(641).getTime() + 3600_000);
    expect((await events(next.id))[0]).toMatchObject({ type: 'fired', silenced: true });
  });

  it('manual resolve is audited and notifies; a persisting condition opens a new episode after forMs', async () => {
    const open = (await alerts('orders')).find((a) => a.rule === 'depth' && a.status === 'firing')!;
    await db.pool.query(`UPDATE alerts SET silenced_until = NULL WHERE id = $1`, [open.id]);
    const r = await resolveAlertById(db.pool, operator, { id: open.id }, at(740));
    expect(r).toMatchObject({ status: 'resolved', resolved_by: 'op@example.com' });
    await expect(resolveAlertById(db.pool, operator, { id: open.id })).rejects.toThrow(/already resolved/);
    const audit = await db.pool.query(`SELECT count(*)::int AS n FROM audit_log WHERE action = 'alert.resolve' AND target_id = $1`, [String(open.id)]);
    expect(audit.rows[0].n).toBe(1);
    expect((await db.pool.query(`SELECT event FROM webhook_deliveries WHERE alert_id = $1`, [open.id])).rows).toEqual([{ event: 'alert.resolved' }]);

    await evaluateAlerts(db.pool, at(750), policy);
    expect((await alerts('orders')).filter((a) => a.rule === 'depth' && a.status === 'pending')).toHaveLength(1);
    await evaluateAlerts(db.pool, at(780), policy);
    expect((await alerts('orders')).filter((a) => a.rule === 'depth' && a.status === 'firing')).toHaveLength(1);
    await expect(acknowledgeAlertById(db.pool, operator, { id: 999999 })).rejects.toThrow(/not found/);
    await expect(silenceAlertById(db.pool, operator, { id: open.id, durationMs: 5 })).rejects.toThrow(/at least one minute/);
  });

  it('a failing receiver is retried with backoff and the attempts are logged; min severity filters', async () => {
    await updateWebhook(db.pool, operator, { id: hookId, url: failingUrl, minSeverity: 'critical' });
    await db.pool.query(`DELETE FROM webhook_deliveries`);
    // A warning-level event: filtered out by min severity critical.
    await setPartitionDepths(db.pool, 'orders', [0, 0, 0, 0]);
    await evaluateAlerts(db.pool, at(800), policy);
    await evaluateAlerts(db.pool, at(830), policy); // the critical depth alert resolves → 1 delivery
    const d1 = await db.pool.query(`SELECT event FROM webhook_deliveries`);
    expect(d1.rows).toEqual([{ event: 'alert.resolved' }]);
    await setPartitionDepths(db.pool, 'orders', [200, 10, 10, 10]); // warning only
    await evaluateAlerts(db.pool, at(840), policy);
    await evaluateAlerts(db.pool, at(870), policy);
    expect((await db.pool.query(`SELECT count(*)::int AS n FROM webhook_deliveries`)).rows[0].n).toBe(1);

    const r = await deliverDueWebhooks(db.pool);
    expect(r).toMatchObject({ attempted: 1, retrying: 1, delivered: 0 });
    const row = (await db.pool.query(`SELECT status, attempts, response_status, last_error, next_attempt_at FROM webhook_deliveries`)).rows[0];
    expect(row).toMatchObject({ status: 'pending', attempts: 1, response_status: 503 });
    expect(row.last_error).toBe('HTTP 503: the receiver did not accept the delivery');
    expect(row.last_error).not.toMatch(/maintenance/); // the receiver's body is never stored
    expect(row.next_attempt_at.getTime()).toBeGreaterThan(Date.now() + 3000);
    // Not due yet: nothing is attempted.
    expect((await deliverDueWebhooks(db.pool)).attempted).toBe(0);
    // Exhaust the attempts.
    for (let i = 0; i < 4; i++) {
      await db.pool.query(`UPDATE webhook_deliveries SET next_attempt_at = now()`);
      await deliverDueWebhooks(db.pool);
    }
    const last = (await db.pool.query(`SELECT status, attempts FROM webhook_deliveries`)).rows[0];
    expect(last).toEqual({ status: 'failed', attempts: 5 });
  });

  it('open alerts of a task removed from the config resolve', async () => {
    expect((await alerts('orders')).some((a) => a.status === 'firing')).toBe(true);
    await applyTasks(db.pool, [
      { name: 'skewed', partitions: 4, routing: { strategy: 'hash', keyPath: 'tenant' } },
      { name: 'tenants', partitions: 1, groups: [{ name: 'tenant', limit: 5, keyPath: 'tenant' }] },
    ]);
    await evaluateAlerts(db.pool, at(900), policy);
    await evaluateAlerts(db.pool, at(930), policy);
    expect((await alerts('orders')).filter((a) => a.status !== 'resolved')).toEqual([]);
  });
});
