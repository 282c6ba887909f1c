// `sluice start` (what `npm start` runs): the whole system on one machine.
// Postgres (DATABASE_URL, else the embedded server under SLUICE_DATA_DIR), migrations,
// the first admin, the production build (built when missing or stale), the Next.js
// control plane, and — when configured — coordinators and demo producers.
// Ctrl-C / SIGTERM stop everything, children first, Postgres last.
import type { Command } from 'commander';
import path from 'node:path';
import { parseEnv } from '../../env';
import { migrateDatabase } from '../../db/migrate';
import { portIsFree, type EmbeddedPostgres } from '../../db/embedded';
import { startDatabase } from '../start-database';
import { ensureBuild, ROOT } from '../build';
import { Supervisor } from '../supervisor';
import { CliError } from '../cli-error';
import { startExtras } from '../start-extras';

/** Resolves once the URL answers (any HTTP status); throws after timeoutMs. */
async function waitForHttp(url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await fetch(url, { redirect: 'manual', signal: AbortSignal.timeout(5000) });
      return;
    } catch {
      if (Date.now() > deadline) throw new CliError(`The control plane did not answer at ${url} within ${timeoutMs / 1000} s`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}

export function register(program: Command): void {
  program
    .command('start')
    .description('Start Postgres (embedded unless DATABASE_URL), migrate, build if stale, and serve the control plane')
    .option('--dev', 'serve with `next dev` instead of the production build')
    .option('--no-build', 'serve the existing build without checking it is fresh')
    .action(async (opts: { dev?: boolean; build: boolean }) => {
      const env = parseEnv();
      const log = (m: string) => console.log(`[sluice] ${m}`);
      if (!(await portIsFree(env.PORT, env.HOST))) {
        throw new CliError(`Port ${env.PORT} on ${env.HOST} is already in use. Stop what listens there or set PORT to a free port.`);
      }

      let embedded: EmbeddedPostgres | undefined;
      const supervisor = new Supervisor();
      let shuttingDown = false;
      const shutdown = async (code: number) => {
        if (shuttingDown) return;
        shuttingDown = true;
        log('stopping…');
        await supervisor.stopAll();
        if (embedded) {
          log('stopping embedded Postgres');
          await embedded.stop().catch((e: unknown) => console.error(e));
        }
        process.exit(code);
      };
      process.on('SIGINT', () => void shutdown(0));
      process.on('SIGTERM', () => void shutdown(0));

      try {
        const db = await startDatabase(env, log);
        embedded = db.embedded;
        const databaseUrl = db.databaseUrl;
        process.env.DATABASE_URL = databaseUrl;

        const ran = await migrateDatabase(env.DATABASE_DIRECT_URL ?? databaseUrl);
        if (ran.migrations.length) log(`applied ${ran.migrations.length} migration(s)`);
        if (ran.functions.length) log(`applied ${ran.functions.length} function file(s): ${ran.functions.join(', ')}`);

        const { ensureFirstAdmin } = await import('../../services/users');
        const { getPool } = await import('../../db/pool');
        const admin = await ensureFirstAdmin(getPool(), env);

        if (!opts.dev && opts.build) await ensureBuild({ log });

        // Next.js behind Sluice's own node:http server, which tells the app the TCP peer's
        // address (server/web/serve.mjs): `next start` would let a client choose it.
        const serve = path.join(ROOT, 'server', 'web', 'serve.mjs');
        supervisor.start('next', process.execPath, [serve, '--port', String(env.PORT), '--host', env.HOST, ...(opts.dev ? ['--dev'] : [])], {
          cwd: ROOT,
          env: { ...process.env, DATABASE_URL: databaseUrl, NEXT_TELEMETRY_DISABLED: '1', NODE_ENV: opts.dev ? 'development' : 'production' },
          onExit: (code) => {
            console.error(`[sluice] the control plane exited (code ${code}); stopping`);
            void shutdown(1);
          },
        });

        const url = `http://${env.HOST === '0.0.0.0' ? '127.0.0.1' : env.HOST}:${env.PORT}`;
        await waitForHttp(`${url}/login`, 120_000);

        await startExtras({ env, databaseUrl, supervisor, log });

        console.log('');
        console.log(`  Sluice is running at ${url}`);
        if (admin.created && admin.password) {
          console.log(`  Admin: ${admin.email}  password: ${admin.password}   (shown once; change it in Settings → Users)`);
        } else if (admin.created) {
          console.log(`  Admin: ${admin.email} (password from SLUICE_ADMIN_PASSWORD)`);
        } else {
          console.log(`  Sign in as an existing user (first admin: ${admin.email}); create more with \`npx sluice users create\``);
        }
        console.log('  Press Ctrl-C to stop.');
        console.log('');
      } catch (e) {
        await supervisor.stopAll();
        if (embedded) await embedded.stop().catch(() => {});
        throw e;
      }
      // Keep running until a signal arrives.
      await new Promise(() => {});
    });
}
