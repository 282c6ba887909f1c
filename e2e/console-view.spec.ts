// The console read at a glance and on a phone (issue 17): charts of a 2-minute-old task
// draw across the plot, a config change shows as a marker linking to its version, the
// chosen task stays chosen while the cards re-sort, a failing live refresh shows as
// "stale" and recovers, and every page fits 1440, 1280 and 390 px with the nav reachable.
import { randomBytes } from 'node:crypto';
import type { Page } from '@playwright/test';
import { test, expect } from './support/fixtures';
import { e2eDb, signInViaApi } from './support/factories';
import { e2eEnv } from './support/e2e-env';
import { applyConfig } from '../server/services/config-versions';
import { SYSTEM_ACTOR } from '../server/db/audit';
import { insertSamples, setPartitionDepths } from '../test/support/observe-fixtures';
import { rollupMetrics } from '../server/control-plane/services/rollup-metrics';
import type { TaskDefinitionInput } from '../server/core/task-definition';
import { insertDeadLetters } from '../test/support/dead-letter-fixtures';

test.describe.configure({ timeout: 120_000 });

/** Adds tasks on top of the current config (other specs' tasks stay). */
async function addTasks(tasks: TaskDefinitionInput[], message: string): Promise<number> {
  const db = e2eDb();
  const current = await db.query<{ config: { tasks: TaskDefinitionInput[] } }>('SELECT config FROM config_versions ORDER BY version DESC LIMIT 1');
  const others = (current.rows[0]?.config.tasks ?? []).filter((t) => !tasks.some((n) => n.name === t.name));
  const applied = await applyConfig(db, SYSTEM_ACTOR, { tasks: [...others, ...tasks] }, { message });
  return applied.version;
}

/** A task whose first samples are two minutes old, rolled up as the runner would. */
async function youngTask(name: string, depth = 8): Promise<void> {
  await addTasks([{ name, partitions: 2, thresholds: { depth: { warning: 1000, critical: 6000 } } }], `young ${name}`);
  const now = Date.now();
  const times: number[] = [];
  for (let t = now - 120_000; t <= now; t += 5000) times.push(t);
  await insertSamples(e2eDb(), {
    task: name,
    partitions: 2,
    intervalMs: 5000,
    times,
    values: (p, t) => ({ depth: depth + p + Math.round(2 * Math.sin(t / 20_000)), arrivals: 5, processed: 5, inFlight: 1 }),
  });
  // Back-filled samples: a rebuild rolls all of them (a normal tick only revisits the last few seconds).
  await rollupMetrics(e2eDb(), new Date(now), { rebuild: true });
}

async function signIn(page: Page) {
  const env = e2eEnv();
  await signInViaApi(page.request, { email: env.adminEmail, password: env.adminPassword });
}

/** Horizontal extent of the drawn lines vs the plot area of one chart, in px. */
async function drawnExtent(page: Page, chartId: string): Promise<{ plot: number; drawn: number }> {
  return page.getByTestId(`chart-${chartId}`).evaluate((fig) => {
    const grid = fig.querySelector('.recharts-cartesian-grid')!.getBoundingClientRect();
    const paths = [...fig.querySelectorAll('.recharts-line-curve')].map((p) => p.getBoundingClientRect()).filter((r) => r.width > 0);
    const left = Math.min(...paths.map((r) => r.left));
    const right = Math.max(...paths.map((r) => r.right));
    return { plot: grid.width, drawn: right - left };
  });
}

