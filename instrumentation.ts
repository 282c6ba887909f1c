// Next.js calls register() once when a server instance starts. The Node.js server runs
// the control-plane services (alert evaluator, rollups, webhooks, DLQ replay jobs), and
// starts OpenTelemetry when the OTEL_* variables ask for it (docs/tracing.md): the REST
// enqueue request then has a server span that the executions' attempts are children of.
// Off (the default), nothing of OpenTelemetry is loaded.
export async function register() {
  if (process.env.NEXT_RUNTIME === 'nodejs') {
    const { startTracing } = await import('./server/telemetry/tracing');
    await startTracing({ serviceName: 'sluice-control-plane' }).catch((e: unknown) => {
      console.warn(`[sluice tracing] could not start, running without it: ${(e as Error).message}`);
    });
    const { startControlPlane } = await import('./server/control-plane/start');
    startControlPlane();
  }
}
