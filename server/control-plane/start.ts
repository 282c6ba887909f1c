// Starts the control-plane services inside the Next.js server process (called from
// instrumentation.ts once per server start). SLUICE_CONTROL_PLANE_SERVICES=0 turns
// them off, e.g. for a read-only replica.
import { getPool } from '../db/pool';
import { startServices, type RunnerHandle } from './runner';
import { controlPlaneServices } from './services';

const g = globalThis as unknown as { __sluiceControlPlane?: RunnerHandle };

export function startControlPlane(): RunnerHandle | undefined {
  if (process.env.SLUICE_CONTROL_PLANE_SERVICES === '0') return undefined;
  if (g.__sluiceControlPlane) return g.__sluiceControlPlane;
  const handle = startServices(getPool(), controlPlaneServices);
  g.__sluiceControlPlane = handle;
  const stop = () => void handle.stop();
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  return handle;
}
