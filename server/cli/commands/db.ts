import type { Command } from 'commander';
import { migrateDatabase } from '../../db/migrate';
import { CliError } from '../cli-error';

export function register(program: Command): void {
  const db = program.command('db').description('Database maintenance');
  db.command('migrate')
    .description('Apply pending schema migrations (prisma/migrations) and changed function files (server/db/sql/functions) to DATABASE_DIRECT_URL, else DATABASE_URL')
    .action(async () => {
      // Migrations hold a session advisory lock: past a transaction pooler, on the direct URL.
      const url = process.env.DATABASE_DIRECT_URL || process.env.DATABASE_URL;
      if (!url) throw new CliError('DATABASE_URL is not set: `DATABASE_URL=postgres://… npx sluice db migrate`');
      const ran = await migrateDatabase(url, { log: () => {} });
      if (ran.migrations.length) console.log(`Applied ${ran.migrations.length} migration(s): ${ran.migrations.join(', ')}`);
      if (ran.functions.length) console.log(`Applied ${ran.functions.length} function file(s): ${ran.functions.join(', ')}`);
      if (!ran.migrations.length && !ran.functions.length) console.log('Database is up to date.');
    });
}
