import type { Command } from 'commander';
import { migrate } from '../../db/migrate';
import { CliError } from '../cli-error';

export function register(program: Command): void {
  const db = program.command('db').description('Database maintenance');
  db.command('migrate')
    .description('Apply pending SQL migrations (prisma/migrations) to DATABASE_URL')
    .action(async () => {
      const url = process.env.DATABASE_URL;
      if (!url) throw new CliError('DATABASE_URL is not set: `DATABASE_URL=postgres://… npx sluice db migrate`');
      const ran = await migrate(url, { log: () => {} });
      console.log(ran.length ? `Applied ${ran.length} migration(s): ${ran.join(', ')}` : 'Database is up to date.');
    });
}
