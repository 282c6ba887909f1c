// An operator's drain request, seen from the coordinator: the control plane sets
// coordinators.draining (services/coordinator-drain.ts) and releases the member's
// partitions. From then on the heartbeat no longer refreshes the row (it skips draining
// members), so the process must notice and stop the way SIGTERM stops it — stop
// claiming, let in-flight handlers finish within the grace period, release the rest,
// mark itself stopped — instead of re-taking partitions or going stale.
// One PK read per interval (db/read-drain-request.ts); the watcher fires once.
import type pg from 'pg';
import { drainRequested } from '../db/read-drain-request';

export interface DrainWatch {
  stop(): void;
}

export function watchDrainRequest(o: {
  pool: pg.Pool;
  id: string;
  everyMs: number;
  log: (msg: string) => void;
  onRequest: () => void;
}): DrainWatch {
  let done = false;
  let busy = false;
  const timer = setInterval(() => {
    if (done || busy) return;
    busy = true;
    drainRequested(o.pool, o.id)
      .then((yes) => {
        if (!yes || done) return;
        done = true;
        clearInterval(timer);
        o.log('drain requested from the control plane: stopping');
        o.onRequest();
      })
      .catch((e) => o.log(`drain check failed: ${(e as Error).message}`))
      .finally(() => (busy = false));
  }, o.everyMs);
  timer.unref();
  return {
    stop() {
      done = true;
      clearInterval(timer);
    },
  };
}
