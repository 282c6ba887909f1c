// `sluice executions cancel|retry-now`: operator actions on executions from a terminal,
// through the same services as the browser and REST, audited as `cli (<user>@<host>)`.
//   cancel ID                         one execution (running: its coordinator aborts it);
//   cancel --task T [--state …] [--group tenant=acme] [--stream K] [--from T] [--to T]
//                                     freezes the matching set, shows its count per state,
//                                     then needs `--confirm "cancel N"` (or typing it at
//                                     the prompt); only the frozen ids change state;
//   --dry-run                         counts what would be canceled; changes nothing;
//   retry-now ID                      a scheduled execution runs now.
// Other `executions` subcommands (list, show) may be registered by another module: this
// one adds to the existing `executions` command when there is one.
import type { Command } from 'commander';
import readline from 'node:readline/promises';
import { executionCancelFilterSchema, parseStateList, type ExecutionCancelFilterInput } from '../../core/execution-cancel-filter';
import { isCoreError } from '../../core/errors';
import { cancelExecution, retryExecutionNow } from '../../services/execution-actions';
import { cancelMatching, previewCancelMatching } from '../../services/execution-cancel-matching';
import { parseInput } from '../../core/validate-input';
import { CliError } from '../cli-error';
import { cliActor, printJson, withCliDatabase } from '../cli-context';

interface CancelOpts {
  task?: string;
  state?: string;
  group?: string;
  stream?: string;
  from?: string;
  to?: string;
  dryRun?: boolean;
  confirm?: string;
  json?: boolean;
}

const FILTER_FLAGS = ['task', 'state', 'group', 'stream', 'from', 'to'] as const;

function filterFrom(o: CancelOpts): ExecutionCancelFilterInput {
  const raw: Record<string, unknown> = {};
  for (const k of ['task', 'group', 'stream', 'from', 'to'] as const) if (o[k] !== undefined) raw[k] = o[k];
  if (o.state !== undefined) raw.states = parseStateList(o.state);
  try {
    return parseInput(executionCancelFilterSchema, raw);
  } catch (e) {
    if (!isCoreError(e)) throw e;
    const flag = (p: string) => (p.startsWith('states') ? 'state' : p);
    const fields = e.fieldErrors?.map((f) => `  --${flag(f.path)}: ${f.message}`).join('\n');
    throw new CliError(fields ? `Invalid filter:\n${fields}` : e.message);
  }
}

const describeFilter = (f: ExecutionCancelFilterInput) =>
  Object.entries(f)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}=${v instanceof Date ? v.toISOString() : Array.isArray(v) ? v.join(',') : String(v)}`)
    .join(' ');

export function register(program: Command): void {
  const executions =
    program.commands.find((c) => c.name() === 'executions') ?? program.command('executions').description('Find executions and act on them');

  executions
    .command('cancel')
    .description('Cancel one execution (ID), or every execution of a task matching a filter (preview, then confirm)')
    .argument('[id]', 'execution id')
    .option('--task <task>', 'task name (required with a filter)')
    .option('--state <states>', 'comma-separated: queued, scheduled, blocked, spilled, running (default: the backlog, all but running)')
    .option('--group <group=key>', 'group key, e.g. tenant=acme')
    .option('--stream <key>', 'stream key')
    .option('--from <time>', 'enqueued at or after (ISO 8601)')
    .option('--to <time>', 'enqueued before (ISO 8601)')
    .option('--dry-run', 'count what would be canceled; change nothing')
    .option('--confirm <phrase>', 'the confirmation, "cancel <count>" (else asked for on a terminal)')
    .option('--json', 'print JSON')
    .action(async (id: string | undefined, o: CancelOpts) => {
      const hasFilter = FILTER_FLAGS.some((k) => o[k] !== undefined);
      if (id !== undefined) {
        if (hasFilter || o.dryRun || o.confirm !== undefined) throw new CliError('Give either an execution id or filter options (--task …), not both.');
        const r = await withCliDatabase((pool) => cancelExecution(pool, cliActor(), id));
        if (o.json) return printJson(r);
        console.log(
          r.result === 'canceled'
            ? `Execution ${r.id} (${r.task}) canceled (was ${r.prior}).`
            : `Execution ${r.id} (${r.task}) is running: cancel requested; its coordinator aborts the handler and records it as canceled.`,
        );
        return;
      }
      if (!hasFilter) throw new CliError('Give an execution id, or --task with a filter (e.g. --task send-email --group tenant=acme).');
      const filter = filterFrom(o);
      await withCliDatabase(async (pool) => {
        const actor = cliActor();
        const preview = await previewCancelMatching(pool, actor, filter, { dryRun: o.dryRun ?? false });
        if (o.dryRun) {
          if (o.json) return printJson({ ...preview, id: null, dryRun: true });
          console.log(`Dry run: would cancel ${preview.total} execution(s) matching ${describeFilter(filter)}.`);
          for (const s of preview.byState) console.log(`  ${s.state}: ${s.count}`);
          return;
        }
        if (!o.json) {
          console.log(`Frozen ${preview.total} execution(s) matching ${describeFilter(filter)} (preview ${preview.id}); executions enqueued from now on are not in this set.`);
          for (const s of preview.byState) console.log(`  ${s.state}: ${s.count}`);
        }
        if (preview.total === 0) return o.json ? printJson({ preview, canceled: 0 }) : console.log('Nothing to cancel.');
        let confirm = o.confirm;
        if (confirm === undefined) {
          if (!process.stdin.isTTY) throw new CliError(`Not a terminal: pass --confirm "${preview.confirmation}" to cancel this set (preview ${preview.id}).`);
          const rl = readline.createInterface({ input: process.stdin, output: process.stdout });
          confirm = await rl.question(`Type "${preview.confirmation}" to cancel these ${preview.total} execution(s): `);
          rl.close();
        }
        const r = await cancelMatching(pool, actor, { previewId: preview.id, confirm });
        if (o.json) return printJson(r);
        console.log(
          `Canceled ${r.canceled} of ${r.frozen} frozen execution(s)` +
            (r.requested > 0 ? `; ${r.requested} running: cancel requested` : '') +
            (r.skipped > 0 ? `; ${r.skipped} had finished meanwhile (left alone)` : '') +
            '.',
        );
      });
    });

  executions
    .command('retry-now')
    .description('Run a scheduled execution (a retry waiting out its backoff, or a delayed one) now')
    .argument('<id>', 'execution id')
    .option('--json', 'print JSON')
    .action(async (id: string, o: { json?: boolean }) => {
      const r = await withCliDatabase((pool) => retryExecutionNow(pool, cliActor(), id));
      if (o.json) return printJson(r);
      console.log(`Execution ${r.id} (${r.task}) is due now (was scheduled for ${r.previousRunAt.toISOString()}).`);
    });
}
