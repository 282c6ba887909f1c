// The circuit breaker in the console (issue 23): an operator sees a task's tripped breaker
// with when and why, resets it, and the database holds the closed state, the transition
// with the operator's name and the audit record; a viewer sees it without the reset and a
// forged reset is refused. The trip is made by the coordinators' own write
// (server/coordinator/breaker-store.ts recordBreakerOutcomes), not by hand.
import { randomBytes } from 'node:crypto';
import { test, expect } from './support/fixtures';
import { e2eDb, seedUser, signInViaApi, trpcMutation } from './support/factories';
import { shoot } from './support/shots';
import { applyConfig, currentConfig } from '../server/services/config-versions';
import { SYSTEM_ACTOR } from '../server/db/audit';
import { recordBreakerOutcomes } from '../server/coordinator/breaker-store';
import { taskDefinitionSchema } from '../server/core/task-definition';

test.describe.configure({ timeout: 300_000 });

test('an operator sees a tripped breaker and its reason, and resets it; a viewer cannot', async ({ page, browser }) => {
  const db = e2eDb();
  const task = `breaker-e2e-${randomBytes(3).toString('hex')}`;
  const def = { name: task, partitions: 1, circuitBreaker: { enabled: true, windowMs: 60_000, failureRate: 0.5, minCalls: 10, coolDownMs: 600_000, probes: 2 } };
  const cur = await currentConfig(db);
  await applyConfig(db, SYSTEM_ACTOR, { tasks: [...cur.config.tasks, def] }, { message: 'breaker e2e' });
  const settings = taskDefinitionSchema.parse(def).circuitBreaker;
  const trip = await recordBreakerOutcomes(db, task, settings, { ok: 3, failed: 9 });
  expect(trip.transition?.to).toBe('open');
  const reason = '9 of 12 executions failed in 60000 ms (threshold 50%)';

  // A viewer sees the state and the reason, without the reset; a forged reset is refused.
  const viewer = await seedUser('viewer', 'breaker-viewer');
  const vctx = await browser.newContext();
  const vpage = await vctx.newPage();
  await signInViaApi(vpage.request, viewer);
  await vpage.goto(`/tasks/${task}`);
  await expect(vpage.getByTestId('breaker-state')).toHaveText('open');
  await expect(vpage.getByTestId('breaker-reason')).toHaveText(`Not claimed: ${reason}`);
  await expect(vpage.getByTestId('breaker-reset')).toHaveCount(0);
  const forged = await trpcMutation(vpage.request, 'tasks.resetBreaker', { name: task });
  expect(forged.status).toBe(403);
  expect((await db.query(`SELECT state FROM task_breakers WHERE task = $1`, [task])).rows[0].state).toBe('open');
  await vctx.close();

  const operator = await seedUser('operator', 'breaker-op');
  await signInViaApi(page.request, operator);
  await page.goto(`/tasks/${task}`);
  const panel = page.getByTestId('breaker-panel');
  await expect(page.getByTestId('breaker-state')).toHaveText('open');
  await expect(page.getByTestId('breaker-reason')).toHaveText(`Not claimed: ${reason}`);
  await expect(panel).toContainText('probes from');
  await expect(page.getByTestId('breaker-events')).toContainText('closed → open');
  await page.getByTestId('breaker-panel').scrollIntoViewIfNeeded();
  await shoot(page, 'breaker-open');

  // The Overview: the task's card says the circuit is open and links to the breaker panel;
  // the fleet strip counts the open circuits (as the database has them, other specs' too).
  await page.goto('/');
  const cardBreaker = page.getByTestId(`task-card-breaker-${task}`);
  await expect(cardBreaker).toHaveText('Circuit open');
  await expect(cardBreaker).toHaveAttribute('title', reason);
  const openNow = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM task_breakers b JOIN task_runtime t ON t.task = b.task
     WHERE b.state <> 'closed' AND t.active AND (t.definition -> 'circuitBreaker' ->> 'enabled')::boolean`,
  );
  expect(openNow.rows[0]!.n).toBeGreaterThanOrEqual(1);
  await expect(page.getByTestId('fleet-breakers-open')).toContainText(String(openNow.rows[0]!.n));
  await shoot(page, 'overview-breaker-open');
  await page.getByTestId(`task-card-breaker-${task}`).click();
  await expect(page).toHaveURL(new RegExp(`/tasks/${task}#task-breaker$`));
  await expect(page.getByTestId('breaker-state')).toHaveText('open');

  await page.getByTestId('breaker-reset').click();
  await expect(page.getByTestId('breaker-state')).toHaveText('closed');
  await expect(page.getByTestId('breaker-reason')).toHaveCount(0);
  await expect(page.getByTestId('breaker-events')).toContainText(`open → closed`);
  await expect(page.getByTestId('breaker-events')).toContainText(`reset by ${operator.email}`);

  const row = await db.query(`SELECT state, reason, trips_total::int AS trips FROM task_breakers WHERE task = $1`, [task]);
  expect(row.rows[0]).toEqual({ state: 'closed', reason: `reset by ${operator.email}`, trips: 1 });
  const ev = await db.query(`SELECT from_state, to_state, actor FROM task_breaker_events WHERE task = $1 ORDER BY id DESC LIMIT 1`, [task]);
  expect(ev.rows[0]).toEqual({ from_state: 'open', to_state: 'closed', actor: operator.email });
  const audit = await db.query(`SELECT actor_label, before->>'state' AS before FROM audit_log WHERE action = 'task.breaker.reset' AND target_id = $1`, [task]);
  expect(audit.rows).toEqual([{ actor_label: operator.email, before: 'open' }]);
  await shoot(page, 'breaker-closed');
  await page.goto('/');
  await expect(page.getByTestId(`task-card-${task}`)).toBeVisible();
  await expect(page.getByTestId(`task-card-breaker-${task}`)).toHaveCount(0);
});
