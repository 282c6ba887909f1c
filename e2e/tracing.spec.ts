// A producer's traceparent, sent as a header on the REST enqueue of the production build,
// is stored with the execution and shown on its page as the trace id — checked against
// the database (docs/tracing.md). The e2e server runs with tracing off, so the execution
// carries the header as sent; an invalid header is ignored (202, nothing stored).
import { randomBytes } from 'node:crypto';
import { test, expect } from './support/fixtures';
import { e2eDb, signInViaApi } from './support/factories';
import { e2eEnv } from './support/e2e-env';
import { applyConfig } from '../server/services/config-versions';
import { createToken } from '../server/services/tokens';
import { SYSTEM_ACTOR } from '../server/db/audit';
import type { TaskDefinitionInput } from '../server/core/task-definition';

test.describe.configure({ timeout: 90_000 });

test('the traceparent header travels with the execution and its page shows the trace id', async ({ page }) => {
  const db = e2eDb();
  const env = e2eEnv();
  const suffix = randomBytes(3).toString('hex');
  const task = `traced-${suffix}`;
  const current = await db.query<{ config: { tasks: TaskDefinitionInput[] } }>('SELECT config FROM config_versions ORDER BY version DESC LIMIT 1');
  const others = (current.rows[0]?.config.tasks ?? []).filter((t) => t.name !== task);
  await applyConfig(db, SYSTEM_ACTOR, { tasks: [...others, { name: task, partitions: 1 }] }, { message: 'tracing e2e' });
  const { token } = await createToken(db, SYSTEM_ACTOR, { name: `tracing-${suffix}`, role: 'producer' });

  const traceId = randomBytes(16).toString('hex');
  const traceparent = `00-${traceId}-${randomBytes(8).toString('hex')}-01`;
  const enqueue = (header: string) =>
    page.request.post(`${env.baseUrl}/api/v1/tasks/${task}/executions`, {
      headers: { authorization: `Bearer ${token}`, traceparent: header },
      data: { payload: { n: 1 } },
    });
  const ok = await enqueue(traceparent);
  expect(ok.status()).toBe(202);
  const id = (await ok.json()).executions[0].id as number;
  const bad = await enqueue('00-not-a-trace-01');
  expect(bad.status()).toBe(202);
  const badId = (await bad.json()).executions[0].id as number;

  const rows = await db.query<{ id: string; traceparent: string | null }>('SELECT id, traceparent FROM executions WHERE id = ANY ($1) ORDER BY id', [[id, badId]]);
  expect(rows.rows.map((r) => r.traceparent)).toEqual([traceparent, null]);

  await signInViaApi(page.request, { email: env.adminEmail, password: env.adminPassword });
  await page.goto(`/executions/${id}`);
  await expect(page.getByRole('heading', { name: `Execution ${id}` })).toBeVisible();
  await expect(page.getByTestId('execution-trace-id')).toHaveText(traceId);
  await expect(page.getByTestId('execution-trace-id')).toHaveAttribute('title', traceparent);
  await page.goto(`/executions/${badId}`);
  await expect(page.getByRole('heading', { name: `Execution ${badId}` })).toBeVisible();
  await expect(page.getByTestId('execution-trace-id')).toHaveCount(0);
});
