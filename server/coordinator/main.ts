// startCoordinator: composes the parts (membership + heartbeat, ownership, config
// listener, claim loop, handler runner, completer, maintenance, /metrics) into one
// running member, and stop() takes it down in order: stop claiming, drain (partitions
// released so others take over), let in-flight handlers finish within the grace
// period, release the rest back to the queue, flush completions, mark stopped.
import os from 'node:os';
import type pg from 'pg';
import pgModule from 'pg';
import type { SluiceConfig, TaskDefinition } from '../core/task-definition';
import { decideFailure } from '../core/backoff';
import { errorFingerprint } from '../core/fingerprint';
import { drainingHeartbeat, heartbeat, markDraining, markStopped, registerCoordinator } from '../db/coordinator-membership';
import type { ClaimedExecution } from '../db/claim-executions';
import type { FinishItem } from '../db/finish-executions';
import { resolveTimings, type Timings } from '../core/coordinator-timings';
import { LocalSignal } from './local-signal';
import { CoordinatorMetrics } from './coordinator-metrics';
import { startMetricsServer, type MetricsServer } from './metrics-server';
import { watchDrainRequest } from './drain-request';
import { ConfigListener } from './config-listener';
import { Ownership } from './ownership';
import { Completer, type CompletedBatch, type Refill } from './completer';
import { ClaimLoop } from './claim-loop';
import { CancelAbort, runHandler, ShutdownAbort, type HandlerMap } from './handler-runner';
import { CancelWatch } from './cancel-watch';
import { MaintenanceRunner } from '../db/maintenance-runner';
import { defaultServices, type MaintenanceSettings } from './maintenance';
import { AttemptTracer, type AttemptTrace } from './attempt-tracing';
import type { TraceContextRow } from '../db/read-trace-contexts';
import { startTracing, type Tracing } from '../telemetry/tracing';

export interface StartCoordinatorOptions {
  databaseUrl: string;
  /** DATABASE_DIRECT_URL: the same Postgres without a transaction pooler (for LISTEN). */
  databaseDirectUrl?: string;
  handlers: HandlerMap;
  name?: string;
  slots?: number;
  /** Narrow the served tasks (each must have a handler). */
  tasks?: string[];
  /** null/undefined: no /metrics server; 0: any free port. */
  metricsPort?: number | null;
  /** Bearer token /metrics requires (SLUICE_METRICS_TOKEN); unset: open. */
  metricsToken?: string;
  timings?: Partial<Record<keyof Timings, unknown>>;
  maintenance?: boolean | Partial<MaintenanceSettings>;
  /** OpenTelemetry (docs/tracing.md): undefined = from the OTEL_* variables (off unless
   *  set; shut down with the coordinator); a Tracing = use it (the caller shuts it down);
   *  null = off. */
  tracing?: Tracing | null;
  log?: (msg: string) => void;
}

export interface RunningCoordinator {
  id: string;
  name: string;
  metricsPort: number | null;
  metrics: CoordinatorMetrics;
  /** Executions this process is running now. */
  inFlight(): number;
  appliedVersion(): number | null;
  stop(): Promise<void>;
  /** Resolves once stopped, whoever asked (SIGTERM, or an operator's drain request). */
  stopped: Promise<void>;
}

const PgPool = pgModule.Pool;

interface Running {
  row: ClaimedExecution;
  def: TaskDefinition;
  abort: AbortController;
  done: Promise<void>;
  /** tracing on: the attempt's span, ended when its finish is written */
  trace?: AttemptTrace;
}

