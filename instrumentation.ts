// Next.js calls register() once when a server instance starts. The Node.js server runs
// the control-plane services (alert evaluator, rollups, webhooks, DLQ replay jobs).
export async function register() {
  if (process.env.NEXT_RUNTIME === 'nodejs') {
    const { startControlPlane } = await import('./server/control-plane/start');
    startControlPlane();
  }
}
