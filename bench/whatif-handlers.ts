// bench:whatif's measured part: one task whose handler sleeps the payload's sleepMs (no
// database writes, so the run time is the sleep plus the engine's own overhead).
import { setTimeout as sleep } from 'node:timers/promises';

export default {
  'whatif-bench': async (payload: unknown) => {
    const ms = (payload as { sleepMs?: number } | null)?.sleepMs ?? 0;
    await sleep(ms);
  },
};
