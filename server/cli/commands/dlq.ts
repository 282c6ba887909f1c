// `sluice dlq list|show|replay|purge|jobs|job`: the dead-letter queue from a terminal,
// with the browser's filters (--task --fingerprint --group --stream --from --to --q
// --status) and the same services, so a replay or purge here is audited as
// `cli (<user>@<host>)` with its filter and counts.
//   replay: creates a job and (unless --detach) works it here with progress, leasing it
//           like the control plane does (if the control plane already runs it, this waits).
//   purge:  freezes the set, shows its count, optionally exports it (--export FILE as
//           JSON lines), then needs `--confirm "purge N"` (or typing it at the prompt).
//   --dry-run on replay and purge: counts what would be acted on; changes nothing.
import type { Command } from 'commander';
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import os from 'node:os';
import { randomBytes } from 'node:crypto';
import readline from 'node:readline/promises';
import { deadLetterFilterSchema, type DeadLetterFilterInput } from '../../core/dead-letter-filter';
import { deadLetterDetail, listDeadLetterPage, listFingerprintGroups, recentReplayJobs, replayJob } from '../../presenters/dead-letters';
import { controlReplayJob, createReplayJob, REPLAY_ACTIONS } from '../../services/dead-letter-replay';
import { runReplayJobs } from '../../services/dead-letter-replay-runner';
import { exportFrozenSet, previewPurge, purgeDeadLetters } from '../../services/dead-letter-purge';
import type { DeadLetterScopeInput } from '../../services/dead-letter-scope';
import { parseInput } from '../../core/validate-input';
import { isCoreError } from '../../core/errors';
import { CliError } from '../cli-error';
import { cliActor, printJson, withCliDatabase } from '../cli-context';

interface FilterOpts {
  task?: string;
  fingerprint?: string;
  group?: string;
  stream?: string;
  from?: string;
  to?: string;
  q?: string;
  status?: string;
  ids?: string;
  json?: boolean;
}

function withFilterOptions(cmd: Command): Command {
  return cmd
    .option('--task <task>', 'task name')
    .option('--fingerprint <fp>', 'error fingerprint')
    .option('--group <group=key>', 'group key, e.g. tenant=acme')
    .option('--stream <key>', 'stream key')
    .option('--from <time>', 'dead at or after (ISO 8601)')
    .option('--to <time>', 'dead before (ISO 8601)')
    .option('--q <text>', 'text in the error')
    .option('--status <status>', 'all | pending (not replayed) | replayed')
    .option('--json', 'print JSON');
}

function filterFrom(o: FilterOpts): DeadLetterFilterInput {
  const raw: Record<string, string> = {};
  for (const k of ['task', 'fingerprint', 'group', 'stream', 'from', 'to', 'q', 'status'] as const) if (o[k] !== undefined) raw[k] = o[k]!;
  try {
    return parseInput(deadLetterFilterSchema, raw);
  } catch (e) {
    if (!isCoreError(e)) throw e;
    const fields = e.fieldErrors?.map((f) => `  --${f.path}: ${f.message}`).join('\n');
    throw new CliError(fields ? `Invalid filter:\n${fields}` : e.message);
  }
}

function scopeFrom(o: FilterOpts): DeadLetterScopeInput {
  if (o.ids === undefined) return { filter: filterFrom(o) };
  const hasFilter = ['task', 'fingerprint', 'group', 'stream', 'from', 'to', 'q', 'status'].some((k) => o[k as keyof FilterOpts] !== undefined);
  if (hasFilter) throw new CliError('Give either --ids or filter options, not both.');
  const ids = o.ids.split(',').map((s) => s.trim()).filter(Boolean).map(Number);
  if (ids.length === 0 || ids.some((n) => !Number.isSafeInteger(n) || n <= 0)) throw new CliError('--ids must be a comma-separated list of dead-letter ids, e.g. --ids 12,15,19');
  return { ids };
}

const describeFilter = (s: DeadLetterScopeInput) =>
  'ids' in s ? `${s.ids.length} selected id(s)` : Object.entries(s.filter).filter(([k, v]) => v !== undefined && !(k === 'status' && v === 'all')).map(([k, v]) => `${k}=${v instanceof Date ? v.toISOString() : String(v)}`).join(' ') || 'everything';

const fmtTime = (d: Date | null) => (d ? d.toISOString().replace('T', ' ').slice(0, 19) : '—');
const oneLine = (s: string, n: number) => {
  const t = s.replace(/\s+/g, ' ');
  return t.length > n ? t.slice(0, n - 1) + '…' : t;
};

