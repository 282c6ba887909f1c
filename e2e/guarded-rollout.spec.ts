// Guarded rollout (issue 20): an operator lowers the hot tenant's override 8 → 1 and
// applies it with guard (2 min bake); the backlog then climbs past the task's critical
// depth line, and the e2e server's own control plane (the evaluate-alerts job, every
// 15 s; the task's for-duration is 0 here) rolls the task back by itself. The operator
// watches it on the Coordinators page (baking with a countdown → rolled back by guard,
// with the alert as evidence) and the task's history; the database has the guard's end
// by the system, the restored definition and the audit records.
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { e2eEnv } from './support/e2e-env';
import { test, expect } from './support/fixtures';
import { e2eDb, seedUser, signInViaApi } from './support/factories';
import { shoot } from './support/shots';
import { applyConfig } from '../server/services/config-versions';
import { SYSTEM_ACTOR } from '../server/db/audit';
import { registerCoordinator } from '../server/db/coordinator-membership';
import { syncOwnership } from '../server/db/partition-ownership';
import { insertSamples, setPartitionDepths } from '../test/support/observe-fixtures';
import { rollupMetrics } from '../server/control-plane/services/rollup-metrics';
import type { TaskDefinitionInput } from '../server/core/task-definition';

async function seedTask(suffix: string) {
  const pool = e2eDb();
  const task = `guard-${suffix}`;
  const def: TaskDefinitionInput = {
    name: task,
    partitions: 2,
    concurrency: 40,
    groups: [{ name: 'tenant', limit: 8, keyPath: 'tenant', overrides: { globex: 8 } }],
    thresholds: { depth: { warning: 50, critical: 100 }, alertAfterMs: 0 },
  };
  const current = await pool.query<{ config: { tasks: TaskDefinitionInput[] } }>('SELECT config FROM config_versions ORDER BY version DESC LIMIT 1');
  const others = (current.rows[0]?.config.tasks ?? []).filter((t) => t.name !== task);
  await applyConfig(pool, SYSTEM_ACTOR, { tasks: [...others, def] }, { message: 'guard e2e seed' });
  // A live member owning both partitions (no coordinator process runs in e2e), so the only
  // critical this task can raise is the one the test causes.
  const me = await registerCoordinator(pool, { name: `e2e-guard-${suffix}`, host: 'e2e', pid: process.pid, tasks: [task], slots: 40, metricsPort: null });
  await pool.query(`UPDATE coordinators SET last_heartbeat_at = now() + interval '1 hour' WHERE id = $1`, [me]);
  await syncOwnership(pool, me, [{ task, partition: 0 }, { task, partition: 1 }], 3_600_000);
  return task;
}

/** Opens the task's review with globex lowered to 1. */
async function reviewLowered(page: Page, task: string) {
  await page.goto(`/tasks/${task}`);
  await page.getByLabel('Limit for globex in tenant', { exact: true }).fill('1');
  await page.getByRole('button', { name: 'Review changes' }).click();
  await page.getByLabel('Change message').fill('e2e: globex down to 1, guarded');
}

/** The review step with "Apply with guard" (state a reload would lose) at 1440 and 390 px, both themes, when SLUICE_SHOTS_DIR is set. */
async function shootReview(page: Page, task: string) {
  const dir = process.env.SLUICE_SHOTS_DIR;
  if (!dir) return;
  for (const theme of ['light', 'dark'] as const) {
    await page.context().addCookies([{ name: 'sluice_theme', value: theme, url: e2eEnv().baseUrl }]);
    for (const width of [1440, 390]) {
      await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
      await reviewLowered(page, task);
      await page.getByTestId('apply-with-guard').scrollIntoViewIfNeeded();
      await page.screenshot({ path: path.join(dir, `guard-review-${width}-${theme}.png`), fullPage: true });
    }
  }
  await page.setViewportSize({ width: 1280, height: 720 });
}