test('charts of a 2-minute-old task draw across the plot, scaled to the data, in every range', async ({ page }) => {
  const task = `young-${randomBytes(3).toString('hex')}`;
  await youngTask(task);
  const rolled = await e2eDb().query<{ first: Date; n: number }>(
    `SELECT min(bucket) AS first, count(*)::int AS n FROM metric_rollup_series WHERE task = $1 AND resolution_s = 10`,
    [task],
  );
  // Two minutes of 10 s buckets, no older.
  expect(Date.now() - rolled.rows[0]!.first.getTime()).toBeLessThan(3 * 60_000);
  expect(rolled.rows[0]!.n).toBeGreaterThanOrEqual(12);
  await signIn(page);
  await page.setViewportSize({ width: 1440, height: 900 });
  for (const range of ['1h', '7d'] as const) {
    await page.goto(`/?task=${task}&range=${range}&live=off`);
    const charts = page.getByTestId('task-charts');
    await expect(charts).toHaveAttribute('data-task', task);
    await expect(page.getByTestId('chart-depth')).toHaveAttribute('data-state', 'ready');
    // 2 minutes of data: drawn as 15 m of 10 s buckets whatever was asked, and said so.
    await expect(charts).toHaveAttribute('data-range', '15m');
    await expect(charts).toHaveAttribute('data-requested-range', range);
    await expect(page.getByTestId('charts-range-fitted')).toContainText(`younger than ${range}`);
    for (const id of ['depth', 'throughput']) {
      const { plot, drawn } = await drawnExtent(page, id);
      expect(drawn / plot, `${id} at ${range}: ${drawn} of ${plot} px`).toBeGreaterThan(0.8);
    }
  }
  // y fits a depth of ~10, not the 6,000 critical line: both thresholds named at the edge.
  const depth = page.getByTestId('chart-depth');
  expect(Number(await depth.getAttribute('data-y-max'))).toBeLessThanOrEqual(20);
  await expect(depth.getByTestId('threshold-critical')).toHaveAttribute('data-placement', 'edge');
  await expect(depth.getByTestId('threshold-critical')).toHaveText('critical 6,000');
  // 1-2-5 ticks only.
  const ticks = (await depth.locator('[class*="recharts-yAxis"] .recharts-cartesian-axis-tick-value').allTextContents()).map((t) => Number(t.replace(/,/g, '')));
  expect(ticks.length).toBeGreaterThanOrEqual(3);
  const step = ticks[1]! - ticks[0]!;
  expect([1, 2, 5], `ticks ${ticks.join(", ")}`).toContain(step / 10 ** Math.floor(Math.log10(step)));
  ticks.forEach((t, i) => expect(t).toBe(i * step));
});

test('a config change shows as a marker on the charts, linking to its version', async ({ page }) => {
  const task = `marked-${randomBytes(3).toString('hex')}`;
  await youngTask(task);
  await signIn(page);
  await page.setViewportSize({ width: 1440, height: 900 });
  // The change, through the UI: pause the task from the Tasks page.
  await page.goto('/tasks');
  await page.getByRole('button', { name: `Pause ${task}` }).click();
  await expect(page.getByRole('button', { name: `Resume ${task}` })).toBeVisible();
  const v = await e2eDb().query<{ version: string; created_at: Date }>(
    `SELECT version::text, created_at FROM config_versions WHERE message = $1`,
    [`Pause ${task}`],
  );
  expect(v.rows).toHaveLength(1);
  const rt = await e2eDb().query<{ paused: boolean }>('SELECT paused FROM task_runtime WHERE task = $1', [task]);
  expect(rt.rows[0]!.paused).toBe(true);

  await page.goto(`/?task=${task}&live=off`);
  // Paused and otherwise healthy: the card says Paused, not Healthy.
  const card = page.getByTestId(`task-card-${task}`);
  await expect(card).toContainText('Paused');
  await expect(card.getByTestId('task-card-status')).toHaveCount(0);
  const depth = page.getByTestId('chart-depth');
  await expect(depth).toHaveAttribute('data-state', 'ready');
  const marker = depth.locator('[data-testid="chart-marker"][data-kind="pause"]');
  await expect(marker).toHaveCount(1);
  expect(Number(await marker.getAttribute('data-t'))).toBe(v.rows[0]!.created_at.getTime());
  // On every chart of the task that has data (this task reports no latency: p99 is empty).
  const ready = await page.locator('[data-testid^="chart-"][data-state="ready"]').count();
  expect(ready).toBeGreaterThanOrEqual(5);
  await expect(page.locator('[data-testid="chart-marker"][data-kind="pause"]')).toHaveCount(ready);
  await marker.hover();
  const tip = page.getByTestId('chart-marker-tooltip');
  await expect(tip).toContainText(`v${v.rows[0]!.version} · Pause ${task}`);
  await tip.getByTestId('chart-marker-link').click();
  await expect(page).toHaveURL(new RegExp(`/config/history\\?before=${Number(v.rows[0]!.version) + 1}$`));
});

