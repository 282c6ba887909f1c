// `sluice users create|list`: operator accounts from the command line (audited as the
// CLI actor). A generated password is printed once, on the last line.
import type { Command } from 'commander';
import { createUser } from '../../services/users';
import { ROLES } from '../../core/roles';
import { cliActor, withCliDatabase } from '../cli-context';

export function register(program: Command): void {
  const users = program.command('users').description('Operator accounts');

  users
    .command('create')
    .description('Create a user; prints a generated password when --password is omitted')
    .requiredOption('--email <email>', 'sign-in email')
    .requiredOption('--role <role>', `one of ${ROLES.join(', ')}`)
    .option('--password <password>', 'initial password (at least 12 characters); generated when omitted')
    .action(async (opts: { email: string; role: string; password?: string }) => {
      const r = await withCliDatabase((pool) =>
        createUser(pool, cliActor(), { email: opts.email, role: opts.role as never, ...(opts.password !== undefined ? { password: opts.password } : {}) }),
      );
      console.log(`Created ${r.user.role} ${r.user.email} (id ${r.user.id}).`);
      if (r.generatedPassword) {
        console.log('Generated password (shown once):');
        console.log(r.generatedPassword);
      }
    });

  users
    .command('list')
    .description('List users')
    .action(async () => {
      const rows = await withCliDatabase(async (pool) => {
        const r = await pool.query<{ email: string; role: string; active: boolean; last_login_at: Date | null }>(
          `SELECT email, role, active, last_login_at FROM users ORDER BY active DESC, email`,
        );
        return r.rows;
      });
      if (rows.length === 0) console.log('No users yet.');
      for (const u of rows) {
        console.log(
          [u.email.padEnd(36), u.role.padEnd(9), (u.active ? 'active' : 'deactivated').padEnd(12), u.last_login_at?.toISOString() ?? 'never'].join(' '),
        );
      }
    });
}
