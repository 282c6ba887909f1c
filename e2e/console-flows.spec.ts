// Operator flows of issue #17: acknowledge with a comment (history and database), silence
// and un-silence, related alerts shown as one incident; a replay frozen at confirmation
// whose job shows what became of its executions (each linked). Screenshots of the pages
// at 1440 / 1280 / 390 px, light and dark, go to SLUICE_SHOTS_DIR when it is set.
import { randomBytes } from 'node:crypto';
import { test, expect } from './support/fixtures';
import { e2eDb, seedUser, signInViaApi } from './support/factories';
import { shoot } from './support/shots';
import { seedObserve } from './support/observe-seed';
import { applyConfig, currentConfig } from '../server/services/config-versions';
import { SYSTEM_ACTOR } from '../server/db/audit';
import { insertDeadLetters } from '../test/support/dead-letter-fixtures';
import { fakeCoordinator } from '../test/support/engine-fixtures';
import { claimExecutions } from '../server/db/claim-executions';
import { finishExecutions } from '../server/db/finish-executions';

test.describe.configure({ timeout: 120_000 });

test('acknowledge with a comment shows in the history and the database; silence and un-silence; related alerts as one incident', async ({ page }) => {
  const db = e2eDb();
  const seed = await seedObserve(db, randomBytes(3).toString('hex'));
  const alert = (await db.query<{ id: string }>(`SELECT id FROM alerts WHERE task = $1 AND rule = 'hotPartition' AND status = 'firing'`, [seed.hotTask])).rows[0]!;
  const open = await db.query<{ id: string }>(`SELECT id FROM alerts WHERE task = $1 AND status IN ('firing', 'acknowledged') AND fired_at IS NOT NULL`, [seed.hotTask]);
  const operator = await seedUser('operator', 'flows-op');
  await signInViaApi(page.request, operator);

  await page.goto(`/alerts?task=${seed.hotTask}&alert=${alert.id}`);
  // The task's open alerts overlap in time: one incident in the list, and named in the detail.
  if (open.rows.length > 1) {
    const incident = page.locator('[data-testid^="alert-incident-"]');
    await expect(incident).toHaveCount(1);
    await expect(incident).toContainText(`${open.rows.length} alerts`);
    await expect(page.getByTestId('alert-detail').getByTestId('alert-incident').getByRole('listitem')).toHaveCount(open.rows.length - 1);
  }
  const detail = page.getByTestId('alert-detail');
  await expect(detail).toHaveAttribute('data-status', 'firing');
  await detail.getByLabel('Comment (optional, kept in the history)').fill('partition 2 hot after the import; rerouting');
  await detail.getByRole('button', { name: 'Acknowledge' }).click();
  await expect(detail).toHaveAttribute('data-status', 'acknowledged');
  const history = detail.getByTestId('alert-history');
  await expect(history.getByTestId('alert-event-comment')).toHaveText('partition 2 hot after the import; rerouting');
  await expect(history).toContainText('after firing');
  const ack = await db.query(`SELECT e.actor, e.detail FROM alert_events e WHERE e.alert_id = $1 AND e.type = 'acknowledged'`, [alert.id]);
  expect(ack.rows).toEqual([{ actor: operator.email, detail: { comment: 'partition 2 hot after the import; rerouting' } }]);
  const audit = await db.query(`SELECT meta FROM audit_log WHERE action = 'alert.acknowledge' AND target_id = $1`, [alert.id]);
  expect(audit.rows[0].meta).toMatchObject({ comment: 'partition 2 hot after the import; rerouting' });

  // Silence for an hour with a comment, then un-silence.
  await detail.getByLabel('Comment (optional, kept in the history)').fill('vendor says fixed within the hour');
  await detail.getByRole('button', { name: 'Silence', exact: true }).click();
  await expect(detail.getByText(/Silenced until/)).toBeVisible();
  await expect(history.getByTestId('alert-event-comment')).toHaveCount(2);
  await expect(history).toContainText('for 1 h');
  const silenced = await db.query(`SELECT silenced_until > now() AS on, silenced_by FROM alerts WHERE id = $1`, [alert.id]);
  expect(silenced.rows[0]).toEqual({ on: true, silenced_by: operator.email });
  await shoot(page, 'alerts');

  await detail.getByRole('button', { name: 'Un-silence' }).click();
  await expect(detail.getByText(/Silenced until/)).toHaveCount(0);
  await expect(history).toContainText('Un-silenced');
  const after = await db.query(`SELECT silenced_until, silenced_by FROM alerts WHERE id = $1`, [alert.id]);
  expect(after.rows[0]).toEqual({ silenced_until: null, silenced_by: null });
  const types = await db.query<{ type: string }>(`SELECT type FROM alert_events WHERE alert_id = $1 ORDER BY id`, [alert.id]);
  expect(types.rows.map((r) => r.type)).toEqual(['fired', 'acknowledged', 'silenced', 'unsilenced']);
  expect((await db.query(`SELECT count(*)::int AS n FROM audit_log WHERE action = 'alert.unsilence' AND target_id = $1`, [alert.id])).rows[0].n).toBe(1);
});

