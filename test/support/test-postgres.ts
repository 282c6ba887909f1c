// A Postgres server for a test run and a migrated template database named for the run.
// DATABASE_URL's server when set (the machine's own Postgres in CI), else an embedded
// server in a temp folder. Databases this run creates are dropped when it stops.
import pg from 'pg';
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs';
import { migrate } from '../../server/db/migrate';
import { startEmbeddedPostgres } from '../../server/db/embedded';
import { freePort } from './free-port';

export interface TestPostgres {
  adminUrl: string;
  templateDb: string;
  stop(): Promise<void>;
}

export function urlForDatabase(adminUrl: string, db: string): string {
  const u = new URL(adminUrl);
  u.pathname = '/' + db;
  return u.toString();
}

export async function adminQuery(adminUrl: string, sql: string): Promise<void> {
  const c = new pg.Client({ connectionString: adminUrl });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

export async function startTestPostgres(tag: string): Promise<TestPostgres> {
  let adminUrl: string;
  let stopServer: () => Promise<void> = async () => {};
  if (process.env.DATABASE_URL) {
    adminUrl = urlForDatabase(process.env.DATABASE_URL, 'postgres');
  } else {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-test-pg-'));
    fs.chmodSync(dir, 0o755);
    const port = await freePort(30_000, 2_000);
    const server = await startEmbeddedPostgres({ dataDir: path.join(dir, 'pg'), port, persistent: false });
    adminUrl = server.adminUrl;
    stopServer = async () => {
      await server.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    };
  }
  const templateDb = `sluice_${tag}_${process.pid}_${Date.now().toString(36)}`;
  await adminQuery(adminUrl, `CREATE DATABASE ${templateDb}`);
  await migrate(urlForDatabase(adminUrl, templateDb));
  return {
    adminUrl,
    templateDb,
    async stop() {
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      try {
        const r = await c.query<{ datname: string }>(
          `SELECT datname FROM pg_database WHERE datname = $1 OR datname LIKE $2`,
          [templateDb, `${templateDb}\\_%`],
        );
        for (const { datname } of r.rows) {
          await c.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
        }
      } finally {
        await c.end();
      }
      await stopServer();
    },
  };
}

/** A fresh database cloned from the migrated template. */
export async function cloneDatabase(adminUrl: string, templateDb: string, suffix: string): Promise<string> {
  const name = `${templateDb}_${suffix}`.slice(0, 63);
  await adminQuery(adminUrl, `CREATE DATABASE "${name}" TEMPLATE "${templateDb}"`);
  return urlForDatabase(adminUrl, name);
}
