// The specs' `test`: baseURL from the global setup, and every page watched for Content
// Security Policy violations (a blocked script or style fails the test: the policy must
// never break a page).
import { test as base, expect } from '@playwright/test';
import { e2eEnv } from './e2e-env';

export const test = base.extend<{ cspViolations: string[] }>({
  baseURL: async ({}, use) => {
    await use(e2eEnv().baseUrl);
  },
  cspViolations: [
    async ({ page }, use) => {
      const seen: string[] = [];
      page.on('console', (m) => {
        if (/Content Security Policy/i.test(m.text())) seen.push(m.text());
      });
      await use(seen);
      expect(seen, 'Content Security Policy violations on the page').toEqual([]);
    },
    { auto: true },
  ],
});

export { expect };
