// startCoordinator: wires the parts into one running member. Each part has one job:
//   served-tasks.ts      the served tasks' applied definitions, and whether draining
//   slot-ledger.ts       running executions + slots reserved by claims in flight
//   claim-loop.ts        claims into free slots (idle polls, start-up, other tasks)
//   execution-runner.ts  runs handlers, decides each finish (core/attempt-finish)
//   completer.ts         batches finishes into sluice_finish / sluice_cycle
//   refill.ts            the claim riding on a flush (core/slot-plan)
//   breaker-gate.ts      the tasks' circuit breakers: what may be claimed, outcomes reported
//   slot-folder.ts       adds the logged per-key counter moves into group_slots, off the lock
//   heartbeat.ts         membership row + partition ownership (ownership.ts)
//   shutdown.ts          the orderly stop, whoever asks
// plus the config listener, cancel and drain watches, maintenance and /metrics.
import os from 'node:os';
import { resolveTimings, type Timings } from '../core/coordinator-timings';
import type { SluiceConfig } from '../core/task-definition';
import { markDraining, markStopped, registerCoordinator } from '../db/coordinator-membership';
import { createCoordinatorPool } from '../db/coordinator-pool';
import { MaintenanceRunner } from '../db/maintenance-runner';
import { narrowLeases } from '../db/narrow-leases';
import { recordMetricsPort } from '../db/record-metrics-port';
import { startTracing, type Tracing } from '../telemetry/tracing';
import { AttemptTracer } from './attempt-tracing';
import { BreakerGate } from './breaker-gate';
import { CancelWatch } from './cancel-watch';
import { ClaimLoop } from './claim-loop';
import { Completer } from './completer';
import { ConfigListener } from './config-listener';
import { CoordinatorMetrics, declareCoordinatorMetrics } from './coordinator-metrics';
import { watchDrainRequest } from './drain-request';
import { ExecutionRunner } from './execution-runner';
import type { HandlerMap } from './handler-runner';
import { Heartbeat } from './heartbeat';
import { LocalSignal } from './local-signal';
import { defaultServices, type MaintenanceSettings } from './maintenance';
import { startMetricsServer, type MetricsServer } from './metrics-server';
import { Ownership } from './ownership';
import { RefillPlanner } from './refill';
import { chooseServedTasks, ServedTasks } from './served-tasks';
import { orderlyShutdown } from './shutdown';
import { SlotLedger } from './slot-ledger';
import { SlotFolder } from './slot-folder';
import { foldSlotDeltas } from '../db/fold-slot-deltas';

/** How often a coordinator reports its finished outcomes to the tasks' circuit breakers. */
export const BREAKER_REPORT_MS = 200;

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

