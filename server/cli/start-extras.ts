// What `sluice start` runs besides the control plane: in-process coordinators and the
// demo producers (SLUICE_COORDINATORS, SLUICE_DEMO). Filled in as those land.
import type { Env } from '../env';
import type { Supervisor } from './supervisor';

export async function startExtras(_ctx: { env: Env; databaseUrl: string; supervisor: Supervisor; log: (m: string) => void }): Promise<void> {
  // Coordinators and demo traffic are started here once the engine and demo exist.
}
