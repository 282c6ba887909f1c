// Control-plane maintenance services (alert evaluator, rollups, webhook delivery, DLQ
// replay jobs, …): each a small module with a name, an interval and a `run`. Any number
// of control-plane processes may run; a session advisory lock per service makes one of
// them do each tick, and every run is recorded in `maintenance_runs` (shared with the
// coordinators' services, names prefixed `cp:`).
import type pg from 'pg';

export interface ServiceContext {
  pool: pg.Pool;
  now: Date;
  log: (msg: string) => void;
}

export interface ControlPlaneService {
  name: string;
  intervalMs: number;
  /** Returns a small JSON-able summary recorded in maintenance_runs.last_result. */
  run(ctx: ServiceContext): Promise<unknown>;
}

export interface RunnerHandle {
  stop(): Promise<void>;
  /** Runs one service now (tests, and the "run now" button). */
  runOnce(name: string): Promise<unknown>;
}

/** Runs `service` once if no other process holds its lock; null when skipped. */
export async function runServiceOnce(pool: pg.Pool, service: ControlPlaneService, log: (m: string) => void): Promise<{ ran: boolean; result?: unknown }> {
  const client = await pool.connect();
  const lockName = `sluice:cp:${service.name}`;
  let locked = false;
  try {
    const r = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock(hashtext($1)) AS ok', [lockName]);
    locked = r.rows[0]?.ok === true;
    if (!locked) return { ran: false };
    const started = Date.now();
    await client.query(
      `INSERT INTO maintenance_runs (name, last_started_at) VALUES ($1, now())
       ON CONFLICT (name) DO UPDATE SET last_started_at = now()`,
      [`cp:${service.name}`],
    );
    try {
      const result = await service.run({ pool, now: new Date(), log });
      await client.query(
        `UPDATE maintenance_runs SET last_finished_at = now(), last_duration_ms = $2, last_result = $3, last_error = NULL, runs = runs + 1 WHERE name = $1`,
        [`cp:${service.name}`, Date.now() - started, JSON.stringify(result ?? null)],
      );
      return { ran: true, result };
    } catch (e) {
      const msg = e instanceof Error ? e.message : String(e);
      log(`[control-plane] ${service.name} failed: ${msg}`);
      await client.query(
        `UPDATE maintenance_runs SET last_finished_at = now(), last_duration_ms = $2, last_error = $3, runs = runs + 1 WHERE name = $1`,
        [`cp:${service.name}`, Date.now() - started, msg],
      );
      throw e;
    }
  } finally {
    if (locked) await client.query('SELECT pg_advisory_unlock(hashtext($1))', [lockName]).catch(() => {});
    client.release();
  }
}

export function startServices(pool: pg.Pool, services: ControlPlaneService[], log: (m: string) => void = console.log): RunnerHandle {
  let stopped = false;
  const timers = new Map<string, NodeJS.Timeout>();
  const running = new Set<Promise<unknown>>();

  const schedule = (s: ControlPlaneService, delay: number) => {
    if (stopped) return;
    timers.set(
      s.name,
      setTimeout(() => {
        const p = runServiceOnce(pool, s, log)
          .catch(() => {})
          .finally(() => {
            running.delete(p);
            schedule(s, s.intervalMs);
          });
        running.add(p);
      }, delay),
    );
  };
  // Stagger first runs so services don't all hit the database at the same instant.
  services.forEach((s, i) => schedule(s, 250 * (i + 1)));

  return {
    async stop() {
      stopped = true;
      for (const t of timers.values()) clearTimeout(t);
      await Promise.allSettled([...running]);
    },
    async runOnce(name: string) {
      const s = services.find((x) => x.name === name);
      if (!s) throw new Error(`unknown control-plane service ${name}`);
      return (await runServiceOnce(pool, s, log)).result;
    },
  };
}
