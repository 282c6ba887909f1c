// The specs' `test`: baseURL from the global setup.
import { test as base, expect } from '@playwright/test';
import { e2eEnv } from './e2e-env';

export const test = base.extend({
  baseURL: async ({}, use) => {
    await use(e2eEnv().baseUrl);
  },
});

export { expect };