test('the chosen task stays chosen while the cards re-sort; a failing refresh shows stale, then recovers', async ({ page }) => {
  const suffix = randomBytes(3).toString('hex');
  const [calm, jumper, third] = [`calm-${suffix}`, `jumper-${suffix}`, `third-${suffix}`];
  await youngTask(calm, 3);
  await youngTask(jumper, 2);
  await youngTask(third, 2);
  await signIn(page);
  await page.setViewportSize({ width: 1440, height: 900 });
  const order = () => page.locator('[data-testid^="task-card-"][data-status]').evaluateAll((els) => els.map((e) => e.getAttribute('data-testid')!.slice('task-card-'.length)));
  const charts = page.getByTestId('task-charts');
  // No task in the address: the one first shown stays shown when the jumper goes critical
  // (live counters) and its card moves up on the next refresh.
  await page.goto('/');
  await expect(charts).toHaveAttribute('data-task', /.+/);
  const shown = (await charts.getAttribute('data-task'))!;
  expect(shown).not.toBe(jumper);
  const before = await order();
  await setPartitionDepths(e2eDb(), jumper, [7000, 0]);
  await page.mouse.move(0, 0); // the pointer is off the cards: the order may change
  await expect(page.getByTestId(`task-card-${jumper}`)).toHaveAttribute('data-status', 'critical', { timeout: 25_000 });
  const after = await order();
  expect(after.indexOf(jumper)).toBeLessThan(before.indexOf(jumper));
  await expect(charts).toHaveAttribute('data-task', shown);

  // A task picked by its card stays picked when the cards re-sort again (a third goes critical).
  await page.getByTestId(`task-card-${calm}`).click();
  await expect(page).toHaveURL(new RegExp(`task=${calm}`));
  await expect(charts).toHaveAttribute('data-task', calm);
  await page.mouse.move(0, 0);
  await setPartitionDepths(e2eDb(), third, [7000, 0]);
  await expect(page.getByTestId(`task-card-${third}`)).toHaveAttribute('data-status', 'critical', { timeout: 25_000 });
  expect((await order()).indexOf(third)).toBeLessThan(after.indexOf(third));
  await expect(charts).toHaveAttribute('data-task', calm);
  await expect(page.getByTestId(`task-card-${calm}`)).toHaveAttribute('aria-current', 'true');
  await expect(page).toHaveURL(new RegExp(`task=${calm}`));

  // Live refresh fails: the page says so (it does not stay green), then recovers.
  await expect(page.getByTestId('live-toggle')).toHaveAttribute('data-state', 'live');
  const failing = (url: URL) => url.pathname.startsWith('/api/trpc/') && url.pathname.includes('metrics.overview');
  await page.route(failing, (route) => route.abort('connectionrefused'));
  await expect(page.getByTestId('overview-stale')).toBeVisible({ timeout: 40_000 });
  await expect(page.getByTestId('overview-stale')).toContainText('Disconnected');
  await expect(page.getByTestId('live-toggle')).toHaveAttribute('data-state', 'stale');
  await page.unroute(failing);
  await expect(page.getByTestId('overview-stale')).toHaveCount(0, { timeout: 25_000 });
  await expect(page.getByTestId('live-toggle')).toHaveAttribute('data-state', 'live');
});

const PAGES = ['/', '/tasks', '/executions', '/coordinators', '/dead-letters', '/alerts', '/audit', '/config/history', '/settings'];

/** Elements sticking out past the right edge of the window, except inside a frame that scrolls sideways. */
async function overflowing(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const out: string[] = [];
    const w = window.innerWidth;
    if (document.scrollingElement!.scrollWidth > w) out.push(`document scrollWidth ${document.scrollingElement!.scrollWidth} > ${w}`);
    const scrollsX = (el: Element | null): boolean => {
      for (let e = el; e && e !== document.body; e = e.parentElement) {
        const o = getComputedStyle(e).overflowX;
        if ((o === 'auto' || o === 'scroll' || o === 'hidden') && e.getBoundingClientRect().right <= w + 1) return true;
      }
      return false;
    };
    for (const el of document.querySelectorAll('body *')) {
      const r = el.getBoundingClientRect();
      if (r.width === 0 || r.height === 0 || r.right <= w + 1) continue;
      if (scrollsX(el.parentElement)) continue;
      out.push(`${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}.${String(el.getAttribute('class') ?? '').slice(0, 50)} right=${Math.round(r.right)}`);
      if (out.length > 5) break;
    }
    return out;
  });
}

