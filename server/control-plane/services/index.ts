// Every control-plane service; each area adds its own (see server/control-plane/service.ts).
import type { ControlPlaneService } from '../service';
import { replayDeadLettersService } from './replay-dead-letters';
import { trimDeadLettersService } from './trim-dead-letters';
import { rollupMetricsService } from './rollup-metrics';
import { evaluateAlertsService } from './evaluate-alerts';
import { deliverWebhooksService } from './deliver-webhooks';
import { pruneSignInsService } from './prune-sign-ins';
import { pruneHistoryService } from './prune-history';

export const controlPlaneServices: ControlPlaneService[] = [replayDeadLettersService, trimDeadLettersService, rollupMetricsService, evaluateAlertsService, deliverWebhooksService, pruneSignInsService, pruneHistoryService];