export function register(program: Command): void {
  const dlq = program.command('dlq').description('Dead letters: browse, replay, purge');

  withFilterOptions(dlq.command('list').description('List dead letters, newest first (or --by-fingerprint groups)'))
    .option('--limit <n>', 'rows per page', '50')
    .option('--cursor <cursor>', 'continue after this cursor (printed at the end of a page)')
    .option('--by-fingerprint', 'group by error fingerprint with counts')
    .action(async (o: FilterOpts & { limit: string; cursor?: string; byFingerprint?: boolean }) => {
      const filter = filterFrom(o);
      await withCliDatabase(async (pool) => {
        if (o.byFingerprint) {
          const r = await listFingerprintGroups(pool, { filter, limit: Number(o.limit) > 200 ? 200 : Number(o.limit) });
          if (o.json) return printJson(r);
          const groups = r.groups;
          if (groups.length === 0) return console.log('No dead letters match.');
          if (r.sampledNewest !== null) console.log(`Counted over the newest ${r.sampledNewest} matching dead letters.`);
          console.log(`${'COUNT'.padStart(7)}  ${'PENDING'.padStart(7)}  ${'FINGERPRINT'.padEnd(16)}  ${'LAST SEEN'.padEnd(19)}  ERROR`);
          for (const g of groups) {
            console.log(`${String(g.count).padStart(7)}  ${String(g.pending).padStart(7)}  ${g.fingerprint.padEnd(16)}  ${fmtTime(g.lastSeen)}  ${oneLine(g.sampleError, 70)}`);
          }
          return;
        }
        const page = await listDeadLetterPage(pool, { filter, limit: Number(o.limit), ...(o.cursor ? { cursor: o.cursor } : {}) });
        if (o.json) return printJson(page);
        if (page.count !== null) console.log(`${page.countCapped ? `${page.count}+` : page.count} dead letter(s) match ${describeFilter({ filter })}.`);
        for (const d of page.items) {
          console.log(
            `${String(d.id).padStart(8)}  ${fmtTime(d.deadAt)}  ${d.task.padEnd(16)}  ${d.fingerprint.padEnd(16)}  ${d.replayedAt ? `replayed→${d.replayExecutionId}` : 'pending'.padEnd(10)}  ${oneLine(d.error, 60)}`,
          );
        }
        if (page.nextCursor) console.log(`More: --cursor ${page.nextCursor}`);
      });
    });

  dlq
    .command('show')
    .description('One dead letter: payload, attempts, stack, replays')
    .argument('<id>', 'dead-letter id')
    .option('--json', 'print JSON')
    .action(async (id: string, o: { json?: boolean }) => {
      const d = await withCliDatabase((pool) => deadLetterDetail(pool, { id: Number(id) }));
      if (o.json) return printJson(d);
      console.log(`Dead letter ${d.id} — task ${d.task}, execution ${d.executionId}, partition ${d.partition}`);
      console.log(`  dead ${fmtTime(d.deadAt)} after ${d.attempts} attempt(s); enqueued ${fmtTime(d.enqueuedAt)}`);
      console.log(`  fingerprint ${d.fingerprint}; stream ${d.streamKey ?? '—'}; groups ${JSON.stringify(d.groups)}`);
      console.log(`  replay: ${d.replayedAt ? `${fmtTime(d.replayedAt)} → execution ${d.replayExecutionId} (${d.replayExecutionState ?? 'gone'})` : 'not replayed'}`);
      console.log('Payload:\n' + JSON.stringify(d.payload, null, 2));
      console.log('Attempts:');
      for (const a of d.attemptsLog) console.log(`  #${a.attempt} ${fmtTime(a.failedAt)} ${a.outcome}: ${oneLine(a.error, 100)}`);
      if (d.stack) console.log('Last stack:\n' + d.stack);
      for (const r of d.replays) console.log(`Replay job ${r.jobId} by ${r.byLabel}: ${r.itemState}${r.executionId ? ` → execution ${r.executionId}` : ''}${r.error ? ` (${r.error})` : ''}`);
    });

  withFilterOptions(dlq.command('replay').description('Replay dead letters (a selection with --ids, or everything matching the filter)'))
    .option('--ids <ids>', 'comma-separated dead-letter ids')
    .option('--rate <n>', 'executions per second (default: unlimited)')
    .option('--keep-attempts', 'do not reset attempts: the replay gets only what is left of the retry budget (at least one)')
    .option('--dry-run', 'count what would be replayed; change nothing')
    .option('--detach', 'create the job and return; the control plane runs it')
    .action(async (o: FilterOpts & { rate?: string; keepAttempts?: boolean; dryRun?: boolean; detach?: boolean }) => {
      const scope = scopeFrom(o);
      const rate = o.rate === undefined ? null : Number(o.rate);
      if (rate !== null && !(rate > 0)) throw new CliError('--rate must be a positive number of executions per second');
      await withCliDatabase(async (pool) => {
        const r = await createReplayJob(pool, cliActor(), { scope, resetAttempts: !o.keepAttempts, ratePerSecond: rate }, { dryRun: o.dryRun ?? false });
        if (o.dryRun) {
          if (o.json) return printJson(r);
          console.log(`Dry run: would replay ${r.total} dead letter(s) matching ${describeFilter(scope)}${r.alreadyReplayed ? ` (${r.alreadyReplayed} already replayed, left out)` : ''}.`);
          for (const t of r.byTask) console.log(`  ${t.task}: ${t.count}`);
          return;
        }
        const job = r.job!;
        if (!o.json) console.log(`Replay job ${job.id}: ${r.total} dead letter(s)${rate ? ` at ${rate}/s` : ''}${r.alreadyReplayed ? `; ${r.alreadyReplayed} already replayed, left out` : ''}.`);
        if (o.detach) return o.json ? printJson(r) : console.log('Detached: the control plane runs it (watch it on the Dead letters page or with `sluice dlq jobs`).');
        const owner = `cli:${os.hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
        let last = '';
        const show = (p: { replayed: number; skipped: number; failed: number; total: number }) => {
          const line = `  ${p.replayed + p.skipped + p.failed}/${p.total} (replayed ${p.replayed}, skipped ${p.skipped}, failed ${p.failed})`;
          if (line !== last && !o.json) console.log(line);
          last = line;
        };
        for (;;) {
          await runReplayJobs(pool, { owner, jobId: job.id, deadline: Date.now() + 60_000, onProgress: show });
          const now = await replayJob(pool, { id: job.id });
          show(now);
          if (now.state !== 'running' && now.state !== 'pending') {
            if (o.json) return printJson(now);
            return console.log(`Job ${job.id} ${now.state}: replayed ${now.replayed}, skipped ${now.skipped}, failed ${now.failed} of ${now.total}.`);
          }
          await new Promise((res) => setTimeout(res, 1000)); // leased elsewhere: wait and look again
        }
      });
    });

  withFilterOptions(dlq.command('purge').description('Purge dead letters: freeze the set, confirm, delete exactly that set'))
    .option('--ids <ids>', 'comma-separated dead-letter ids')
    .option('--dry-run', 'count what would be purged; change nothing')
    .option('--export <file>', 'write the frozen set as JSON lines before purging')
    .option('--confirm <phrase>', 'the confirmation, "purge <count>" (else asked for on a terminal)')
    .action(async (o: FilterOpts & { dryRun?: boolean; export?: string; confirm?: string }) => {
      const scope = scopeFrom(o);
      await withCliDatabase(async (pool) => {
        const actor = cliActor();
        const preview = await previewPurge(pool, actor, scope, { dryRun: o.dryRun ?? false });
        if (o.dryRun) {
          if (o.json) return printJson({ ...preview, id: null, dryRun: true });
          console.log(`Dry run: would purge ${preview.total} dead letter(s) matching ${describeFilter(scope)}.`);
          for (const t of preview.byTask) console.log(`  ${t.task}: ${t.count}`);
          return;
        }
        if (!o.json) {
          console.log(`Frozen ${preview.total} dead letter(s) matching ${describeFilter(scope)} (preview ${preview.id}); dead letters arriving from now on are not in this set.`);
          for (const t of preview.byTask) console.log(`  ${t.task}: ${t.count}`);
        }
        if (preview.total === 0) return o.json ? printJson({ preview, deleted: 0 }) : console.log('Nothing to purge.');
        if (o.export) {
          const out = createWriteStream(o.export, { flags: 'wx' });
          let n = 0;
          for await (const chunk of exportFrozenSet(pool, preview.id)) {
            n += chunk.split('\n').length - 1;
            if (!out.write(chunk)) await once(out, 'drain');
          }
          out.end();
          await once(out, 'finish');
          if (!o.json) console.log(`Exported ${n} dead letter(s) to ${o.export}.`);
        }
        let confirm = o.confirm;
        if (confirm === undefined) {
          if (!process.stdin.isTTY) throw new CliError(`Not a terminal: pass --confirm "${preview.confirmation}" to purge this set (preview ${preview.id}).`);
          const rl = readline.createInterface({ input: process.stdin, output: process.stdout });
          confirm = await rl.question(`Type "${preview.confirmation}" to delete these ${preview.total} dead letter(s): `);
          rl.close();
        }
        const r = await purgeDeadLetters(pool, actor, { previewId: preview.id, confirm });
        if (o.json) return printJson(r);
        console.log(`Purged ${r.deleted} of ${r.frozen} frozen dead letter(s).`);
      });
    });

  dlq
    .command('jobs')
    .description('Recent replay jobs and their progress')
    .option('--json', 'print JSON')
    .action(async (o: { json?: boolean }) => {
      const jobs = await withCliDatabase((pool) => recentReplayJobs(pool, { limit: 20 }));
      if (o.json) return printJson(jobs);
      if (jobs.length === 0) return console.log('No replay jobs yet.');
      for (const j of jobs) {
        console.log(
          `${String(j.id).padStart(6)}  ${j.state.padEnd(9)}  ${`${j.processed}/${j.total}`.padStart(13)}  ${(j.ratePerS ? `${j.ratePerS}/s` : 'unlimited').padEnd(10)}  ${fmtTime(j.createdAt)}  ${j.createdByLabel}`,
        );
      }
    });

  dlq
    .command('job')
    .description('Pause, resume or cancel a replay job')
    .argument('<id>', 'replay job id')
    .argument('<action>', REPLAY_ACTIONS.join(' | '))
    .action(async (id: string, action: string) => {
      const j = await withCliDatabase((pool) => controlReplayJob(pool, cliActor(), { jobId: Number(id), action: action as never }));
      console.log(`Replay job ${j.id} is now ${j.state}.`);
    });
}
