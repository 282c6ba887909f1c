// End to end with a real coordinator process: skewed traffic (one hash key dominating)
// builds a backlog in one partition, the coordinator's sampler writes metric samples,
// the alert engine raises a hot-partition alert and a webhook receiver on 127.0.0.1
// gets the notification; once traffic evens out and the backlog drains, the alert
// resolves on its own and the receiver gets that too.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { testDatabase, type TestDatabase } from './db';
import { applyTasks } from '../support/engine-fixtures';
import { CoordinatorHarness, waitFor } from '../support/coordinator-harness';
import { enqueue } from '../../server/services/enqueue';
import { evaluateAlerts } from '../../server/services/alerts';
import { createWebhook, deliverDueWebhooks } from '../../server/services/webhooks';
import { rollupMetrics } from '../../server/control-plane/services/rollup-metrics';
import { getTaskPartitions } from '../../server/presenters/task-metrics';
import { hashPartition } from '../../server/core/routing';
import { DEFAULT_ALERT_POLICY, type AlertPolicy } from '../../server/core/alert-evaluation';
import type { Actor } from '../../server/db/audit';

// The receivers listen on 127.0.0.1, an address webhooks may reach only when allowed.
process.env.SLUICE_WEBHOOK_ALLOW_HOSTS = '127.0.0.1';

let db: TestDatabase;
let h: CoordinatorHarness;
let receiver: http.Server;
const received: { event: string; body: { alert?: { rule: string; partition?: number; subject: string; status: string } } }[] = [];
const admin: Actor = { type: 'user', id: null, label: 'admin@example.com' };
const PARTITIONS = 4;
// Short windows so the test runs in seconds; the detectors are the production ones.
const policy: AlertPolicy = {
  ...DEFAULT_ALERT_POLICY,
  forMs: 1000,
  clearForMs: 1500,
  windowMs: 4000,
  hotPartition: { factor: 3, floorDepth: 40 },
};

beforeAll(async () => {
  db = await testDatabase();
  h = new CoordinatorHarness(db.url);
  receiver = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      received.push({ event: String(req.headers['x-sluice-event']), body: JSON.parse(body) });
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
});

afterAll(async () => {
  await h.stopAll();
  receiver.close();
});

/** Tenants whose hash lands in each partition, `perPartition` of each. */
function tenantsByPartition(perPartition: number): string[][] {
  const out: string[][] = Array.from({ length: PARTITIONS }, () => []);
  for (let i = 0; out.some((l) => l.length < perPartition); i++) {
    const t = `tenant-${i}`;
    const p = hashPartition(t, PARTITIONS);
    if (out[p]!.length < perPartition) out[p]!.push(t);
  }
  return out;
}

describe('hot partition with real coordinators', () => {
  it('skewed traffic fires a hot-partition alert that notifies, then auto-resolves when traffic evens out', async () => {
    await applyTasks(db.pool, [{ name: 'skew', partitions: PARTITIONS, concurrency: 4, routing: { strategy: 'hash', keyPath: 'tenant' }, timeoutMs: 5000 }]);
    await createWebhook(db.pool, admin, { name: 'receiver', url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/alerts` });
    await h.start({ name: 'observe-a', handlers: 'test/support/handlers/observe-sleep.ts', slots: 4 });

    // One tenant dominates: 400 executions on its partition, 10 on each other partition.
    // The hot ones take 80 ms each (4 slots: ~8 s of backlog), so the hot partition is
    // still the deepest when the checks below run on a loaded machine; at 40 ms it could
    // drain before the later-enqueued rows of the other partitions ran, and the
    // drill-down check then saw another partition deeper.
    const hotTenant = 'acme';
    const hot = hashPartition(hotTenant, PARTITIONS);
    const spread = tenantsByPartition(3);
    const others = spread.flatMap((ts, p) => (p === hot ? [] : Array.from({ length: 10 }, (_, i) => ts[i % ts.length]!)));
    await enqueue(db.pool, 'skew', [
      ...Array.from({ length: 400 }, () => ({ payload: { tenant: hotTenant, sleepMs: 80 } })),
      ...others.map((tenant) => ({ payload: { tenant, sleepMs: 40 } })),
    ]);

    // The coordinator's sampler writes samples; the engine sees the hot partition.
    const firing = await waitFor(
      'a firing hot-partition alert',
      async () => {
        await evaluateAlerts(db.pool, new Date(), policy);
        const r = await db.pool.query(`SELECT * FROM alerts WHERE task = 'skew' AND rule = 'hotPartition' AND status = 'firing'`);
        return r.rows[0];
      },
      20_000,
      250,
    );
    expect(firing.partition).toBe(hot);
    expect(firing.evidence.reasons).toContain('depth');
    expect(firing.evidence.depths[hot]).toBeGreaterThan(40);
    expect(firing.remedy).toMatch(/Hash routing|drains/);
    const samples = await db.pool.query(`SELECT count(*)::int AS n FROM metric_samples WHERE task = 'skew'`);
    expect(samples.rows[0].n).toBeGreaterThan(0);

    await waitFor('the fired notification', async () => {
      await deliverDueWebhooks(db.pool);
      return received.find((r) => r.event === 'alert.fired' && r.body.alert?.rule === 'hotPartition');
    }, 10_000, 200);
    const fired = received.find((r) => r.event === 'alert.fired' && r.body.alert?.rule === 'hotPartition')!;
    expect(fired.body.alert).toMatchObject({ subject: String(hot), status: 'firing' });

    // The drill-down sees the same skew from roll-ups and live counters.
    await rollupMetrics(db.pool, new Date());
    const parts = await getTaskPartitions(db.pool, 'skew');
    expect(parts.partitions[hot]!.depth).toBe(Math.max(...parts.partitions.map((p) => p.depth)));
    expect(parts.partitions[hot]!.owner?.name).toBe('observe-a');

    // Traffic evens out: the same number per partition from now on, and the backlog drains.
    const even = tenantsByPartition(5).flatMap((ts) => ts.map((tenant) => ({ payload: { tenant, sleepMs: 5 } })));
    const resolved = await waitFor(
      'the hot-partition alert to resolve',
      async () => {
        await enqueue(db.pool, 'skew', even);
        await evaluateAlerts(db.pool, new Date(), policy);
        const r = await db.pool.query(`SELECT * FROM alerts WHERE id = $1 AND status = 'resolved'`, [firing.id]);
        return r.rows[0];
      },
      40_000,
      500,
    );
    expect(resolved.resolved_by).toBeNull();
    const events = await db.pool.query(`SELECT type FROM alert_events WHERE alert_id = $1 ORDER BY id`, [firing.id]);
    expect(events.rows.map((e) => e.type)).toEqual(['fired', 'resolved']);

    await waitFor('the resolved notification', async () => {
      await deliverDueWebhooks(db.pool);
      return received.find((r) => r.event === 'alert.resolved' && r.body.alert?.rule === 'hotPartition');
    }, 10_000, 200);
    const log = await db.pool.query(`SELECT event, status, response_status FROM webhook_deliveries WHERE alert_id = $1 ORDER BY id`, [firing.id]);
    expect(log.rows).toEqual([
      { event: 'alert.fired', status: 'delivered', response_status: 200 },
      { event: 'alert.resolved', status: 'delivered', response_status: 200 },
    ]);
  });
});