for (const width of [1440, 1280, 390]) {
  test(`every console page fits ${width} px and the nav is reachable`, async ({ page }) => {
    const task = `fit-${randomBytes(3).toString('hex')}`;
    await youngTask(task);
    // Dead letters with a long error and long keys: what would push a row past a phone's edge.
    const seeded = await insertDeadLetters(e2eDb(), [
      {
        task,
        fingerprint: `fp${randomBytes(5).toString('hex')}`,
        payload: { tenant: 'a-tenant-with-a-rather-long-name' },
        groups: { tenant: 'a-tenant-with-a-rather-long-name' },
        error: `UpstreamTimeoutError: POST https://payments.internal.example.com/v2/charges timed out after 30000 ms (attempt 5 of 5)`,
        deadAt: new Date(),
      },
    ]);
    const dead = seeded[0]!.id;
    await signIn(page);
    await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
    for (const path of [...PAGES, `/tasks/${task}`, `/tasks/${task}/metrics`, `/dead-letters/${dead}`, `/dead-letters?task=${task}`]) {
      await page.goto(path);
      await expect(page.getByRole('heading', { level: 1 }).first(), path).toBeVisible();
      await page.waitForLoadState('networkidle');
      expect(await overflowing(page), `${path} at ${width}`).toEqual([]);
    }
    if (width === 390) {
      // The nav is collapsed behind a Menu button that names the section.
      await page.goto('/executions');
      const toggle = page.getByTestId('nav-toggle');
      await expect(toggle).toContainText('Executions');
      await expect(page.getByRole('navigation', { name: 'Main' })).toBeHidden();
      await toggle.click();
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Tasks' }).click();
      await expect(page.getByRole('heading', { level: 1, name: 'Tasks' })).toBeVisible();
      await expect(page.getByRole('navigation', { name: 'Main' })).toBeHidden();
      // Tasks are cards, not a table; the card's Pause is on screen and works.
      await expect(page.getByRole('table', { name: 'Tasks' })).toBeHidden();
      const card = page.getByTestId(`task-list-card-${task}`);
      await expect(card).toBeVisible();
      await expect(card).toContainText('Partitions');
      const pause = card.getByRole('button', { name: `Pause ${task}` });
      const box = (await pause.boundingBox())!;
      expect(box.x + box.width).toBeLessThanOrEqual(width);
      await pause.click();
      await expect(card.getByRole('button', { name: `Resume ${task}` })).toBeVisible();
      const rt = await e2eDb().query<{ paused: boolean }>('SELECT paused FROM task_runtime WHERE task = $1', [task]);
      expect(rt.rows[0]!.paused).toBe(true);
      await expect(card).toContainText('paused');
      // Dead letters are cards too: select one from its card, the toolbar counts it.
      await page.goto(`/dead-letters?task=${task}`);
      await expect(page.getByRole('table', { name: 'Dead letters' })).toBeHidden();
      const dl = page.getByTestId(`dead-letter-card-${dead}`);
      await expect(dl).toBeVisible();
      await expect(dl).toContainText('UpstreamTimeoutError');
      await dl.getByRole('checkbox', { name: `Select dead letter ${dead}` }).check();
      await expect(page.getByRole('toolbar', { name: 'Dead letter actions' })).toContainText('1 selected');
      await expect(page.getByRole('button', { name: 'Replay selected' })).toBeEnabled();
      await dl.getByRole('link', { name: `#${dead}` }).click();
      await expect(page).toHaveURL(new RegExp(`/dead-letters/${dead}$`));
      // Coordinators are cards: every column of the row on screen, nothing scrolls sideways.
      const member = `fit-member-${randomBytes(3).toString('hex')}`;
      await e2eDb().query(`INSERT INTO coordinators (name, host, pid, slots, stopped_at) VALUES ($1, 'phone-host', 4242, 7, now())`, [member]);
      await page.goto('/coordinators');
      await expect(page.getByRole('table', { name: 'Coordinators' })).toBeHidden();
      const mc = page.locator(`[data-coordinator-card="${member}"]`);
      await expect(mc).toBeVisible();
      await expect(mc).toContainText('phone-host · 4242');
      await expect(mc).toContainText('stopped');
      await expect(mc).toContainText('0 / 7');
      expect(await overflowing(page), '/coordinators cards at 390').toEqual([]);
    } else {
      await page.goto('/tasks');
      await expect(page.getByTestId('nav-toggle')).toBeHidden();
      await expect(page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Executions' })).toBeVisible();
      await expect(page.getByTestId('task-list-cards')).toBeHidden();
      // Nothing needed is behind a sideways scroll: the Pause button is on screen and the table does not scroll.
      const pause = page.getByRole('button', { name: `Pause ${task}` });
      const box = (await pause.boundingBox())!;
      expect(box.x + box.width).toBeLessThanOrEqual(width);
      const scrolls = (name: string) => page.getByRole('table', { name }).evaluate((t) => t.parentElement!.scrollWidth > t.parentElement!.clientWidth);
      expect(await scrolls('Tasks')).toBe(false);
      await page.goto(`/dead-letters?task=${task}`);
      await expect(page.getByTestId('dead-letter-cards')).toBeHidden();
      await expect(page.getByTestId(`dead-letter-row-${dead}`)).toBeVisible();
      expect(await scrolls('Dead letters')).toBe(false);
      const replay = page.getByTestId(`dead-letter-row-${dead}`).getByText('pending');
      expect((await replay.boundingBox())!.x + (await replay.boundingBox())!.width).toBeLessThanOrEqual(width);
    }
  });
}
