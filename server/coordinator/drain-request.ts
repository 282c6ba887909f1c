// An operator's drain request, seen from the coordinator: the control plane sets
// coordinators.draining (services/coordinator-drain.ts) and releases the member's
// partitions. From then on the heartbeat no longer refreshes the row (it skips draining
// members), so the process must notice and stop the way SIGTERM stops it — stop
// claiming, let in-flight handlers finish within the grace period, release the rest,
// mark itself stopped — instead of re-taking partitions or going stale.
// One PK read per interval; the watcher fires once.
import type pg from 'pg';

export async function drainRequested(pool: pg.Pool, id: string): Promise<boolean> {
  const r = await pool.query<{ draining: boolean }>('SELECT draining FROM coordinators WHERE id = $1', [id]);
  // A row deleted by stale-member cleanup also means: this member is no longer wanted.
  return r.rows[0]?.draining ?? true;
}

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
