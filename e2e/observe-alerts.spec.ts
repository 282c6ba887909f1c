// An operator opens a hot-partition alert (evidence chart, top keys, remedies linking to
// the task editor), acknowledges it, and the Audit page shows the acknowledgement. A
// viewer sees the same alert without the actions. Alert lists (Alerts page, Overview, a
// task's page) put critical first, then the newest; a resolved hot partition still shows
// the top keys it fired with.
import { randomBytes } from 'node:crypto';
import type { Locator } from '@playwright/test';
import { test, expect } from './support/fixtures';
import { e2eDb, seedUser, signInViaApi } from './support/factories';
import { seedObserve } from './support/observe-seed';
import { applyConfig } from '../server/services/config-versions';
import { SYSTEM_ACTOR } from '../server/db/audit';
import { evaluateAlerts } from '../server/services/alerts';
import { DEFAULT_ALERT_POLICY } from '../server/core/alert-evaluation';
import { setGroupKeyLoads, setPartitionDepths } from '../test/support/observe-fixtures';
import type { TaskDefinitionInput } from '../server/core/task-definition';

// Seeding 24 h of samples and rolling them up takes a few seconds on a busy machine.
test.describe.configure({ timeout: 90_000 });

test('an operator acknowledges a hot-partition alert and the audit log shows it', async ({ page }) => {
  const seed = await seedObserve(e2eDb(), randomBytes(3).toString('hex'));
  const db = e2eDb();
  const alert = (
    await db.query(`SELECT id FROM alerts WHERE task = $1 AND rule = 'hotPartition' AND status = 'firing'`, [seed.hotTask])
  ).rows[0] as { id: string };
  expect(alert).toBeDefined();
  const operator = await seedUser('operator', 'observe-op');
  await signInViaApi(page.request, operator);

  // From the Overview: the task card's "N alerts" opens the task's open alerts.
  await page.goto(`/?task=${seed.hotTask}&live=off`);
  const open = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM alerts WHERE task = $1 AND status = 'firing'`, [seed.hotTask]);
  const cardAlerts = page.getByTestId(`task-card-alerts-${seed.hotTask}`);
  await expect(cardAlerts).toHaveText(`${open.rows[0]!.n} alert${open.rows[0]!.n === 1 ? '' : 's'}`);
  await cardAlerts.click();
  await expect(page).toHaveURL(new RegExp(`/alerts\\?(.*&)?task=${seed.hotTask}`));
  const row = page.getByTestId(`alert-row-${alert.id}`);
  await expect(row).toContainText(`Hot partition — ${seed.hotTask} partition ${seed.hotPartition}`);
  await row.click();
  await expect(page).toHaveURL(new RegExp(`alert=${alert.id}`));

  const detail = page.getByTestId('alert-detail');
  await expect(detail).toHaveAttribute('data-alert-id', String(alert.id));
  await expect(detail).toHaveAttribute('data-status', 'firing');
  // Evidence: the partition against its siblings, drawn from roll-ups.
  const chart = detail.getByTestId('chart-alert-evidence');
  await expect(chart).toHaveAttribute('data-state', 'ready');
  await expect(chart.getByTestId('chart-legend')).toContainText(`partition ${seed.hotPartition}`);
  await expect(chart.getByTestId('chart-legend')).toContainText('siblings median');
  await expect(detail.getByTestId('alert-evidence-text')).toContainText('routing hash');
  await expect(detail.getByTestId('alert-top-keys')).toContainText('tenant=acme');
  // Remedies link into the task editor.
  const routing = detail.getByTestId('alert-remedies').getByRole('link', { name: 'Change routing →' });
  await expect(routing).toHaveAttribute('href', `/tasks/${seed.hotTask}#sec-routing`);
  await expect(detail.getByTestId('alert-remedies').getByRole('link', { name: 'Add partitions →' })).toHaveAttribute('href', `/tasks/${seed.hotTask}#sec-general`);

  await detail.getByRole('button', { name: 'Acknowledge' }).click();
  await expect(detail).toHaveAttribute('data-status', 'acknowledged');
  await expect(detail.getByTestId('alert-history')).toContainText(`Acknowledged by ${operator.email}`, { ignoreCase: true });
  const stored = await db.query(`SELECT status, acknowledged_by FROM alerts WHERE id = $1`, [alert.id]);
  expect(stored.rows[0]).toEqual({ status: 'acknowledged', acknowledged_by: operator.email });

  await page.goto(`/audit?action=alert.acknowledge&targetId=${alert.id}`);
  const audit = page.getByRole('row').filter({ hasText: 'alert.acknowledge' });
  await expect(audit).toHaveCount(1);
  await expect(audit.first()).toContainText(operator.email);
  const rows = await db.query(`SELECT actor_label, after FROM audit_log WHERE action = 'alert.acknowledge' AND target_id = $1`, [String(alert.id)]);
  expect(rows.rows).toEqual([{ actor_label: operator.email, after: expect.objectContaining({ status: 'acknowledged', acknowledgedBy: operator.email }) }]);
});

