// The execution runner: starts each claimed execution's handler in a slot of the ledger
// (handler-runner.ts: timeout, AbortSignal), turns what the handler did into its finish
// item (core/attempt-finish: succeeded / retry / dead / release / canceled) and hands it
// to the completer; when the completer has written a batch, frees those slots, ends
// their spans and counts the outcomes. It also aborts a handler an operator canceled and,
// at shutdown, lets handlers finish within the grace period before releasing the rest.
import { decideAttemptFinish, type AbortedBy } from '../core/attempt-finish';
import { longestTimeout, retryPolicyForKeys, timeoutForKeys } from '../core/fleet-defaults';
import type { TaskDefinition } from '../core/task-definition';
import type { ClaimedExecution } from '../db/claim-executions';
import type { FinishItem } from '../db/finish-executions';
import type { LeaseCut } from '../db/narrow-leases';
import type { TraceContextRow } from '../db/read-trace-contexts';
import type { AttemptTracer } from './attempt-tracing';
import type { CompletedBatch } from './completer';
import type { CoordinatorMetrics, Histogram } from './coordinator-metrics';
import { CancelAbort, ExecutionAbort, runHandler, ShutdownAbort, type HandlerMap } from './handler-runner';
import type { ServedTasks } from './served-tasks';
import type { RunningExecution, SlotLedger } from './slot-ledger';

export interface ExecutionRunnerOptions {
  handlers: HandlerMap;
  ledger: SlotLedger;
  /** The current definitions: a failure is retried under the task's retry policy as
   *  applied now, not as it was at claim time. */
  tasks: ServedTasks;
  /** Where finish items go (the completer). */
  completer: { add(task: string, item: FinishItem): void; unflushed(): number };
  /** null when tracing is off: the hot path then only tests it. */
  tracer: AttemptTracer | null;
  metrics: CoordinatorMetrics;
  log: (m: string) => void;
  /** Shortens the leases of rows whose key's own timeout is below the claim's (db/narrow-leases.ts); absent: leases stay as claimed. */
  narrowLeases?: (cuts: LeaseCut[]) => Promise<unknown>;
}

const abortedBy = (reason: unknown): AbortedBy =>
  reason instanceof ShutdownAbort ? 'shutdown' : reason instanceof CancelAbort ? 'cancel' : null;

export class ExecutionRunner {
  /** sluice_handler_duration_seconds per task, kept (one observation per execution). */
  private readonly durations = new Map<string, Histogram>();

  constructor(private readonly o: ExecutionRunnerOptions) {}

  private handlerDuration(task: string): Histogram {
    let h = this.durations.get(task);
    if (!h) this.durations.set(task, (h = this.o.metrics.histogram('sluice_handler_duration_seconds', { task }, 'Handler run time')));
    return h;
  }

  /** Runs rows claimed under `def` (by the claim loop or a refill). */
  startClaimed(rows: ClaimedExecution[], def: TaskDefinition): void {
    // Tracing on: the batch's trace contexts are read once; each row counts as running
    // (its slot taken) while they are read.
    const traces = this.o.tracer && rows.length > 0 ? this.o.tracer.lookup(rows) : null;
    for (const r of rows) this.start(r, def, traces);
    if (this.o.narrowLeases && def.groups.some((g) => g.keyPolicies)) this.narrow(rows, def);
  }

  /** The claim leased every row for the task's longest timeout: rows of a key with a shorter one get theirs cut. */
  private narrow(rows: ClaimedExecution[], def: TaskDefinition): void {
    const longest = longestTimeout(def);
    const cuts: LeaseCut[] = [];
    for (const r of rows) {
      const ms = timeoutForKeys(def, r.groups);
      if (ms < longest) cuts.push({ id: r.id, leaseToken: r.leaseToken, byMs: longest - ms });
    }
    if (cuts.length > 0) this.o.narrowLeases!(cuts).catch((e: unknown) => this.o.log(`lease narrowing failed (leases stay at the longest timeout): ${(e as Error).message}`));
  }

