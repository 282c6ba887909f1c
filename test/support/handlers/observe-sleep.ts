// Handlers for the Observe skew test: the execution sleeps `sleepMs` (honouring the
// abort signal) so a backlog builds and drains at a known pace.
import type { HandlerContext } from '../../../server/coordinator/handler-runner';

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const t = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(t);
      reject(signal.reason);
    }, { once: true });
  });
}

export default {
  skew: async (p: unknown, ctx: HandlerContext) => {
    await sleep((p as { sleepMs?: number }).sleepMs ?? 0, ctx.signal);
  },
};
