// Applies prisma/migrations/*.sql with node-pg-migrate (each file has `-- Up Migration`
// and `-- Down Migration` sections). node-pg-migrate takes an advisory lock, so several
// processes starting at once apply each migration exactly once. schema.prisma mirrors
// these files; test/integration/schema-drift.test.ts fails when they disagree.
import { runner } from 'node-pg-migrate';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const MIGRATIONS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'prisma', 'migrations');
export const MIGRATIONS_TABLE = 'sluice_migrations';

export async function migrate(databaseUrl: string, opts: { log?: (m: string) => void } = {}): Promise<string[]> {
  const ran = await runner({
    databaseUrl,
    dir: MIGRATIONS_DIR,
    migrationsTable: MIGRATIONS_TABLE,
    direction: 'up',
    checkOrder: true,
    singleTransaction: true,
    log: opts.log ?? (() => {}),
    logger: { debug: () => {}, info: opts.log ?? (() => {}), warn: (m: string) => console.warn(m), error: (m: string) => console.error(m) },
  });
  return ran.map((m) => m.name);
}