test('a viewer sees alerts without the operator actions', async ({ page }) => {
  const seed = await seedObserve(e2eDb(), randomBytes(3).toString('hex'));
  const viewer = await seedUser('viewer', 'observe-viewer');
  await signInViaApi(page.request, viewer);
  await page.goto(`/alerts?task=${seed.hotTask}&rule=hotKey`);
  const detail = page.getByTestId('alert-detail');
  await expect(detail).toContainText(`${seed.hotTask} tenant=acme`);
  await expect(detail.getByRole('button', { name: 'Acknowledge' })).toHaveCount(0);
  await expect(detail).toContainText('Operators can acknowledge');
  await expect(detail.getByTestId('alert-remedies').getByRole('link', { name: 'Override tenant=acme →' })).toHaveAttribute(
    'href',
    `/tasks/${seed.hotTask}?override=tenant%3Dacme#sec-groups`,
  );
  await expect(detail.getByTestId('alert-remedies').getByRole('link', { name: 'Open the keys view →' })).toHaveAttribute(
    'href',
    `/tasks/${seed.hotTask}/keys?group=tenant&key=acme`,
  );
  // and the key's own queued executions, where each says what holds it
  await expect(detail.getByTestId('alert-remedies').getByRole('link', { name: /^Queued executions of tenant=acme/ })).toHaveAttribute(
    'href',
    `/executions?task=${seed.hotTask}&state=queued&group=tenant%3Dacme`,
  );
});

/** A task with a tenant group, added on top of the current config (other specs' tasks stay). */
async function addTask(task: string): Promise<void> {
  const db = e2eDb();
  const current = await db.query<{ config: { tasks: TaskDefinitionInput[] } }>('SELECT config FROM config_versions ORDER BY version DESC LIMIT 1');
  const tasks = [...(current.rows[0]?.config.tasks ?? []), { name: task, partitions: 4, groups: [{ name: 'tenant', limit: 5, keyPath: 'tenant' }] }];
  await applyConfig(db, SYSTEM_ACTOR, { tasks }, { message: `e2e ${task}` });
}

/** The alert rows of a list as shown: id, severity, firing time. */
async function shownAlerts(list: Locator): Promise<{ id: number; severity: string; firedAt: number }[]> {
  return list.locator('[data-testid^="alert-row-"]').evaluateAll((els) =>
    els.map((e) => ({
      id: Number(e.getAttribute('data-testid')!.slice('alert-row-'.length)),
      severity: e.getAttribute('data-severity')!,
      firedAt: Number(e.getAttribute('data-fired-at')),
    })),
  );
}

/** Critical before warning, then the newest fired first (ties: the higher id). */
function inListOrder(rows: { id: number; severity: string; firedAt: number }[]): boolean {
  const rank = (s: string) => (s === 'critical' ? 0 : 1);
  return rows.every((r, i) => {
    const p = rows[i - 1];
    if (!p) return true;
    return rank(p.severity) < rank(r.severity) || (rank(p.severity) === rank(r.severity) && (p.firedAt > r.firedAt || (p.firedAt === r.firedAt && p.id > r.id)));
  });
}

