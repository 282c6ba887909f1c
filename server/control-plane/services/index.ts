// Every control-plane service; each area adds its own (see server/control-plane/runner.ts).
import type { ControlPlaneService } from '../runner';
import { replayDeadLettersService } from './replay-dead-letters';
import { trimDeadLettersService } from './trim-dead-letters';
import { rollupMetricsService } from './rollup-metrics';
import { evaluateAlertsService } from './evaluate-alerts';
import { deliverWebhooksService } from './deliver-webhooks';
import { pruneSignInsService } from './prune-sign-ins';

export const controlPlaneServices: ControlPlaneService[] = [replayDeadLettersService, trimDeadLettersService, rollupMetricsService, evaluateAlertsService, deliverWebhooksService, pruneSignInsService];
