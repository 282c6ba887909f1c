// Against real coordinator processes: an operator lowers a tenant limit from 20 to 5 in
// the editor, sees the diff, applies; the Coordinators page shows every coordinator on
// the new version; and the database then never shows more than 5 running for a tenant
// (running counts per tenant sampled after the apply).
import { test, expect } from './support/fixtures';
import { e2eDb, seedUser, signInViaApi, trpcMutation } from './support/factories';
import { e2eEnv } from './support/e2e-env';
import { CoordinatorHarness, waitFor } from '../test/support/coordinator-harness';
import { enqueue } from '../server/services/enqueue';
import { PUSH_TASK } from './support/config-push-handlers';

const COORDINATORS = 3;

async function runningPerTenant(): Promise<Map<string, number>> {
  const r = await e2eDb().query<{ tenant: string; n: number }>(
    `SELECT groups->>'tenant' AS tenant, count(*)::int AS n FROM executions WHERE task = $1 AND state = 'running' GROUP BY 1`,
    [PUSH_TASK],
  );
  return new Map(r.rows.map((x) => [x.tenant, x.n]));
}

test('lower a tenant limit 20 → 5 with real coordinators: diff, rollout to every coordinator, limit held', async ({ page }) => {
  test.setTimeout(180_000);
  const db = e2eDb();
  const op = await seedUser('operator');
  await signInViaApi(page.request, op);
  const latest = async () => (await db.query<{ v: number | null }>('SELECT max(version)::int AS v FROM config_versions')).rows[0]!.v;

  const created = await trpcMutation(page.request, 'tasks.save', {
    mode: 'create',
    task: { name: PUSH_TASK, concurrency: 60, partitions: 4, groups: [{ name: 'tenant', limit: 20, keyPath: 'tenant' }], timeoutMs: 10_000 },
    basedOn: await latest(),
    message: 'e2e: tenant push task',
  });
  expect(created.status).toBe(200);

  const harness = new CoordinatorHarness(e2eEnv().databaseUrl);
  try {
    await Promise.all(
      Array.from({ length: COORDINATORS }, (_, i) =>
        harness.start({ name: `e2e-push-${i + 1}`, handlers: 'e2e/support/config-push-handlers.ts', slots: 30, tasks: [PUSH_TASK] }),
      ),
    );
    // Two busy tenants with a deep backlog: 20 each can run before the change.
    for (let i = 0; i < 6; i++) {
      await enqueue(db, PUSH_TASK, Array.from({ length: 400 }, (_, j) => ({ payload: { tenant: j % 2 ? 'acme' : 'globex', sleepMs: 150 } })));
    }
    await waitFor('20 running for acme under the old limit', async () => ((await runningPerTenant()).get('acme') ?? 0) >= 20, 30_000, 25);

    await page.goto(`/tasks/${PUSH_TASK}`);
    const limit = page.getByLabel('Limit per key', { exact: true });
    await expect(limit).toHaveValue('20');
    await limit.fill('5');
    await page.getByRole('button', { name: 'Review changes' }).click();
    const row = page.getByRole('region', { name: `Changes to ${PUSH_TASK}` }).locator('tr[data-path="groups.tenant.limit"]');
    await expect(row.getByLabel('before: 20')).toBeVisible();
    await expect(row.getByLabel('after: 5')).toBeVisible();
    await page.getByLabel('Change message').fill('e2e: tenant limit 20 → 5');
    const base = (await latest())!;
    await page.getByRole('button', { name: `Apply as version ${base + 1}` }).click();
    await expect(page.getByText(`Applied as config version ${base + 1}.`)).toBeVisible();
    const version = base + 1;
    // A database instant after the commit: anything claimed before it may have been
    // admitted under the old limit.
    const appliedAt = (await db.query<{ at: Date }>('SELECT clock_timestamp() AS at')).rows[0]!.at;

    // Every coordinator on the new version, as the page shows it.
    await page.goto('/coordinators');
    await expect(page.locator('[data-rollout="complete"]')).toContainText(`Config version ${version}`, { timeout: 20_000 });
    for (let i = 1; i <= COORDINATORS; i++) {
      const cells = page.locator(`tr[data-coordinator="e2e-push-${i}"] [data-applied-version]`);
      await expect(cells).toHaveAttribute('data-applied-version', String(version));
      await expect(cells).toContainText('current');
    }
    const rows = await db.query<{ name: string; applied_version: number }>(
      `SELECT name, applied_version FROM coordinators WHERE name LIKE 'e2e-push-%' AND stopped_at IS NULL ORDER BY name`,
    );
    expect(rows.rows).toEqual(Array.from({ length: COORDINATORS }, (_, i) => ({ name: `e2e-push-${i + 1}`, applied_version: version })));

    // A fresh backlog for both tenants, so the sampling below always has work to hold
    // back: on a loaded machine the first 2,400 can drain (40 at a time, 150 ms each)
    // while the page steps above run, and an empty queue proves nothing about the limit.
    await enqueue(db, PUSH_TASK, Array.from({ length: 800 }, (_, j) => ({ payload: { tenant: j % 2 ? 'acme' : 'globex', sleepMs: 150 } })));

    // Executions claimed under the old limit finish (150 ms each); from then on nothing
    // may exceed 5 per tenant. Sample for 4 s.
    await waitFor(
      'runs claimed before the apply to finish',
      async () =>
        (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM executions WHERE task = $1 AND state = 'running' AND started_at < $2`, [PUSH_TASK, appliedAt])).rows[0]!.n === 0,
      10_000,
      20,
    );
    const max = new Map<string, number>();
    let samples = 0;
    const until = Date.now() + 4000;
    while (Date.now() < until) {
      for (const [t, n] of await runningPerTenant()) max.set(t, Math.max(max.get(t) ?? 0, n));
      samples++;
      await new Promise((r) => setTimeout(r, 15));
    }
    console.log(`[config-push] ${samples} samples after the apply, max running per tenant: ${JSON.stringify(Object.fromEntries(max))}`);
    expect(samples).toBeGreaterThan(50);
    for (const tenant of ['acme', 'globex']) {
      expect(max.get(tenant)).toBeLessThanOrEqual(5);
      expect(max.get(tenant)).toBeGreaterThanOrEqual(4); // still working, up to the new limit
    }
  } finally {
    await harness.stopAll();
  }
});
