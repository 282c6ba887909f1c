// Starts the control-plane jobs inside the Next.js server process (called from
// instrumentation.ts once per server start) on the one maintenance runner.
// SLUICE_CONTROL_PLANE_SERVICES=0 turns them off, e.g. for a read-only replica.
import { getPool } from '../db/pool';
import { MaintenanceRunner } from '../db/maintenance-runner';
import { CONTROL_PLANE_NAMESPACE } from './service';
import { controlPlaneServices } from './services';

const g = globalThis as unknown as { __sluiceControlPlane?: MaintenanceRunner };

export function startControlPlane(): MaintenanceRunner | undefined {
  if (process.env.SLUICE_CONTROL_PLANE_SERVICES === '0') return undefined;
  if (g.__sluiceControlPlane) return g.__sluiceControlPlane;
  const runner = new MaintenanceRunner(getPool(), controlPlaneServices, { namespace: CONTROL_PLANE_NAMESPACE }, { log: (m) => console.log(`[control-plane] ${m}`) });
  runner.start();
  g.__sluiceControlPlane = runner;
  const stop = () => void runner.stop();
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  return runner;
}
