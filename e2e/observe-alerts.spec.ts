// An operator opens a hot-partition alert (evidence chart, top keys, remedies linking to
// the task editor), acknowledges it, and the Audit page shows the acknowledgement. A
// viewer sees the same alert without the actions.
import { randomBytes } from 'node:crypto';
import { test, expect } from './support/fixtures';
import { e2eDb, seedUser, signInViaApi } from './support/factories';
import { seedObserve } from './support/observe-seed';

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
