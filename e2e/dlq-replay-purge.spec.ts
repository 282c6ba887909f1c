// Dead letters in the browser: filter by fingerprint, replay the selection and watch the
// job's progress complete (the control-plane runner inside the Next server does the
// work), purge by filter with the typed confirmation — only the frozen set goes, a dead
// letter arriving after the preview stays — and both show on the Audit page.
import { randomBytes } from 'node:crypto';
import { test, expect } from './support/fixtures';
import { e2eDb, seedUser, signInViaApi } from './support/factories';
import { applyConfig, currentConfig } from '../server/services/config-versions';
import { SYSTEM_ACTOR } from '../server/db/audit';
import { insertDeadLetters } from '../test/support/dead-letter-fixtures';

async function seedTask(): Promise<string> {
  const task = `dlq-e2e-${randomBytes(3).toString('hex')}`;
  const db = e2eDb();
  const cur = await currentConfig(db);
  await applyConfig(db, SYSTEM_ACTOR, { tasks: [...cur.config.tasks, { name: task, partitions: 2, groups: [{ name: 'tenant', limit: 3, keyPath: 'tenant' }] }] }, { message: 'dlq e2e' });
  return task;
}

test('filter by fingerprint, replay the selection, watch progress complete; purge by filter with typed confirmation; both audited', async ({ page }) => {
  test.setTimeout(90_000);
  const db = e2eDb();
  const task = await seedTask();
  const fpDeclined = `de${randomBytes(6).toString('hex')}`;
  const fpTimeout = `ti${randomBytes(6).toString('hex')}`;
  const base = Date.now() - 3_600_000;
  await insertDeadLetters(db, [
    ...Array.from({ length: 6 }, (_, i) => ({ task, fingerprint: fpDeclined, payload: { tenant: 'acme', n: i }, groups: { tenant: 'acme' }, error: `CardDeclinedError: declined #${i}`, deadAt: new Date(base + i * 1000) })),
    ...Array.from({ length: 4 }, (_, i) => ({ task, fingerprint: fpTimeout, payload: { tenant: 'globex', n: i }, groups: { tenant: 'globex' }, error: `TimeoutError: upstream timed out #${i}`, deadAt: new Date(base + 10_000 + i * 1000) })),
  ]);
  const op = await seedUser('operator', 'dlq-op');
  await signInViaApi(page.request, op);

  // Browse the task; narrow to one fingerprint from the groups panel (the URL carries it).
  await page.goto(`/dead-letters?task=${task}`);
  await expect(page.getByTestId('dlq-count')).toHaveText('10 matching');
  await page.getByRole('link', { name: `Filter by fingerprint ${fpDeclined}` }).click();
  await expect(page).toHaveURL(new RegExp(`fingerprint=${fpDeclined}`));
  await expect(page.getByTestId('dlq-count')).toHaveText('6 matching');
  const rows = page.locator('[data-testid^="dead-letter-row-"]');
  await expect(rows).toHaveCount(6);

  // Select three and replay them at 2 per second.
  const ids: number[] = [];
  for (let i = 0; i < 3; i++) {
    const row = rows.nth(i);
    ids.push(Number((await row.getAttribute('data-testid'))!.replace('dead-letter-row-', '')));
    await row.getByRole('checkbox').check();
  }
  await page.getByRole('button', { name: 'Replay selected' }).click();
  const dialog = page.getByRole('dialog', { name: 'Replay dead letters' });
  // Opening the dialog freezes the set: the count shown is the count replayed.
  await expect(dialog.getByTestId('replay-frozen-count')).toHaveText('3 dead letters frozen');
  await dialog.getByLabel('Rate (executions per second)').fill('2');
  await dialog.getByRole('button', { name: 'Start replay' }).click();
  await expect(dialog.getByText(/Replay job #\d+ created/)).toBeVisible();
  const jobId = Number((await dialog.getByText(/Replay job #\d+/).textContent())!.match(/#(\d+)/)![1]);
  await dialog.getByRole('button', { name: 'Close', exact: true }).click();

  // Progress completes in the replay jobs panel.
  const job = page.getByTestId(`replay-job-${jobId}`);
  await expect(job.getByRole('progressbar')).toBeVisible();
  await expect(job).toContainText('completed', { timeout: 30_000 });
  await expect(job.getByRole('progressbar')).toHaveAttribute('aria-valuenow', '3');
  await expect(job).toContainText('3 replayed');
  const replayed = await db.query<{ id: number; replay_execution_id: number | null }>(
    `SELECT id, replay_execution_id FROM dead_letters WHERE id = ANY ($1::bigint[]) ORDER BY id`,
    [ids],
  );
  expect(replayed.rows.every((r) => r.replay_execution_id !== null)).toBe(true);
  const execs = await db.query(`SELECT count(*)::int AS n FROM executions WHERE task = $1 AND id = ANY ($2::bigint[])`, [task, replayed.rows.map((r) => r.replay_execution_id)]);
  expect(execs.rows[0].n).toBe(3);
  // The list shows them replayed after the refresh.
  await expect(page.getByTestId(`dead-letter-row-${ids[0]}`)).toContainText('replayed');

  // Purge everything matching the other fingerprint, typed in the filter form.
  await page.goto(`/dead-letters?task=${task}`);
  await page.getByRole('textbox', { name: 'Fingerprint', exact: true }).fill(fpTimeout);
  await page.getByRole('button', { name: 'Apply', exact: true }).click();
  await expect(page).toHaveURL(new RegExp(`fingerprint=${fpTimeout}`));
  await expect(page.getByTestId('dlq-count')).toHaveText('4 matching');
  await page.getByRole('button', { name: 'Purge all 4 matching' }).click();
  const purge = page.getByRole('dialog', { name: 'Purge dead letters' });
  await purge.getByRole('button', { name: 'Preview purge' }).click();
  await expect(purge.getByTestId('purge-frozen-count')).toHaveText('4 dead letters frozen');
  // A matching dead letter arrives while the operator reads the preview.
  const [late] = await insertDeadLetters(db, [{ task, fingerprint: fpTimeout, payload: { tenant: 'globex', late: true }, groups: { tenant: 'globex' }, error: 'TimeoutError: late' }]);
  const confirm = purge.getByLabel('Type “purge 4” to confirm');
  const go = purge.getByRole('button', { name: 'Purge 4' });
  await confirm.fill('purge all');
  await expect(go).toBeDisabled();
  await confirm.fill('purge 4');
  await go.click();
  await expect(purge.getByText('Purged 4 of the 4 frozen dead letters.')).toBeVisible();
  const left = await db.query<{ id: number }>(`SELECT id FROM dead_letters WHERE task = $1 AND fingerprint = $2`, [task, fpTimeout]);
  expect(left.rows.map((r) => r.id)).toEqual([late!.id]);
  await purge.getByRole('button', { name: 'Close', exact: true }).click();
  await expect(page.getByTestId('dlq-count')).toHaveText('1 matching');

  // Both on the Audit page, with their filters and counts.
  await page.goto('/audit?action=dlq.');
  const replayRow = page.getByRole('row').filter({ hasText: 'dlq.replay' }).filter({ hasText: op.email }).first();
  const purgeRow = page.getByRole('row').filter({ hasText: /dlq\.purge(?!\.preview)/ }).filter({ hasText: op.email }).first();
  await expect(replayRow).toBeVisible();
  await expect(purgeRow).toBeVisible();
  await purgeRow.locator('summary').click();
  await expect(purgeRow).toContainText(fpTimeout);
  await expect(purgeRow).toContainText('"deleted": 4');
});

test('a viewer browses dead letters but gets no replay or purge actions', async ({ page }) => {
  const db = e2eDb();
  const task = await seedTask();
  const [dl] = await insertDeadLetters(db, [{ task, fingerprint: 'viewer0001', payload: { tenant: 'acme', secret: false }, groups: { tenant: 'acme' }, error: 'Error: viewer case', stack: 'Error: viewer case\n    at handler (src/h.ts:1:1)', withExecution: true }]);
  const viewer = await seedUser('viewer', 'dlq-viewer');
  await signInViaApi(page.request, viewer);
  await page.goto(`/dead-letters?task=${task}`);
  await expect(page.getByTestId('dlq-count')).toHaveText('1 matching');
  await expect(page.getByRole('button', { name: /Replay/ })).toHaveCount(0);
  await expect(page.getByRole('button', { name: /Purge/ })).toHaveCount(0);
  await page.getByRole('link', { name: String(dl!.id), exact: true }).click();
  await expect(page.getByRole('heading', { name: `Dead letter ${dl!.id}` })).toBeVisible();
  await expect(page.getByLabel('Payload')).toContainText('"tenant": "acme"');
  await expect(page.getByLabel('Last stack trace')).toContainText('at handler');
  await expect(page.getByRole('cell', { name: 'dead' })).toBeVisible();
});