test('an operator applies with guard and watches the automatic rollback', async ({ page }) => {
  test.setTimeout(150_000);
  const op = await seedUser('operator');
  await signInViaApi(page.request, op);
  const db = e2eDb();
  const task = await seedTask(randomBytes(3).toString('hex'));

  await shootReview(page, task);
  await reviewLowered(page, task);
  const guardBox = page.getByTestId('apply-with-guard');
  await guardBox.getByLabel('Bake time').selectOption({ label: '2m' });
  await guardBox.getByRole('button', { name: 'Apply with guard' }).click();
  await expect(page.getByText(/Applied as config version \d+ with guard/)).toBeVisible();
  const version = (await db.query<{ v: number }>('SELECT max(version)::int AS v FROM config_versions')).rows[0]!.v;
  const g0 = (await db.query(`SELECT status, tasks, bake_ms, created_by FROM config_guards WHERE version = $1`, [version])).rows[0];
  expect(g0).toEqual({ status: 'baking', tasks: [task], bake_ms: 120_000, created_by: op.email });

  // Coordinators: baking, with the countdown running.
  await page.goto('/coordinators');
  const row = page.locator(`[data-guard-version="${version}"]`);
  await expect(row).toHaveAttribute('data-guard-status', 'baking');
  const countdown = row.getByTestId('guard-countdown');
  await expect(countdown).toContainText(/^[12]:\d\d left$/);
  const first = await countdown.textContent();
  await expect(countdown).not.toHaveText(first!, { timeout: 5000 });
  await shoot(page, 'guard-coordinators-baking');

  // The change bites: globex's backlog climbs past the critical line (100).
  await setPartitionDepths(db, task, [400, 380]);

  // The control plane's evaluator (every 15 s) fires the alert and the guard rolls back.
  await expect(row).toHaveAttribute('data-guard-status', 'rolled_back', { timeout: 60_000 });
  await expect(row).toContainText('rolled back by guard');
  await expect(row).toContainText('critical alert depth fired');
  await expect(row.getByRole('link', { name: /^alert \d+$/ })).toBeVisible();

  const g = (
    await db.query<{ status: string; ended_by: string; rollback_version: number; evidence: { rule: string; severity: string; alertId: number } }>(
      `SELECT status, ended_by, rollback_version::int, evidence FROM config_guards WHERE version = $1`,
      [version],
    )
  ).rows[0]!;
  expect(g).toMatchObject({ status: 'rolled_back', ended_by: 'system', evidence: { rule: 'depth', severity: 'critical' } });
  const restored = await db.query<{ def: { groups: { overrides: Record<string, number> }[] } }>(
    `SELECT jsonb_path_query_first(config, '$.tasks[*] ? (@.name == $n)', jsonb_build_object('n', $1::text)) AS def FROM config_versions WHERE version = $2`,
    [task, g.rollback_version],
  );
  expect(restored.rows[0]!.def.groups[0]!.overrides).toEqual({ globex: 8 });
  const audit = await db.query<{ action: string; actor_type: string }>(
    `SELECT action, actor_type FROM audit_log WHERE (action = 'config.guard.rollback' AND target_id = $1) OR (action = 'task.revert' AND target_id = $2) ORDER BY id`,
    [String(version), task],
  );
  expect(audit.rows).toEqual([
    { action: 'task.revert', actor_type: 'system' },
    { action: 'config.guard.rollback', actor_type: 'system' },
  ]);
  await row.scrollIntoViewIfNeeded();
  await shoot(page, 'guard-coordinators-rolled-back');

  // The task's history: the guarded version and the rollback it made.
  await page.goto(`/tasks/${task}/history`);
  await expect(page.locator(`li[data-version="${version}"]`).getByTestId('version-guard')).toContainText(`guarded · rolled back by guard → v${g.rollback_version}`);
  await expect(page.locator(`li[data-version="${g.rollback_version}"]`)).toContainText(`rollback of v${version} by guard`);
  await shoot(page, 'guard-task-history');

  // The task's charts mark the guarded apply and the rollback (samples for the last minutes
  // so the charts draw; the markers come from config_guards).
  const now = Date.now();
  const times: number[] = [];
  for (let t = now - 180_000; t <= now; t += 5000) times.push(t);
  await insertSamples(db, { task, partitions: 2, intervalMs: 5000, times, values: () => ({ depth: 390, arrivals: 5, processed: 1, inFlight: 1 }) });
  await rollupMetrics(db, new Date(now), { rebuild: true });
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto(`/?task=${task}&live=off`);
  const depthChart = page.getByTestId('chart-depth');
  await expect(depthChart).toHaveAttribute('data-state', 'ready');
  await expect(depthChart.locator('[data-testid="chart-marker"][data-kind="guarded"]')).toHaveCount(1);
  const rolledMarker = depthChart.locator('[data-testid="chart-marker"][data-kind="rolled-back"]');
  await expect(rolledMarker).toHaveCount(1);
  // The seed version (the task's creation), the guarded apply, the rollback: the rollback's
  // version is not drawn again as a plain config change.
  await expect(depthChart.locator('[data-testid="chart-marker"]')).toHaveCount(3);
  await rolledMarker.hover();
  await expect(page.getByTestId('chart-marker-tooltip')).toContainText(`v${version} rolled back by guard (v${g.rollback_version})`);
  await shoot(page, 'guard-chart-markers');
});