export async function startCoordinator(opts: StartCoordinatorOptions): Promise<RunningCoordinator> {
  const timings = resolveTimings(opts.timings ?? {}, process.env);
  const slots = opts.slots ?? 10;
  if (!Number.isInteger(slots) || slots < 1) throw new Error(`slots must be a whole number ≥ 1, got ${opts.slots}`);
  const handlerNames = Object.keys(opts.handlers).sort();
  for (const t of opts.tasks ?? []) {
    if (!opts.handlers[t]) throw new Error(`--tasks names "${t}", but the handlers module has no handler for it (it has: ${handlerNames.join(', ') || 'none'})`);
    if (typeof opts.handlers[t] !== 'function') throw new Error(`the handler for "${t}" is not a function`);
  }
  const served = (opts.tasks && opts.tasks.length > 0 ? [...opts.tasks] : handlerNames).sort();
  if (served.length === 0) throw new Error('the handlers module serves no task: its default export must map task names to async functions');
  const name = opts.name ?? `${os.hostname()}-${process.pid}`;
  const log = opts.log ?? ((m: string) => console.log(`[coordinator ${name}] ${m}`));

  // Claims, finishes and maintenance commit asynchronously (synchronous_commit = off):
  // every claimer and finisher of a task queues on its task_runtime row lock, which is
  // held until commit, so a WAL flush per commit (~1–10 ms here) would be the ceiling on
  // claims per second. Losing the last few commits in a database crash is safe for these
  // writes: a lost claim leaves the row queued (the handler's completion is then fenced
  // and the execution runs again), a lost finish leaves it running until its lease
  // expires — both keep at-least-once. Enqueue (the producer's acceptance) stays durable.
  const pool: pg.Pool = new PgPool({
    connectionString: opts.databaseUrl,
    max: Math.min(20, 4 + Math.ceil(slots / 50)),
    application_name: 'sluice-coordinator',
    options: '-c synchronous_commit=off',
  });
  pool.on('error', (err) => log(`idle client error: ${err.message}`));
  // A checked-out client (a maintenance transaction, a claim) whose connection dies emits
  // 'error' on itself; without a listener that crashes the process. Its pending query
  // fails anyway and the pool discards the dead client on release.
  pool.on('connect', (client) => client.on('error', (err) => log(`connection error: ${err.message}`)));
  const metrics = new CoordinatorMetrics();
  const signal = new LocalSignal();
  const running = new Map<number, Running>();
  let defs = new Map<string, TaskDefinition>();
  let draining = false;

  const id = await registerCoordinator(pool, {
    name, host: os.hostname(), pid: process.pid, tasks: served, slots, metricsPort: opts.metricsPort ?? null,
    timings: { heartbeatMs: timings.heartbeatMs, staleMs: timings.staleMs, leaseGraceMs: timings.leaseGraceMs },
  });
  const ownership = new Ownership(pool, id, timings.staleMs);
  // Tracing never stops the work: if the OpenTelemetry SDK cannot start, run without it.
  const tracing =
    opts.tracing !== undefined
      ? opts.tracing
      : await startTracing({ serviceName: 'sluice-coordinator', log }).catch((e: unknown) => {
          log(`tracing could not start, running without it: ${(e as Error).message}`);
          return null;
        });
  // null when tracing is off: the hot path below then only tests it.
  const tracer = tracing ? new AttemptTracer(tracing, pool, id, log) : null;
  if (tracing) log(`tracing on: a span per attempt${tracing.owned ? '' : " (the process's own tracer provider)"}`);

  // Ownership depends only on which served tasks exist and how many partitions each has.
  // A push that changes neither (limits, groups, thresholds, pause …) needs no re-sync, so
  // applying it is a map swap; the heartbeat re-syncs ownership on its own interval anyway.
  let ownershipShape: string | null = null;
  const apply = async (_version: number, config: SluiceConfig) => {
    defs = new Map(config.tasks.filter((t) => served.includes(t.name)).map((t) => [t.name, t]));
    const shape = [...defs.values()].map((d) => `${d.name}:${d.partitions}`).sort().join(',');
    if (shape !== ownershipShape) {
      await ownership.tick(served, draining);
      ownershipShape = shape;
    }
    signal.fire();
  };
  const listener = new ConfigListener({
    pool,
    // LISTEN does not pass a transaction pooler: the direct URL when there is one.
    databaseUrl: opts.databaseDirectUrl ?? opts.databaseUrl,
    coordinatorId: id,
    pollMs: timings.configPollMs,
    apply,
    onEnqueue: (task) => {
      if (defs.has(task)) signal.fire();
    },
    onCancel: (executionId) => cancelWatch.notified(executionId),
    log,
  });
  // An operator's cancel of an execution running here: abort its handler; the finish
  // records `canceled` and frees its slots and stream (cancel-watch.ts).
  const cancelWatch = new CancelWatch({
    pool,
    everyMs: timings.heartbeatMs,
    running: () => [...running.values()].map((r) => ({ id: r.row.id, leaseToken: r.row.leaseToken })),
    onCancel: (executionId) => {
      const r = running.get(executionId);
      if (!r || r.abort.signal.aborted) return;
      log(`execution ${executionId} canceled by an operator: aborting its handler`);
      r.abort.abort(new CancelAbort('canceled by an operator'));
    },
    log,
  });

  // Finished executions are counted per outcome once per batch (a label-keyed counter
  // lookup per execution was a measurable share of a no-op job's cost).
  const onFlushed = (b: CompletedBatch) => {
    const byOutcome = new Map<string, number>();
    let fenced = 0;
    for (const item of b.items) {
      const applied = b.applied.get(item.id);
      if (tracer) running.get(item.id)?.trace?.finished(applied ?? 'fenced');
      running.delete(item.id);
      if (applied) byOutcome.set(applied, (byOutcome.get(applied) ?? 0) + 1);
      else fenced++;
    }
    for (const [outcome, n] of byOutcome) metrics.inc('sluice_executions_finished_total', { task: b.task, outcome }, n, 'Executions finished by this coordinator, by outcome');
    if (fenced > 0) metrics.inc('sluice_executions_fenced_total', { task: b.task }, fenced, 'Completions that matched no live lease (fenced)');
    // A batch that carried a refill claim already handed its freed slots back out (done()
    // below decides whether the claim loop is needed); otherwise wake the claim loop.
    if (!planned.has(b.task)) signal.fire();
  };
  // Local slots reserved by claim calls in flight (the claim loop's, and the claims that
  // ride on a flush): counted as busy so no two calls can fill the same slot.
  let reserved = 0;
  const planned = new Map<string, TaskDefinition>(); // one flush per task at a time
  const busy = () => running.size + reserved;
  const refill: Refill = {
    coordinatorId: id,
    plan: (task, freeing) => {
      const def = defs.get(task);
      if (!def || draining || def.paused) return null;
      // The flush's rows are still in `running`; they free their slots with this call.
      // With several tasks served, take only a share so the claim loop's rotation can
      // give the rest to the other tasks (no task starves another by always refilling).
      const free = slots - busy() + freeing;
      const active = [...defs.values()].filter((d) => !d.paused).length;
      const max = Math.max(0, active > 1 ? Math.min(freeing, Math.ceil(free / active)) : free);
      if (max === 0) return null;
      reserved += max;
      planned.set(task, def);
      return { max, leaseMs: def.timeoutMs + timings.leaseGraceMs };
    },
    done: (task, n, rows) => {
      reserved -= n;
      const def = planned.get(task)!;
      planned.delete(task);
      if (rows.length > 0) metrics.inc('sluice_executions_claimed_total', { task }, rows.length, 'Executions claimed by this coordinator');
      // Started with the definition the claim was planned under (as the claim loop does).
      const traces = tracer && rows.length > 0 ? tracer.lookup(rows) : null;
      for (const r of rows) startOne(r, def, traces);
      // With one task the refill asked for every free slot: it filled them, or came back
      // short because nothing more is claimable — the backlog is drained or the group
      // limits allow no more until something finishes, and the next finish refills again.
      // Waking the claim loop would only repeat the claim under the task lock (with a
      // tenant at its limit, W2 skew made 23,595 such claims for 100,000 jobs). Wake it
      // when other tasks could use the slots; the poll interval stays the fallback (a
      // grouped round may under-admit, and the next poll fills the gap).
      const others = [...defs.values()].filter((d) => !d.paused).length > 1;
      if (others) signal.fire();
    },
  };
  // The flush delay exists to batch completions; once every running handler has finished
  // (all of them are buffered or being written), no more can join, so flush at once.
  const completer: Completer = new Completer(pool, timings.flushMs, onFlushed, log, 500, refill, (): boolean => completer.unflushed() >= running.size);

  // traces: tracing on, the claimed batch's trace contexts (AttemptTracer.lookup); the
  // row counts as running (its slot taken) while they are read.
  const startOne = (row: ClaimedExecution, def: TaskDefinition, traces: Promise<Map<number, TraceContextRow>> | null = null) => {
    const abort = new AbortController();
    const handler = opts.handlers[def.name]!;
    const entry: Running = { row, def, abort, done: Promise.resolve() };
    running.set(row.id, entry);
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
          def.timeoutMs,
          abort,
        );
      if (traces && tracer) entry.trace = tracer.begin(row, def, (await traces).get(row.id), claimedAt);
      const res = await (entry.trace ? entry.trace.run(call) : call());
      metrics.observe('sluice_handler_duration_seconds', { task: def.name }, res.ms / 1000, 'Handler run time');
      let item: FinishItem;
      if (res.ok) {
        item = { id: row.id, leaseToken: row.leaseToken, outcome: 'succeeded' };
      } else if (abort.signal.reason instanceof ShutdownAbort) {
        item = { id: row.id, leaseToken: row.leaseToken, outcome: 'release' };
      } else if (abort.signal.reason instanceof CancelAbort) {
        item = { id: row.id, leaseToken: row.leaseToken, outcome: 'canceled' };
      } else {
        const current = defs.get(def.name) ?? def;
        const d = decideFailure(current.retry, Math.max(1, row.attempts), Date.now(), Math.random);
        item = {
          id: row.id,
          leaseToken: row.leaseToken,
          outcome: d.kind,
          ...(d.kind === 'retry' ? { runAt: new Date(d.runAt) } : {}),
          error: `${res.error.name}: ${res.error.message}`.slice(0, 8000),
          ...(res.error.stack ? { stack: res.error.stack.slice(0, 16_000) } : {}),
          fingerprint: errorFingerprint(res.error),
        };
      }
      completer.add(def.name, item);
    })();
  };

  const claimLoop = new ClaimLoop({
    pool,
    me: id,
    slots,
    signal,
    tasks: () => (draining ? [] : [...defs.values()].filter((d) => !d.paused)),
    inFlight: busy,
    hold: (n) => {
      reserved += n;
    },
    leaseGraceMs: timings.leaseGraceMs,
    pollMs: timings.pollMs,
    onClaimed: (rows, def) => {
      const traces = tracer ? tracer.lookup(rows) : null;
      for (const r of rows) startOne(r, def, traces);
    },
    metrics,
    log,
  });

  metrics.declareCounter('sluice_executions_claimed_total', 'Executions claimed by this coordinator');
  metrics.declareCounter('sluice_executions_finished_total', 'Executions finished by this coordinator, by outcome');
  metrics.declareCounter('sluice_executions_fenced_total', 'Completions that matched no live lease (fenced)');
  metrics.declareHistogram('sluice_claim_duration_seconds', 'Round trip of one sluice_claim call');
  metrics.declareHistogram('sluice_handler_duration_seconds', 'Handler run time');
  metrics.gauge('sluice_coordinator_in_flight', 'Executions running in this coordinator', () => [{ labels: {}, value: running.size }]);
  metrics.gauge('sluice_coordinator_slots', 'Slots of this coordinator', () => [{ labels: {}, value: slots }]);
  metrics.gauge('sluice_config_applied_version', 'Config version this coordinator applied', () => [{ labels: {}, value: listener.applied ?? 0 }]);
  metrics.gauge('sluice_owned_partitions', 'Partitions this coordinator owns, per task', () =>
    served.map((t) => ({ labels: { task: t }, value: ownership.owned.filter((o) => o.task === t).length })),
  );

  await listener.start();
  await ownership.tick(served, false);

  let beating = false;
  const beat = async () => {
    if (beating) return;
    beating = true;
    try {
      if (draining) {
        // Finishing in-flight work: stay alive for the rescuer, take no partitions.
        await drainingHeartbeat(pool, id, running.size);
        return;
      }
      await heartbeat(pool, id, running.size);
      const r = await ownership.tick(served, draining);
      if (r.taken > 0) signal.fire();
    } catch (e) {
      log(`heartbeat failed: ${(e as Error).message}`);
    } finally {
      beating = false;
    }
  };
  const heartbeatTimer = setInterval(() => void beat(), timings.heartbeatMs);

  const maintenanceOpt = opts.maintenance ?? true;
  const maintenance =
    maintenanceOpt === false
      ? null
      : new MaintenanceRunner(
          pool,
          defaultServices({ heartbeatMs: timings.heartbeatMs, ...(typeof maintenanceOpt === 'object' ? maintenanceOpt : {}) }),
          { scale: timings.maintenanceScale },
          { coordinatorId: id, staleMs: timings.staleMs, log },
        );
  maintenance?.start();

  let server: MetricsServer | null = null;
  if (opts.metricsPort !== undefined && opts.metricsPort !== null) {
    server = await startMetricsServer(metrics, opts.metricsPort, '127.0.0.1', opts.metricsToken);
    await pool.query('UPDATE coordinators SET metrics_port = $2 WHERE id = $1', [id, server.port]);
  }
  claimLoop.start();
  cancelWatch.start();
  const drainWatch = watchDrainRequest({ pool, id, everyMs: timings.heartbeatMs, log, onRequest: () => void stop() });
  log(`started as ${id} serving ${served.join(', ')} with ${slots} slots`);

  let stopping: Promise<void> | null = null;
  let resolveStopped!: () => void;
  const stopped = new Promise<void>((resolve) => (resolveStopped = resolve));
  const stop = () =>
    (stopping ??= (async () => {
      draining = true;
      drainWatch.stop();
      await claimLoop.stop();
      await markDraining(pool, id).catch((e) => log(`drain mark failed: ${(e as Error).message}`));
      const deadline = Date.now() + timings.shutdownGraceMs;
      // unflushed, not pending: a batch being written has left the buffer but its rows stay
      // in `running` until written; counting them as still running made this loop spin on
      // settled promises (microtasks only: no timer or I/O ran, heartbeats stopped, the
      // member looked dead and its leases were rescued) until the grace period ran out.
      while (running.size > completer.unflushed() && Date.now() < deadline) {
        await Promise.race([Promise.allSettled([...running.values()].map((r) => r.done)), new Promise((r) => setTimeout(r, Math.max(1, deadline - Date.now())))]);
      }
      for (const r of running.values()) if (!r.abort.signal.aborted) r.abort.abort(new ShutdownAbort('coordinator shutting down'));
      await Promise.allSettled([...running.values()].map((r) => r.done));
      await cancelWatch.stop();
      await completer.close();
      // Heartbeats continue until the work above is finished and recorded.
      clearInterval(heartbeatTimer);
      while (beating) await new Promise((r) => setTimeout(r, 5));
      await maintenance?.stop();
      await listener.stop();
      await server?.close();
      await markStopped(pool, id, running.size).catch((e) => log(`stop mark failed: ${(e as Error).message}`));
      // Spans of attempts whose finish was never written (released to the rescuer) stay open.
      if (opts.tracing === undefined) await tracing?.shutdown().catch((e: unknown) => log(`trace export at stop failed: ${(e as Error).message}`));
      await pool.end();
      log('stopped');
    })().finally(() => resolveStopped()));

  return {
    id,
    name,
    metricsPort: server?.port ?? null,
    metrics,
    inFlight: () => running.size,
    appliedVersion: () => listener.applied,
    stop,
    stopped,
  };
}
