// Handlers for the Observe skew test: the execution sleeps `sleepMs` (honouring the
// abort signal) so a backlog builds and drains at a known pace.
import { setTimeout as sleep } from 'node:timers/promises';
import type { HandlerContext } from '../../../server/coordinator/handler-runner';

export default {
  skew: async (p: unknown, ctx: HandlerContext) => {
    await sleep((p as { sleepMs?: number }).sleepMs ?? 0, undefined, { signal: ctx.signal });
  },
};