export async function startCoordinator(opts: StartCoordinatorOptions): Promise<RunningCoordinator> {
  const timings = resolveTimings(opts.timings ?? {}, process.env);
  const ledger = new SlotLedger(opts.slots ?? 10);
  const slots = ledger.slots;
  const served = chooseServedTasks(opts.handlers, opts.tasks);
  const tasks = new ServedTasks(served);
  const name = opts.name ?? `${os.hostname()}-${process.pid}`;
  const log = opts.log ?? ((m: string) => console.log(`[coordinator ${name}] ${m}`));
  const pool = createCoordinatorPool(opts.databaseUrl, slots, log);
  const metrics = new CoordinatorMetrics();
  const signal = new LocalSignal();

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
  const tracer = tracing ? new AttemptTracer(tracing, pool, id, log) : null;
  if (tracing) log(`tracing on: a span per attempt${tracing.owned ? '' : " (the process's own tracer provider)"}`);

  const apply = async (_version: number, config: SluiceConfig) => {
    const shape = tasks.apply(config);
    if (shape !== null) {
      await ownership.tick(served, tasks.draining);
      tasks.ownershipSynced(shape);
    }
    signal.fire();
  };

  // Circuit breakers: outcomes summed and reported every BREAKER_REPORT_MS; rows re-read
  // on sluice_breaker and every heartbeat as the fallback.
  const gate = new BreakerGate({
    pool,
    tasks: () => served.map((t) => tasks.get(t)).filter((d) => d !== undefined),
    refreshMs: timings.heartbeatMs,
    reportMs: BREAKER_REPORT_MS,
    leaseGraceMs: timings.leaseGraceMs,
    wake: () => signal.fire(),
    log,
  });

  // Claims and finishes of grouped tasks log their per-key counter moves; this member
  // folds them into group_slots every slotFoldMs (slot-folder.ts).
  const slotFolder = new SlotFolder({ everyMs: timings.slotFoldMs, fold: (task) => foldSlotDeltas(pool, task), log });
  const grouped = (task: string) => (tasks.get(task)?.groups.length ?? 0) > 0;

  const refill = new RefillPlanner({
    gate,
    coordinatorId: id,
    ledger,
    tasks,
    leaseGraceMs: timings.leaseGraceMs,
    metrics,
    start: (rows, def) => runner.startClaimed(rows, def),
    wake: () => signal.fire(),
  });
  const completer: Completer = new Completer({
    pool,
    flushMs: timings.flushMs,
    log,
    refill,
    onFlushed: (b) => {
      if (grouped(b.task)) slotFolder.touched(b.task);
      runner.finished(b);
      gate.finished(b);
      // A batch that carried a refill claim already handed its freed slots back out
      // (refill.done decides whether the claim loop is needed); otherwise wake it.
      if (!refill.riding(b.task)) signal.fire();
    },
    // The flush delay exists to batch completions; once every running handler has
    // finished (all of them are buffered or being written), no more can join.
    nothingMoreComing: () => completer.unflushed() >= ledger.inFlight,
  });
  const runner = new ExecutionRunner({ handlers: opts.handlers, ledger, tasks, completer, tracer, metrics, log, narrowLeases: (cuts) => narrowLeases(pool, cuts) });

  const listener = new ConfigListener({
    pool,
    // LISTEN does not pass a transaction pooler: the direct URL when there is one.
    databaseUrl: opts.databaseDirectUrl ?? opts.databaseUrl,
    coordinatorId: id,
    pollMs: timings.configPollMs,
    apply,
    onEnqueue: (task) => {
      if (tasks.has(task)) signal.fire();
    },
    onCancel: (executionId) => cancelWatch.notified(executionId),
    onBreaker: (task) => {
      if (tasks.has(task)) void gate.refresh();
    },
    log,
  });
  const cancelWatch = new CancelWatch({ pool, everyMs: timings.heartbeatMs, running: () => runner.leases(), onCancel: (executionId) => runner.cancel(executionId), log });
  const claimLoop = new ClaimLoop({
    pool,
    me: id,
    slots,
    signal,
    tasks: () => tasks.claimable(),
    inFlight: () => ledger.busy(),
    hold: (n) => ledger.hold(n),
    leaseGraceMs: timings.leaseGraceMs,
    pollMs: timings.pollMs,
    onClaimed: (rows, def) => {
      if (def.groups.length > 0) slotFolder.touched(def.name);
      runner.startClaimed(rows, def);
    },
    metrics,
    log,
    gate,
  });
  declareCoordinatorMetrics(metrics, {
    inFlight: () => ledger.inFlight,
    slots,
    appliedVersion: () => listener.applied,
    servedTasks: served,
    ownedPartitions: (t) => ownership.owned.filter((o) => o.task === t).length,
  });

  await listener.start();
  await gate.start();
  await ownership.tick(served, false);
  const heartbeat = new Heartbeat({
    pool,
    id,
    everyMs: timings.heartbeatMs,
    inFlight: () => ledger.inFlight,
    draining: () => tasks.draining,
    syncOwnership: () => ownership.tick(served, tasks.draining),
    onTaken: () => signal.fire(),
    log,
  });
  heartbeat.start();

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
    await recordMetricsPort(pool, id, server.port);
  }
  claimLoop.start();
  cancelWatch.start();
  const drainWatch = watchDrainRequest({ pool, id, everyMs: timings.heartbeatMs, log, onRequest: () => void shutdown.stop() });
  log(`started as ${id} serving ${served.join(', ')} with ${slots} slots`);

  const shutdown = orderlyShutdown({
    startDraining: () => tasks.startDraining(),
    drainWatch,
    claimLoop,
    markDraining: () => markDraining(pool, id),
    settleHandlers: () => runner.settle(timings.shutdownGraceMs),
    cancelWatch,
    completer,
    slotFolder,
    heartbeat,
    maintenance,
    listener,
    metricsServer: server,
    markStopped: () => markStopped(pool, id, ledger.inFlight),
    shutdownTracing: opts.tracing === undefined && tracing ? () => tracing.shutdown() : null,
    closePool: async () => {
      await gate.stop(); // the last outcomes reported before the pool closes
      await pool.end();
    },
    log,
  });

  return {
    id,
    name,
    metricsPort: server?.port ?? null,
    metrics,
    inFlight: () => ledger.inFlight,
    appliedVersion: () => listener.applied,
    stop: shutdown.stop,
    stopped: shutdown.stopped,
  };
}
