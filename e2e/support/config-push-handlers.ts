// Handlers for the config-push spec's real coordinators: the task sleeps for the
// payload's sleepMs (honouring the abort signal), so executions stay running long
// enough for the spec to sample running counts per tenant from the database.
import type { HandlerContext } from '../../server/coordinator/handler-runner';

export const PUSH_TASK = 'e2e-tenant-push';

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const t = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(t), reject(signal.reason)), { once: true });
  });
}

export default {
  [PUSH_TASK]: async (payload: unknown, ctx: HandlerContext) => {
    await sleep((payload as { sleepMs?: number }).sleepMs ?? 100, ctx.signal);
  },
};
