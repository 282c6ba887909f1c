// The orderly stop of one coordinator, the same whoever asks (SIGTERM, an operator's
// drain request, a test): stop claiming, mark the member draining (its partitions are
// released so others take over), let in-flight handlers finish within the grace period,
// release the rest back to the queue, flush completions (and fold their slot counter
// moves), and only then stop the
// heartbeat (it keeps the member visibly alive, so the rescuer leaves its leases alone
// until the work above is recorded), maintenance, the config listener and /metrics, mark
// the member stopped, flush traces, close the pool. stop() runs once; later calls share it.

export interface ShutdownSteps {
  /** The member claims nothing from now on. */
  startDraining(): void;
  drainWatch: { stop(): void };
  claimLoop: { stop(): Promise<void> };
  markDraining(): Promise<void>;
  /** Let handlers finish within the grace period, release the rest (ExecutionRunner.settle). */
  settleHandlers(): Promise<void>;
  cancelWatch: { stop(): Promise<void> };
  /** idle(): the flush being written is done (a claim riding it has started its rows);
   *  close(): everything buffered is written. */
  completer: { idle(): Promise<void>; close(): Promise<void> };
  /** The logged per-key counter moves of the last claims and finishes, folded (slot-folder.ts). */
  slotFolder: { stop(): Promise<void> };
  heartbeat: { stop(): Promise<void> };
  maintenance: { stop(): Promise<void> } | null;
  listener: { stop(): Promise<void> };
  metricsServer: { close(): Promise<void> } | null;
  markStopped(): Promise<void>;
  /** Tracing owned by this coordinator: export what is left and shut it down. */
  shutdownTracing: (() => Promise<void>) | null;
  closePool(): Promise<void>;
  log: (m: string) => void;
}

export interface Shutdown {
  stop(): Promise<void>;
  /** Resolves once stopped, whoever asked. */
  stopped: Promise<void>;
}

export function orderlyShutdown(s: ShutdownSteps): Shutdown {
  let stopping: Promise<void> | null = null;
  let resolveStopped!: () => void;
  const stopped = new Promise<void>((resolve) => (resolveStopped = resolve));
  const failed = (what: string) => (e: unknown) => s.log(`${what} failed: ${(e as Error).message}`);
  const run = async () => {
    s.startDraining();
    s.drainWatch.stop();
    await s.claimLoop.stop();
    // A flush planned before draining may carry a claim: its rows must be in the ledger
    // before the handlers are settled, or they would start after the completer closed and
    // stay running, leased, until the rescuer took them.
    await s.completer.idle();
    await s.markDraining().catch(failed('drain mark'));
    await s.settleHandlers();
    await s.cancelWatch.stop();
    await s.completer.close();
    await s.slotFolder.stop();
    // Heartbeats continue until the work above is finished and recorded.
    await s.heartbeat.stop();
    await s.maintenance?.stop();
    await s.listener.stop();
    await s.metricsServer?.close();
    await s.markStopped().catch(failed('stop mark'));
    // Spans of attempts whose finish was never written (released to the rescuer) stay open.
    await s.shutdownTracing?.().catch(failed('trace export at stop'));
    await s.closePool();
    s.log('stopped');
  };
  return {
    stop: () => (stopping ??= run().finally(() => resolveStopped())),
    stopped,
  };
}
