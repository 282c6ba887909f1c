// Flat ESLint config: typescript-eslint's recommended rules on all TS/TSX sources.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import sluice from './eslint/architecture-rule.mjs';

export default tseslint.config(
  {
    ignores: ['node_modules/**', '.next*/**', '.scratch/**', 'bench/peers/node_modules/**', '.sluice/**', 'server/db/generated/**', 'test-results/**', 'playwright-report/**', 'next-env.d.ts', 'bench-results/**'],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly', console: 'readonly', URL: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly',
        setInterval: 'readonly', clearInterval: 'readonly', Buffer: 'readonly', fetch: 'readonly', AbortController: 'readonly',
        AbortSignal: 'readonly', globalThis: 'readonly', window: 'readonly', document: 'readonly', localStorage: 'readonly',
        performance: 'readonly', structuredClone: 'readonly', queueMicrotask: 'readonly', setImmediate: 'readonly',
        Response: 'readonly', Request: 'readonly', Headers: 'readonly', TextEncoder: 'readonly', TextDecoder: 'readonly',
        crypto: 'readonly', navigator: 'readonly', HTMLElement: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/no-explicit-any': 'warn',
    },
  },
  {
    // The parts and arrows of eslint/architecture.json (docs/architecture.md § Layout).
    // Tests are left out: they check parts against each other (a core test comparing
    // with the HTTP server's copy, fixtures built from presenters' types).
    files: ['**/*.{ts,tsx,js,mjs}'],
    ignores: ['**/*.test.ts', '**/*.test.tsx'],
    plugins: { sluice },
    rules: { 'sluice/architecture': 'error' },
  },
  {
    // Playwright fixtures take their dependencies as a destructured first argument; `{}` is how a fixture says "none".
    files: ['e2e/**/*.ts'],
    rules: { 'no-empty-pattern': 'off' },
  },
);
