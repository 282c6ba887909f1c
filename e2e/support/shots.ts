// Screenshots for reviewing a page by eye: full-page shots at 1440, 1280 and 390 px wide in
// the light and the dark theme (the theme cookie), only when SLUICE_SHOTS_DIR is set (a
// local review; CI does not store them).
import path from 'node:path';
import type { Page } from '@playwright/test';
import { e2eEnv } from './e2e-env';

/** Full-page shots at three widths in both themes, when SLUICE_SHOTS_DIR is set. */
export async function shoot(page: Page, name: string) {
  const dir = process.env.SLUICE_SHOTS_DIR;
  if (!dir) return;
  const url = page.url();
  for (const theme of ['light', 'dark'] as const) {
    await page.context().addCookies([{ name: 'sluice_theme', value: theme, url: e2eEnv().baseUrl }]);
    for (const width of [1440, 1280, 390]) {
      await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
      await page.goto(url);
      await page.waitForLoadState('networkidle').catch(() => {});
      await page.screenshot({ path: path.join(dir, `${name}-${width}-${theme}.png`), fullPage: true });
    }
  }
  await page.setViewportSize({ width: 1280, height: 720 });
  await page.goto(url);
}