  private start(row: ClaimedExecution, def: TaskDefinition, traces: Promise<Map<number, TraceContextRow>> | null): void {
    const { tracer, completer } = this.o;
    const abort = new ExecutionAbort();
    const handler = this.o.handlers[def.name]!;
    const entry: RunningExecution = { row, def, abort, done: Promise.resolve() };
    this.o.ledger.add(entry);
    const claimedAt = traces ? Date.now() : 0;
    entry.done = (async () => {
      const call = () =>
        runHandler(
          handler,
          row.payload,
          {
            executionId: row.id,
            attempt: row.attempts,
            idempotencyKey: row.idempotencyKey ?? `${def.name}:${row.id}`,
            groups: row.groups,
            streamKey: row.streamKey,
            partition: row.partition,
          },
          // The key's own timeout, else the task's (core/fleet-defaults.ts timeoutForKeys).
          timeoutForKeys(def, row.groups),
          abort,
        );
      if (traces && tracer) entry.trace = tracer.begin(row, def, (await traces).get(row.id), claimedAt);
      const res = await (entry.trace ? entry.trace.run(call) : call());
      this.handlerDuration(def.name).observe(res.ms / 1000);
      // A failure retries under the current definition, per field the execution's group keys'
      // own retry policy over the task's (core/fleet-defaults.ts retryPolicyForKeys).
      const retry = res.ok ? def.retry : retryPolicyForKeys(this.o.tasks.get(def.name) ?? def, row.groups);
      completer.add(def.name, decideAttemptFinish(row, res, res.ok ? null : abortedBy(abort.reason), retry, Date.now(), Math.random));
    })();
  }

  /** The completer wrote a batch: its rows leave the ledger. Finished executions are
   *  counted per outcome once per batch (a label-keyed counter lookup per execution was a
   *  measurable share of a no-op job's cost). */
  finished(b: CompletedBatch): void {
    const { ledger, tracer, metrics } = this.o;
    const byOutcome = new Map<string, number>();
    let fenced = 0;
    for (const item of b.items) {
      const applied = b.applied.get(item.id);
      if (tracer) ledger.get(item.id)?.trace?.finished(applied ?? 'fenced');
      ledger.release(item.id);
      if (applied) byOutcome.set(applied, (byOutcome.get(applied) ?? 0) + 1);
      else fenced++;
    }
    for (const [outcome, n] of byOutcome) metrics.inc('sluice_executions_finished_total', { task: b.task, outcome }, n, 'Executions finished by this coordinator, by outcome');
    if (fenced > 0) metrics.inc('sluice_executions_fenced_total', { task: b.task }, fenced, 'Completions that matched no live lease (fenced)');
  }

  /** Executions running here now, for the cancel watch. */
  leases(): { id: number; leaseToken: string }[] {
    return this.o.ledger.executions().map((r) => ({ id: r.row.id, leaseToken: r.row.leaseToken }));
  }

  /** An operator's cancel of an execution running here: abort its handler; the finish
   *  records `canceled` and frees its slots and stream (cancel-watch.ts). */
  cancel(executionId: number): void {
    const r = this.o.ledger.get(executionId);
    if (!r || r.abort.aborted) return;
    this.o.log(`execution ${executionId} canceled by an operator: aborting its handler`);
    r.abort.abort(new CancelAbort('canceled by an operator'));
  }

  /**
   * Shutdown: wait up to graceMs for running handlers to return, then abort the rest with
   * ShutdownAbort (their finish is `release`) and wait until every finish item is handed
   * to the completer.
   */
  async settle(graceMs: number): Promise<void> {
    const { ledger, completer } = this.o;
    const deadline = Date.now() + graceMs;
    // unflushed, not pending: a batch being written has left the buffer but its rows stay
    // in the ledger until written; counting them as still running made this loop spin on
    // settled promises (microtasks only: no timer or I/O ran, heartbeats stopped, the
    // member looked dead and its leases were rescued) until the grace period ran out.
    while (ledger.inFlight > completer.unflushed() && Date.now() < deadline) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([Promise.allSettled(ledger.executions().map((r) => r.done)), new Promise((r) => (timer = setTimeout(r, Math.max(1, deadline - Date.now()))))]);
      // The grace timer must not outlive the wait (it held a stopped coordinator's process open).
      clearTimeout(timer);
    }
    for (const r of ledger.executions()) if (!r.abort.aborted) r.abort.abort(new ShutdownAbort('coordinator shutting down'));
    await Promise.allSettled(ledger.executions().map((r) => r.done));
  }
}
