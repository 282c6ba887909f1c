// What the global setup hands to specs (through the environment the workers inherit).
export interface E2eEnv {
  baseUrl: string;
  databaseUrl: string;
  adminEmail: string;
  adminPassword: string;
}

const KEYS = {
  baseUrl: 'SLUICE_E2E_BASE_URL',
  databaseUrl: 'SLUICE_E2E_DATABASE_URL',
  adminEmail: 'SLUICE_E2E_ADMIN_EMAIL',
  adminPassword: 'SLUICE_E2E_ADMIN_PASSWORD',
} as const;

export function publishE2eEnv(e: E2eEnv): void {
  for (const [k, name] of Object.entries(KEYS)) process.env[name] = e[k as keyof E2eEnv];
}

export function e2eEnv(): E2eEnv {
  const out = {} as E2eEnv;
  for (const [k, name] of Object.entries(KEYS)) {
    const v = process.env[name];
    if (!v) throw new Error(`${name} is not set: run the specs through \`npx playwright test\` (e2e/global-setup.ts sets it)`);
    out[k as keyof E2eEnv] = v;
  }
  return out;
}
