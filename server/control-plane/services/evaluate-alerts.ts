// Maintenance service: the alert evaluator (server/services/alerts.ts) every 15 s with
// the policy in effect — the code's defaults (fire after 1 min of breach or the task's
// thresholds.alertAfterMs, resolve after 2 min clear, 10% hysteresis, hot partitions at
// 3× the siblings' median above depth 100, hot keys at half a group's load above 50)
// with the latest config version's fleet `defaults.alertPolicy` on top.
// Right after each evaluation the guarded-rollout watcher (server/services/guarded-rollout.ts)
// steps every baking guard against the alerts that evaluation just wrote, so a guarded
// change whose rule fires is rolled back in the same tick (within the rule's for-duration
// plus one evaluator interval), and a guard whose bake passed is promoted.
import type { ControlPlaneService } from '../service';
import { evaluateAlerts } from '../../services/alerts';
import { watchGuardedRollouts } from '../../services/guarded-rollout';
import { ALERT_EVALUATION_INTERVAL_MS } from '../../core/alert-evaluation';

export const evaluateAlertsService: ControlPlaneService = {
  name: 'evaluate-alerts',
  intervalMs: ALERT_EVALUATION_INTERVAL_MS,
  mode: 'steps',
  leaseMs: 60_000,
  run: async (ctx) => {
    const alerts = await evaluateAlerts(ctx.pool, ctx.now);
    const guards = await watchGuardedRollouts(ctx.pool, ctx.now);
    return { ...alerts, guards };
  },
};
