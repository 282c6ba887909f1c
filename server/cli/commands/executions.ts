// `sluice executions list|show`: the executions list and one execution with why it waits,
// from a terminal, with the browser's filters and the same presenters (so `show` prints
// the sentence the page and GET /api/v1/executions/{id} give).
import type { Command } from 'commander';
import { EXECUTION_FILTER_KEYS, EXECUTION_STATES } from '../../core/execution-filter';
import { describeHold } from '../../core/why-waiting';
import { executionDetail, listExecutionPage, type ExecutionListInput } from '../../presenters/execution';
import { withCliDatabase } from '../cli-context';

type ListOpts = Partial<Record<(typeof EXECUTION_FILTER_KEYS)[number], string>> & { order?: string; cursor?: string; limit: string; json?: boolean };

const fmtTime = (d: Date | null) => (d ? d.toISOString().replace('T', ' ').slice(0, 19) : '—');
const oneLine = (s: string, n: number) => {
  const t = s.replace(/\s+/g, ' ');
  return t.length > n ? t.slice(0, n - 1) + '…' : t;
};
const printJson = (v: unknown) => console.log(JSON.stringify(v, null, 2));

export function register(program: Command): void {
  const ex = program.command('executions').description('Executions: list with filters, show one and why it waits');

  ex.command('list')
    .description('List executions, newest first (keyset pages: pass the printed --cursor for the next one)')
    .option('--task <task>', 'task name')
    .option('--state <state>', EXECUTION_STATES.join(' | '))
    .option('--group <group=key>', 'group key, e.g. tenant=acme')
    .option('--stream <key>', 'stream key')
    .option('--idempotency-key <key>', 'idempotency key')
    .option('--id <id>', 'one execution id')
    .option('--enqueued-from <time>', 'enqueued at or after (ISO 8601)')
    .option('--enqueued-to <time>', 'enqueued before (ISO 8601)')
    .option('--finished-from <time>', 'finished at or after (ISO 8601)')
    .option('--finished-to <time>', 'finished before (ISO 8601)')
    .option('--payload <path=value>', 'payload value at a dot path, e.g. customer.id=42')
    .option('--order <order>', 'newest | oldest', 'newest')
    .option('--cursor <id>', 'continue after this id (printed at the end of a page)')
    .option('--limit <n>', 'rows per page', '50')
    .option('--json', 'print JSON')
    .action(async (o: ListOpts) => {
      const filter: Record<string, string> = {};
      for (const k of EXECUTION_FILTER_KEYS) if (o[k] !== undefined) filter[k] = o[k]!;
      const input = { filter, order: o.order, limit: o.limit, ...(o.cursor !== undefined ? { cursor: o.cursor } : {}) } as unknown as ExecutionListInput;
      const page = await withCliDatabase((pool) => listExecutionPage(pool, input));
      if (o.json) return printJson(page);
      if (page.count) {
        const c = page.count;
        console.log(`${c.value}${c.capped ? '+' : ''} match${c.source === 'counter' ? ' (live counter)' : c.source === 'window' ? ` among ids ${page.searched?.from}–${(page.searched?.to ?? 1) - 1}` : ''}.`);
      }
      if (page.items.length === 0) console.log('No executions on this page.');
      console.log(`${'ID'.padStart(10)}  ${'STATE'.padEnd(9)}  ${'TASK'.padEnd(16)}  ${'TRIES'.padStart(5)}  ${'ENQUEUED'.padEnd(19)}  KEYS / NOTE`);
      for (const r of page.items) {
        const keys = [...Object.entries(r.groups).map(([g, k]) => `${g}=${k}`), r.streamKey ? `stream ${r.streamKey}` : null].filter(Boolean).join(' ');
        const note = r.waitingOn ? `waits on ${r.waitingOn}` : r.error ? oneLine(r.error, 50) : '';
        console.log(`${String(r.id).padStart(10)}  ${r.state.padEnd(9)}  ${r.task.padEnd(16)}  ${String(r.attempts).padStart(5)}  ${fmtTime(r.enqueuedAt)}  ${[keys, note].filter(Boolean).join('  ')}`);
      }
      if (page.searched && page.nextCursor === (input.order === 'oldest' ? page.searched.to - 1 : page.searched.from)) {
        console.log(`Searched ids ${page.searched.from}–${page.searched.to - 1} (at most ${page.searched.window} per page).`);
      }
      if (page.nextCursor !== null) console.log(`More: --cursor ${page.nextCursor}`);
    });

  ex.command('show')
    .description('One execution: state, keys, partition owner, attempts, and why it waits')
    .argument('<id>', 'execution id')
    .option('--json', 'print JSON')
    .action(async (id: string, o: { json?: boolean }) => {
      const d = await withCliDatabase((pool) => executionDetail(pool, { id }, { includePayload: true }));
      if (o.json) return printJson(d);
      console.log(`Execution ${d.id} — task ${d.task}, ${d.displayState}, partition ${d.partition}, ${d.attempts} attempt(s)`);
      console.log(`  enqueued ${fmtTime(d.enqueuedAt)}; run at ${fmtTime(d.runAt)}; started ${fmtTime(d.startedAt)}; finished ${fmtTime(d.finishedAt)}`);
      console.log(`  groups ${JSON.stringify(d.groups)}; stream ${d.streamKey ?? '—'}; idempotency key ${d.idempotencyKey ?? '—'}`);
      console.log(`  partition owner: ${d.owner?.owner ? `${d.owner.name ?? d.owner.owner} (${d.ownerLive ? 'live' : 'not live'})` : 'none'}`);
      if (d.state === 'running') console.log(`  lease: ${d.leaseOwner} until ${fmtTime(d.leaseExpiresAt)}`);
      if (d.neighbours) console.log(`  stream neighbours: previous ${d.neighbours.previous?.id ?? '—'}, next ${d.neighbours.next?.id ?? '—'}`);
      if (d.deadLetter) console.log(`  dead letter ${d.deadLetter.id}${d.deadLetter.replayExecutionId ? ` (replayed as ${d.deadLetter.replayExecutionId})` : ''}`);
      if (d.replayOrigin) console.log(`  replay of dead letter ${d.replayOrigin.deadLetterId}${d.replayOrigin.originalExecutionId ? ` (execution ${d.replayOrigin.originalExecutionId})` : ''}`);
      if (d.whyWaiting && d.whyWaiting.reason !== 'not_waiting') {
        console.log(`Waiting: ${d.whyWaiting.text}`);
        for (const h of d.whyWaiting.holds.slice(1)) console.log(`  also: ${describeHold(h)}`);
      }
      if (d.lastError) console.log(`Last error: ${oneLine(d.lastError, 200)}`);
      for (const a of d.attemptHistory) console.log(`  #${a.attempt} ${fmtTime(a.failedAt)} ${a.outcome}: ${oneLine(a.error, 100)}`);
      console.log('Payload:\n' + JSON.stringify(d.payload, null, 2));
    });
}
