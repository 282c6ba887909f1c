// Handlers for the config-push spec's real coordinators: the task sleeps for the
// payload's sleepMs (honouring the abort signal), so executions stay running long
// enough for the spec to sample running counts per tenant from the database.
import { setTimeout as sleep } from 'node:timers/promises';
import type { HandlerContext } from '../../server/coordinator/handler-runner';

export const PUSH_TASK = 'e2e-tenant-push';

export default {
  [PUSH_TASK]: async (payload: unknown, ctx: HandlerContext) => {
    await sleep((payload as { sleepMs?: number }).sleepMs ?? 100, undefined, { signal: ctx.signal });
  },
};