test('an operator chooses the guard’s rule: depth at warning rolls back on a warning the default rule would let pass', async ({ page }) => {
  test.setTimeout(150_000);
  const op = await seedUser('operator');
  await signInViaApi(page.request, op);
  const db = e2eDb();
  const task = await seedTask(randomBytes(3).toString('hex'));

  await reviewLowered(page, task);
  const guardBox = page.getByTestId('apply-with-guard');
  await expect(guardBox.getByLabel('Guard rule')).toHaveValue('');
  await expect(guardBox.getByLabel('Guard severity')).toHaveValue('critical');
  await guardBox.getByLabel('Guard rule').selectOption({ label: 'Partition depth' });
  await guardBox.getByLabel('Guard severity').selectOption({ label: 'at warning or critical' });
  await guardBox.getByLabel('Bake time').selectOption({ label: '5m' });
  await guardBox.getByRole('button', { name: 'Apply with guard' }).click();
  await expect(page.getByText(/Applied as config version \d+ with guard: it rolls back by itself if depth at warning or above of this task fires within 5m/)).toBeVisible();
  const version = (await db.query<{ v: number }>('SELECT max(version)::int AS v FROM config_versions')).rows[0]!.v;
  const g0 = (await db.query(`SELECT status, tasks, bake_ms, rule_severity, rule_name FROM config_guards WHERE version = $1`, [version])).rows[0];
  expect(g0).toEqual({ status: 'baking', tasks: [task], bake_ms: 300_000, rule_severity: 'warning', rule_name: 'depth' });

  await page.goto('/coordinators');
  const row = page.locator(`[data-guard-version="${version}"]`);
  await expect(row).toHaveAttribute('data-guard-status', 'baking');
  await expect(row).toContainText('Rolls back on depth at warning or above');

  // Above the warning line (50), below the critical one (100): only the chosen rule trips.
  await setPartitionDepths(db, task, [70, 60]);
  await expect(row).toHaveAttribute('data-guard-status', 'rolled_back', { timeout: 60_000 });
  await expect(row).toContainText('warning alert depth fired');
  const g = (await db.query<{ status: string; ended_by: string; evidence: { rule: string; severity: string } }>(`SELECT status, ended_by, evidence FROM config_guards WHERE version = $1`, [version])).rows[0]!;
  expect(g).toMatchObject({ status: 'rolled_back', ended_by: 'system', evidence: { rule: 'depth', severity: 'warning' } });
});