test('a replay is frozen at confirmation and its job shows the outcome of each new execution', async ({ page }) => {
  const db = e2eDb();
  const task = `replay-e2e-${randomBytes(3).toString('hex')}`;
  const cur = await currentConfig(db);
  await applyConfig(db, SYSTEM_ACTOR, { tasks: [...cur.config.tasks, { name: task, partitions: 1, retry: { maxAttempts: 1 } }] }, { message: 'replay e2e' });
  const first = await insertDeadLetters(db, Array.from({ length: 4 }, (_, i) => ({ task, fingerprint: 'rp', payload: { n: i }, error: `Error: boom ${i}` })));
  const operator = await seedUser('operator', 'replay-op');
  await signInViaApi(page.request, operator);

  await page.goto(`/dead-letters?task=${task}`);
  await expect(page.getByTestId('dlq-count')).toHaveText('4 matching');
  await page.getByRole('button', { name: /^Replay all 4 matching/ }).click();
  const dialog = page.getByRole('dialog', { name: 'Replay dead letters' });
  await expect(dialog.getByTestId('replay-frozen-count')).toHaveText('4 dead letters frozen');
  // A bad rate says why Start is disabled.
  const rate = dialog.getByLabel('Rate (executions per second)');
  await rate.fill('0');
  await expect(dialog.getByTestId('frozen-set-blocked')).toHaveText('Start is disabled: the rate must be above 0 (leave it empty for unlimited).');
  await expect(dialog.getByRole('button', { name: /Start replay/ })).toBeDisabled();
  await rate.fill('');
  // A matching dead letter arrives while the dialog is open: it is not in the frozen set.
  const [late] = await insertDeadLetters(db, [{ task, fingerprint: 'rp', payload: { late: true }, error: 'Error: late' }]);
  await dialog.getByRole('button', { name: 'Start replay of 4' }).click();
  await expect(dialog.getByText(/Replay job #\d+ created/)).toBeVisible();
  const jobId = Number((await dialog.getByText(/Replay job #\d+/).textContent())!.match(/#(\d+)/)![1]);
  await dialog.getByRole('button', { name: 'Close', exact: true }).click();

  const job = page.getByTestId(`replay-job-${jobId}`);
  await expect(job).toContainText('completed', { timeout: 30_000 });
  await expect(job).toContainText('4 replayed');
  const lateRow = await db.query(`SELECT replayed_at FROM dead_letters WHERE id = $1`, [late!.id]);
  expect(lateRow.rows[0].replayed_at).toBeNull();
  const replayed = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM dead_letters WHERE id = ANY ($1::bigint[]) AND replay_execution_id IS NOT NULL`, [first.map((d) => d.id)]);
  expect(replayed.rows[0]!.n).toBe(4);
  await expect(page.getByTestId(`replay-outcomes-${jobId}`)).toContainText('4 still running');

  // A coordinator runs them: two succeed, one fails again, one is still running.
  const coord = await fakeCoordinator(db, [task]);
  const claimed = await claimExecutions(db, coord, task, 3, 60_000);
  expect(claimed).toHaveLength(3);
  await finishExecutions(db, task, [
    { id: claimed[0]!.id, leaseToken: claimed[0]!.leaseToken, outcome: 'succeeded' },
    { id: claimed[1]!.id, leaseToken: claimed[1]!.leaseToken, outcome: 'succeeded' },
    { id: claimed[2]!.id, leaseToken: claimed[2]!.leaseToken, outcome: 'dead', error: 'Error: still broken', fingerprint: 'rp2' },
  ]);
  const outcomes = page.getByTestId(`replay-outcomes-${jobId}`);
  await expect(outcomes).toContainText('2 succeeded', { timeout: 20_000 });
  await expect(outcomes).toContainText('1 failed again');
  await expect(outcomes).toContainText('1 still running');
  await job.getByRole('button', { name: 'Show executions' }).click();
  const list = page.getByTestId(`replay-executions-${jobId}`);
  await expect(list.getByRole('listitem')).toHaveCount(4);
  const dead = list.locator('li[data-outcome="failedAgain"]');
  await expect(dead.getByRole('link', { name: `#${claimed[2]!.id}` })).toHaveAttribute('href', `/executions/${claimed[2]!.id}`);
  const items = await db.query<{ execution_id: string }>(`SELECT execution_id FROM dlq_replay_items WHERE job_id = $1 ORDER BY dead_letter_id`, [jobId]);
  for (const r of items.rows) await expect(list.getByRole('link', { name: `#${r.execution_id}` })).toHaveAttribute('href', `/executions/${r.execution_id}`);
  await shoot(page, 'dead-letters-replay');
});
