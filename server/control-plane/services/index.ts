// Every control-plane service; each area adds its own (see server/control-plane/runner.ts).
import type { ControlPlaneService } from '../runner';
import { replayDeadLettersService } from './replay-dead-letters';

export const controlPlaneServices: ControlPlaneService[] = [replayDeadLettersService];
