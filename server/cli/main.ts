// The `sluice` command. Each command lives in server/cli/commands/<name>.ts and exports
// `register(program)`, so commands stay small and independent.
import { Command, CommanderError } from 'commander';
import { commands } from './commands';
import { EnvError } from '../env';
import { CliError } from './cli-error';
import { isCoreError } from '../core/errors';

const program = new Command()
  .name('sluice')
  .description('Bounded-concurrency work on Postgres, steered from a browser')
  .showHelpAfterError()
  .exitOverride();

for (const register of commands) register(program);

try {
  await program.parseAsync(process.argv);
} catch (e) {
  if (e instanceof CommanderError) process.exit(e.exitCode);
  if (e instanceof EnvError || e instanceof CliError) {
    console.error(e.message);
    process.exit(2);
  }
  if (isCoreError(e)) {
    // A service refused the input: say why, field by field, without a stack.
    const details = e.fieldErrors?.length ? '\n' + e.fieldErrors.map((f) => `  ${f.path || '(input)'}: ${f.message}`).join('\n') : '';
    console.error(`${e.message}${details}`);
    process.exit(2);
  }
  console.error(e instanceof Error ? (e.stack ?? e.message) : String(e));
  process.exit(1);
}
