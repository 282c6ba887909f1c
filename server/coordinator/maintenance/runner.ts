// Runs maintenance services on their intervals. Per tick and service: one transaction
// that takes pg_try_advisory_xact_lock(class, hashtext(name)) — another coordinator
// running the same service makes us skip, never wait — then claims the interval in
// maintenance_runs (skip if someone ran it less than an interval ago), runs the
// service and records what it did. A failing service rolls back its work, and the
// error is recorded in its own small transaction.
import type pg from 'pg';
import type { MaintenanceContext, MaintenanceService } from './service';

const MAINTENANCE_LOCK_CLASS = 0x5c4a;

export interface ServiceRun {
  ran: boolean;
  result?: Record<string, unknown>;
  error?: string;
}

export async function runServiceOnce(
  pool: pg.Pool,
  svc: MaintenanceService,
  intervalMs: number,
  base: Omit<MaintenanceContext, 'db' | 'pool'>,
): Promise<ServiceRun> {
  const client = await pool.connect();
  const t0 = performance.now();
  try {
    await client.query('BEGIN');
    const lock = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_xact_lock($1, hashtext($2)) AS ok', [MAINTENANCE_LOCK_CLASS, svc.name]);
    if (!lock.rows[0]!.ok) {
      await client.query('ROLLBACK');
      return { ran: false };
    }
    const due = await client.query(
      `INSERT INTO maintenance_runs AS m (name, last_started_at, last_coordinator, runs) VALUES ($1, now(), $3, 1)
       ON CONFLICT (name) DO UPDATE SET last_started_at = now(), last_coordinator = $3, runs = m.runs + 1
       WHERE m.last_started_at IS NULL OR m.last_started_at <= now() - make_interval(secs => $2 / 1000.0)
       RETURNING name`,
      [svc.name, Math.max(0, intervalMs * 0.9), base.coordinatorId],
    );
    if (due.rowCount === 0) {
      await client.query('ROLLBACK');
      return { ran: false };
    }
    const result = await svc.run({ ...base, db: client, pool });
    await client.query(
      `UPDATE maintenance_runs SET last_finished_at = now(), last_duration_ms = $2, last_result = $3, last_error = NULL WHERE name = $1`,
      [svc.name, Math.round(performance.now() - t0), JSON.stringify(result)],
    );
    await client.query('COMMIT');
    return { ran: true, result };
  } catch (e) {
    await client.query('ROLLBACK').catch(() => {});
    const error = (e as Error).message;
    await pool
      .query(
        `INSERT INTO maintenance_runs AS m (name, last_started_at, last_finished_at, last_duration_ms, last_error, last_coordinator, runs)
         VALUES ($1, now(), now(), $2, $3, $4, 1)
         ON CONFLICT (name) DO UPDATE SET last_started_at = now(), last_finished_at = now(), last_duration_ms = $2, last_error = $3,
           last_coordinator = $4, runs = m.runs + 1`,
        [svc.name, Math.round(performance.now() - t0), error, base.coordinatorId],
      )
      .catch(() => {});
    base.log(`maintenance ${svc.name} failed: ${error}`);
    return { ran: true, error };
  } finally {
    client.release();
  }
}

export class MaintenanceRunner {
  private timers: NodeJS.Timeout[] = [];
  private running = new Set<Promise<unknown>>();
  private stopped = false;

  constructor(
    private readonly pool: pg.Pool,
    private readonly services: readonly MaintenanceService[],
    private readonly scale: number,
    private readonly base: Omit<MaintenanceContext, 'db' | 'pool'>,
  ) {}

  start(): void {
    for (const svc of this.services) {
      const interval = Math.max(5, Math.round(svc.intervalMs * this.scale));
      let busy = false;
      const tick = () => {
        if (busy || this.stopped) return;
        busy = true;
        // A database that is down or restarting (pool.connect rejects) skips this tick.
        const p = runServiceOnce(this.pool, svc, interval, this.base)
          .catch((e: unknown) => this.base.log(`maintenance ${svc.name} skipped: ${(e as Error).message}`))
          .finally(() => {
            busy = false;
            this.running.delete(p);
          });
        this.running.add(p);
      };
      // Spread first runs so members started together do not all knock at once.
      const first = setTimeout(tick, Math.random() * interval);
      const every = setInterval(tick, interval);
      this.timers.push(first, every);
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const t of this.timers) clearTimeout(t);
    await Promise.allSettled([...this.running]);
  }
}
