// Maintenance service: sends due webhook deliveries (server/services/webhooks.ts) every
// 5 s, each attempt recorded; failed ones retry with backoff until max_attempts.
import type { ControlPlaneService } from '../service';
import { deliverDueWebhooks } from '../../services/webhooks';

export const deliverWebhooksService: ControlPlaneService = {
  name: 'deliver-webhooks',
  intervalMs: 5_000,
  mode: 'steps',
  leaseMs: 60_000,
  run: (ctx) => deliverDueWebhooks(ctx.pool, { now: ctx.now }),
};
