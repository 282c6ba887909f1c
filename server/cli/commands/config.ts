// `sluice config apply <file.yaml|json> [-m message] [--based-on N] [--guard 10m]`: validates
//   with the task-definition schema, prints field errors (exit 2) or stores a new version
//   (audited as `cli (<user>@<host>)`, NOTIFYed to coordinators). With --guard the changed
//   tasks bake under watch and roll back by themselves if the rule fires (guarded-rollout.ts).
// `sluice config export [--format yaml|json] [--version N]`: prints the current config.
// `sluice config diff <file> [--what-if [hours]]`: what applying the file would change, task by
//   task; with --what-if, each changed task's recorded traffic of the last hours (default 1)
//   replayed under today's and the file's definition (server/presenters/task-whatif.ts).
import type { Command } from 'commander';
import fs from 'node:fs';
import YAML from 'yaml';
import { canonicalConfig } from '../../core/config-diff';
import { CliError } from '../cli-error';
import { cliActor, withCliDatabase } from '../cli-context';
import { applyConfig, configAtVersion, currentConfig } from '../../services/config-versions';
import { parseConfig, type SluiceConfig } from '../../core/task-definition';
import { diffConfigs, formatChange } from '../../core/config-diff';
import { formatWhatIf, previewTaskWhatIf } from '../../presenters/task-whatif';
import { guardStep } from '../../services/guard-start';
import { bakeDurationProblem, describeGuardRule, formatBake, guardOptionsSchema, type GuardOptions } from '../../core/guarded-rollout';

export function readConfigFile(file: string): unknown {
  if (!fs.existsSync(file)) throw new CliError(`no such file: ${file}`);
  const text = fs.readFileSync(file, 'utf8');
  try {
    return /\.json$/i.test(file) ? JSON.parse(text) : YAML.parse(text);
  } catch (e) {
    throw new CliError(`${file} is not valid ${/\.json$/i.test(file) ? 'JSON' : 'YAML'}: ${(e as Error).message}`);
  }
}

function validated(file: string): SluiceConfig {
  const parsed = parseConfig(readConfigFile(file));
  if (!parsed.ok) {
    throw new CliError(`${file} is not a valid config:\n` + parsed.errors.map((e) => `  ${e.path || '(root)'}: ${e.message}`).join('\n'));
  }
  return parsed.value;
}

/** --guard, --guard-severity and --guard-rule checked, each refusal naming its flag. */
function cliGuardOptions(duration: string, severity: string, rule: string | undefined): GuardOptions {
  const bake = bakeDurationProblem(duration);
  if ('problem' in bake) throw new CliError(bake.problem);
  const parsed = guardOptionsSchema.safeParse({ bakeMs: bake.ms, rule: { severity, rule: rule ?? null } });
  if (!parsed.success) {
    throw new CliError(parsed.error.issues.map((i) => `--guard-${i.path.at(-1) === 'rule' ? 'rule' : 'severity'} ${i.message}`).join('\n'));
  }
  return parsed.data;
}

export function register(program: Command): void {
  const config = program.command('config').description('Task configuration: apply, export, diff');

  config
    .command('apply <file>')
    .description('Validate a YAML/JSON config and store it as a new version')
    .option('-m, --message <text>', 'why this change', '')
    .option('--based-on <version>', 'refuse if the latest version is not this one')
    .option('--guard <duration>', 'apply with guard: watch the changed tasks for this bake time (e.g. 10m, 90s, 1h) and roll them back if the rule fires')
    .option('--guard-severity <severity>', 'with --guard: the least severity that rolls back (warning or critical)', 'critical')
    .option('--guard-rule <rule>', 'with --guard: only this alert rule rolls back (e.g. depth, p99LatencyMs); default any rule')
    .action(async (file: string, o: { message: string; basedOn?: string; guard?: string; guardSeverity: string; guardRule?: string }) => {
      const cfg = validated(file);
      if (o.basedOn !== undefined && !/^\d+$/.test(o.basedOn)) throw new CliError(`--based-on must be a version number, got "${o.basedOn}"`);
      const guard = o.guard === undefined ? null : cliGuardOptions(o.guard, o.guardSeverity, o.guardRule);
      if (guard === null && (o.guardRule !== undefined || o.guardSeverity !== 'critical')) throw new CliError('--guard-rule and --guard-severity need --guard <duration>');
      const actor = cliActor();
      const r = await withCliDatabase((pool) =>
        applyConfig(pool, actor, cfg, {
          message: o.message,
          ...(o.basedOn !== undefined ? { basedOn: Number(o.basedOn) } : {}),
          ...(guard ? { inSameTransaction: guardStep(actor, guard) } : {}),
        }),
      );
      console.log(`applied config version ${r.version} (${r.config.tasks.length} task(s))`);
      if (guard) {
        console.log(`guarded: the changed tasks roll back to version ${r.version - 1} by themselves if ${describeGuardRule(guard.rule)} fires within ${formatBake(guard.bakeMs)}`);
        console.log(`  watch it on the Coordinators page; promote or abort it there or in the task's history`);
      }
    });

  config
    .command('export')
    .description('Print the current config (or --version N)')
    .option('--format <format>', 'yaml or json', 'yaml')
    .option('--version <n>', 'an earlier version')
    .action(async (o: { format: string; version?: string }) => {
      if (o.format !== 'yaml' && o.format !== 'json') throw new CliError(`--format must be yaml or json, got "${o.format}"`);
      const cfg = await withCliDatabase(async (pool) => {
        if (o.version !== undefined) {
          if (!/^\d+$/.test(o.version)) throw new CliError(`--version must be a number, got "${o.version}"`);
          return configAtVersion(pool, Number(o.version));
        }
        return (await currentConfig(pool)).config;
      });
      // The same canonical form as the browser's download: tasks and groups by name, keys sorted.
      const out = canonicalConfig(cfg);
      process.stdout.write(o.format === 'json' ? JSON.stringify(out, null, 2) + '\n' : YAML.stringify(out, { lineWidth: 0 }));
    });

  config
    .command('diff <file>')
    .description('Show what applying <file> would change')
    .option('--what-if [hours]', "replay each changed task's recorded traffic (default the last 1 h) under today's and the new definition")
    .action(async (file: string, o: { whatIf?: string | boolean }) => {
      const next = validated(file);
      const hours = o.whatIf === undefined ? null : o.whatIf === true ? 1 : Number(o.whatIf);
      if (hours !== null && !(hours >= 0.05 && hours <= 24)) throw new CliError(`--what-if takes a number of hours from 0.05 to 24, got "${String(o.whatIf)}"`);
      await withCliDatabase(async (pool) => {
        const cur = await currentConfig(pool);
        // The same diff the console shows before apply: tasks by name, groups by name,
        // overrides by key, so reordering is no change.
        const changes = diffConfigs(cur.config, next);
        const lines = changes.map(formatChange);
        console.log(lines.length ? `against version ${cur.version ?? '(none)'}:\n` + lines.join('\n') : `no changes against version ${cur.version ?? '(none)'}`);
        if (hours === null) return;
        const changed = next.tasks.filter((t) => {
          const before = cur.config.tasks.find((b) => b.name === t.name);
          return before !== undefined && JSON.stringify(before) !== JSON.stringify(t);
        });
        for (const t of changed) {
          try {
            console.log('\n' + formatWhatIf(await previewTaskWhatIf(pool, { task: t as unknown as Record<string, unknown>, windowHours: hours, seed: 1 })).join('\n'));
          } catch (e) {
            console.log(`\nwhat-if for ${t.name}: ${(e as Error).message}`);
          }
        }
      });
    });
}
