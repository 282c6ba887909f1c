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