test('alerts are listed critical first, then the newest, on the Alerts page, the Overview and the task page', async ({ page }) => {
  const db = e2eDb();
  const task = `ordered-${randomBytes(3).toString('hex')}`;
  await addTask(task);
  // One deep partition: depth and imbalance warnings, a critical hot partition; a second
  // later, one tenant dominates: a critical hot key, the newest.
  await setPartitionDepths(db, task, [3000, 10, 10, 10]);
  const policy = { ...DEFAULT_ALERT_POLICY, forMs: 0 };
  const t0 = Date.now();
  await evaluateAlerts(db, new Date(t0 - 1000), policy);
  await setGroupKeyLoads(db, task, 'tenant', { acme: { inFlight: 5, queued: 2500 }, globex: { inFlight: 1, queued: 40 } });
  await evaluateAlerts(db, new Date(t0), policy);
  const seed = { hotTask: task };
  const want = (
    await db.query<{ id: string; severity: string; rule: string }>(
      `SELECT id, severity, rule FROM alerts WHERE task = $1 AND status IN ('firing', 'acknowledged')
        ORDER BY CASE severity WHEN 'critical' THEN 0 ELSE 1 END, fired_at DESC, id DESC`,
      [seed.hotTask],
    )
  ).rows;
  expect(want.map((r) => `${r.rule}=${r.severity}`).slice(0, 2)).toEqual(['hotKey=critical', 'hotPartition=critical']);
  expect(new Set(want.slice(2).map((r) => `${r.rule}=${r.severity}`))).toEqual(new Set(['depth=warning', 'imbalance=warning']));
  const ids = want.map((r) => Number(r.id));
  const viewer = await seedUser('viewer', 'alert-order');
  await signInViaApi(page.request, viewer);

  await page.goto(`/alerts?task=${seed.hotTask}`);
  const list = page.getByTestId('alert-list');
  await expect(list.locator('[data-testid^="alert-row-"]')).toHaveCount(ids.length);
  expect((await shownAlerts(list)).map((r) => r.id)).toEqual(ids);
  // The first is selected: the most severe, newest alert.
  await expect(page.getByTestId('alert-detail')).toHaveAttribute('data-alert-id', String(ids[0]));

  // The task's page lists its open alerts the same way (the first five).
  await page.goto(`/tasks/${seed.hotTask}/metrics`);
  const taskList = page.getByTestId('open-alerts-list');
  await expect(taskList.locator('[data-testid^="alert-row-"]')).toHaveCount(Math.min(5, ids.length));
  expect((await shownAlerts(taskList)).map((r) => r.id)).toEqual(ids.slice(0, 5));
  await expect(page.getByTestId('open-alerts').getByRole('link', { name: /open alerts|Alerts page/ })).toHaveAttribute('href', `/alerts?task=${seed.hotTask}`);

  // The Overview lists every task's open alerts in the same order.
  await page.goto('/?live=off');
  const overview = page.getByTestId('open-alerts-list');
  await expect(overview.locator('[data-testid^="alert-row-"]').first()).toBeVisible();
  const shown = await shownAlerts(overview);
  expect(shown.length).toBeGreaterThan(0);
  expect(inListOrder(shown), JSON.stringify(shown)).toBe(true);
  await overview.locator('[data-testid^="alert-row-"]').first().click();
  await expect(page).toHaveURL(new RegExp(`/alerts\\?alert=${shown[0]!.id}$`));
});

test("a hot partition's evidence keeps its top keys after it resolves, with no hot-key alert beside it", async ({ page }) => {
  const db = e2eDb();
  const task = `spread-${randomBytes(3).toString('hex')}`;
  await addTask(task);
  // One deep partition; the load is spread over three tenants, none dominant.
  await setPartitionDepths(db, task, [3000, 10, 10, 10]);
  await setGroupKeyLoads(db, task, 'tenant', { north: { inFlight: 2, queued: 1000 }, south: { inFlight: 2, queued: 990 }, west: { inFlight: 1, queued: 980 } });
  const policy = { ...DEFAULT_ALERT_POLICY, forMs: 0 };
  const t0 = Date.now();
  await evaluateAlerts(db, new Date(t0), policy);
  const fired = await db.query<{ id: string; evidence: { topKeys: { key: string }[] } }>(
    `SELECT id, evidence FROM alerts WHERE task = $1 AND rule = 'hotPartition' AND status = 'firing'`,
    [task],
  );
  expect(fired.rows).toHaveLength(1);
  const id = fired.rows[0]!.id;
  expect(fired.rows[0]!.evidence.topKeys.map((k) => k.key)).toEqual(['north', 'south', 'west']);
  expect((await db.query(`SELECT 1 FROM alerts WHERE task = $1 AND rule = 'hotKey'`, [task])).rowCount).toBe(0);

  // The keys drain, then the partition; clear for the policy's clear time, the evaluator resolves it.
  await db.query(`DELETE FROM group_slots WHERE task = $1`, [task]);
  await evaluateAlerts(db, new Date(t0 + 5_000), policy);
  await setPartitionDepths(db, task, [10, 10, 10, 10]);
  await evaluateAlerts(db, new Date(t0 + 10_000), policy);
  await evaluateAlerts(db, new Date(t0 + 10_000 + policy.clearForMs), policy);
  const resolved = await db.query<{ status: string; resolved_by: string | null; evidence: { topKeys: unknown[] } }>(`SELECT status, resolved_by, evidence FROM alerts WHERE id = $1`, [id]);
  expect(resolved.rows[0]).toMatchObject({ status: 'resolved', resolved_by: null });
  expect(resolved.rows[0]!.evidence.topKeys).toHaveLength(3);

  const viewer = await seedUser('viewer', 'evidence-keys');
  await signInViaApi(page.request, viewer);
  await page.goto(`/alerts?status=resolved&task=${task}&alert=${id}`);
  const detail = page.getByTestId('alert-detail');
  await expect(detail).toHaveAttribute('data-status', 'resolved');
  const keys = detail.getByTestId('alert-top-keys');
  await expect(keys).toHaveAttribute('data-at', 'episode');
  await expect(detail.getByRole('heading', { name: /Top group keys during the episode/ })).toContainText('as recorded while it fired');
  await expect(keys.getByRole('listitem')).toHaveCount(3);
  await expect(keys.getByRole('listitem').nth(0)).toContainText('tenant=north');
  await expect(keys.getByRole('listitem').nth(0)).toContainText('1000 queued · 2 running');
  await expect(keys).toContainText('tenant=south');
  await expect(keys).toContainText('tenant=west');
});
