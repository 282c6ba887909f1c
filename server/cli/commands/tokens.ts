// `sluice tokens create|list|revoke`: API tokens for producers and coordinators. The
// token itself is the LAST line `create` prints, so scripts can take `| tail -n1`.
import type { Command } from 'commander';
import { createToken, revokeToken, resolveTokenRef } from '../../services/tokens';
import { TOKEN_ROLES } from '../../core/roles';
import { CliError } from '../cli-error';
import { cliActor, withCliDatabase } from '../cli-context';

export function register(program: Command): void {
  const tokens = program.command('tokens').description('API tokens for producers and coordinators');

  tokens
    .command('create')
    .description('Create a token and print it (shown once; the last line is the token)')
    .requiredOption('--name <name>', 'what uses it, e.g. "orders producer"')
    .requiredOption('--role <role>', `one of ${TOKEN_ROLES.join(', ')}`)
    .action(async (opts: { name: string; role: string }) => {
      const { token, record } = await withCliDatabase((pool) => createToken(pool, cliActor(), { name: opts.name, role: opts.role as never }));
      console.log(`Created ${record.role} token "${record.name}" (id ${record.id}). It is shown only now:`);
      console.log(token);
    });

  tokens
    .command('list')
    .description('List tokens (prefix, role, last use)')
    .action(async () => {
      const rows = await withCliDatabase(async (pool) => {
        const r = await pool.query<{ id: string; name: string; role: string; prefix: string; last_used_at: Date | null; revoked_at: Date | null }>(
          `SELECT id, name, role, prefix, last_used_at, revoked_at FROM api_tokens ORDER BY revoked_at NULLS FIRST, created_at DESC`,
        );
        return r.rows;
      });
      if (rows.length === 0) console.log('No tokens yet.');
      for (const t of rows) {
        console.log(
          [`slc_${t.prefix}_…`.padEnd(16), t.role.padEnd(12), (t.revoked_at ? 'revoked' : 'active').padEnd(8), (t.last_used_at?.toISOString() ?? 'never').padEnd(25), t.name].join(' '),
        );
      }
    });

  tokens
    .command('revoke')
    .description('Revoke a token by id, prefix, or the token itself')
    .argument('<token>', 'token id, 8-character prefix, or the full slc_… token')
    .action(async (ref: string) => {
      const r = await withCliDatabase(async (pool) => {
        const id = await resolveTokenRef(pool, ref);
        if (!id) throw new CliError(`No token matches "${ref}".`);
        return revokeToken(pool, cliActor(), { id });
      });
      console.log(`Revoked "${r.name}" (slc_${r.prefix}_…).`);
    });
}
