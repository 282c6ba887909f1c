import { test, expect } from './support/fixtures';
import { seedUser, signInViaApi } from './support/factories';

test('keyboard users get a skip link first; the theme choice survives a reload', async ({ page }) => {
  const viewer = await seedUser('viewer', 'shell');
  await signInViaApi(page.request, viewer);
  await page.goto('/audit');
  await expect(page.getByRole('heading', { level: 1, name: 'Audit' })).toBeVisible();

  await page.keyboard.press('Tab');
  await expect(page.getByRole('link', { name: 'Skip to content' })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(/#main$/);

  const toggle = page.getByRole('button', { name: /^Theme: System/ });
  await toggle.click(); // system → light
  await page.getByRole('button', { name: /^Theme: Light/ }).click(); // light → dark
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
  await page.reload();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
  await expect(page.getByRole('button', { name: /^Theme: Dark/ })).toBeVisible();
});

test('a wrong address says so, inside the console when signed in, with ways back', async ({ page }) => {
  const viewer = await seedUser('viewer', 'notfound');
  await signInViaApi(page.request, viewer);

  // An unknown task: the console's own 404, navigation still there.
  const task = await page.goto('/tasks/no-such-task-anywhere');
  expect(task?.status()).toBe(404);
  await expect(page.getByRole('heading', { level: 1, name: 'Not found' })).toBeVisible();
  await expect(page.getByText('There is no task, dead letter or page at this address.', { exact: false })).toBeVisible();
  await expect(page.getByRole('navigation', { name: 'Main' })).toBeVisible();

  // An unknown dead letter likewise.
  expect((await page.goto('/dead-letters/999999999'))?.status()).toBe(404);
  await expect(page.getByRole('heading', { level: 1, name: 'Not found' })).toBeVisible();

  // An address no route matches: the app's page, not the framework's, and a way back in.
  const none = await page.goto('/no-such-page');
  expect(none?.status()).toBe(404);
  await expect(page.getByRole('heading', { level: 1, name: 'Not found' })).toBeVisible();
  await page.getByRole('navigation', { name: 'Ways back' }).getByRole('link', { name: 'Dead letters' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Dead letters' })).toBeVisible();
});
