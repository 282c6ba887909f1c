// The one maintenance runner, for the coordinators' services (lease rescuer, slot GC,
// reconciler, retention, …) and the control plane's jobs (rollups, alerts, webhooks, DLQ
// replay, …). Lives in db/ because both the coordinator and the control plane use it.
//
// One lock kind: the service's row in maintenance_runs, taken with
// SELECT … FOR UPDATE SKIP LOCKED — another process running the same service makes us skip,
// never wait. The same statement claims the interval (skip if the service started less
// than 0.9 × interval ago, cluster-wide) and respects a lease (below). A row lock passes a
// transaction pooler (PgBouncer transaction mode) unchanged, unlike a session advisory lock,
// and goes away with the connection when a process dies.
//
// Two ways to run:
//   'transaction' (coordinator services): the service runs inside the transaction that
//     holds the row lock, and its work commits with the record of the run, or rolls back.
//   'steps' (control-plane jobs that commit as they go, some for seconds): the claim
//     commits at once with lease_until = now() + leaseMs; the job runs against the pool;
//     the finish clears the lease. A process that dies mid-run blocks the service until
//     its lease expires.
// One way to record: last_started_at / runs at the claim, last_finished_at, duration,
// result and error at the end; a failure's error is recorded in its own statement after
// the rollback, and logged.
import os from 'node:os';
import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import type { Db } from './pool';

export interface RunnerBase {
  log: (msg: string) => void;
  /** A coordinator's id (recorded in maintenance_runs.last_coordinator); absent for the control plane. */
  coordinatorId?: string;
}

export type ServiceContext<B extends RunnerBase = RunnerBase> = B & {
  /** 'transaction': the transaction holding the service's row lock. 'steps': the pool. */
  db: Db;
  pool: pg.Pool;
  now: Date;
};

export interface MaintenanceService<B extends RunnerBase = RunnerBase> {
  name: string;
  /** Base interval; the runner may scale it (coordinator maintenanceScale). */
  intervalMs: number;
  /** Pacing by cost, cluster-wide: the next run starts no sooner than this many times the last
   *  run's duration after the last start, when that is longer than the interval (the
   *  service then takes at most 1/(paceFactor + 1) of one connection's time however slow it
   *  gets: a held snapshot made the lease rescuer's read 88 ms, run 3 times a second in
   *  bench:soak). Unset: the interval alone. */
  paceFactor?: number;
  /** Default 'transaction'. */
  mode?: 'transaction' | 'steps';
  /** 'steps' only: how long a claim keeps others out if its process dies (default 2 min). */
  leaseMs?: number;
  /** Returns a small JSON-able summary recorded in maintenance_runs.last_result. */
  run(ctx: ServiceContext<B>): Promise<unknown>;
}

export interface ServiceRun {
  ran: boolean;
  result?: unknown;
  error?: string;
}

export interface RunOptions {
  /** Minimum time since the service's last start, cluster-wide; 0 runs it now (tests, "run now"). */
  intervalMs: number;
  /** Prefix of the service's row name ('cp:' for the control plane). */
  namespace?: string;
  /** Who holds a 'steps' lease (default: host:pid:random). */
  owner?: string;
}

const DEFAULT_LEASE_MS = 120_000;
const knownRows = new WeakMap<pg.Pool, Set<string>>();
const PROCESS_OWNER = `${os.hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;

/** Runs `svc` once if no other process is running it and its interval has passed. */
export async function runServiceOnce<B extends RunnerBase>(pool: pg.Pool, svc: MaintenanceService<B>, opts: RunOptions, base: B): Promise<ServiceRun> {
  const name = `${opts.namespace ?? ''}${svc.name}`;
  const owner = opts.owner ?? PROCESS_OWNER;
  const steps = svc.mode === 'steps';
  const t0 = performance.now();
  const client = await pool.connect();
  // 'steps': the client goes back to the pool once the claim is committed, so a long run
  // holds no connection of its own (the job uses the pool, and the finish is one statement).
  let held: pg.PoolClient | null = client;
  let inTx = false;
  let claimed = false;
  try {
    // The row exists before anyone locks it (a lost race here is harmless: DO NOTHING). Once
    // per process and database: an INSERT … ON CONFLICT on a row another run holds would
    // wait for that run instead of skipping.
    const known = knownRows.get(pool) ?? new Set<string>();
    knownRows.set(pool, known);
    if (!known.has(name)) {
      await client.query('INSERT INTO maintenance_runs (name) VALUES ($1) ON CONFLICT (name) DO NOTHING', [name]);
      known.add(name);
    }
    // Not withTransaction: the claim's transaction outlives this scope ('tx' runs keep it open
    // around the service's run; 'steps' runs commit it mid-way and give the client back).
    await client.query('BEGIN');
    inTx = true;
    const due = await client.query(
      `SELECT 1 FROM maintenance_runs
        WHERE name = $1
          AND (last_started_at IS NULL
               OR last_started_at <= now() - make_interval(secs => greatest($2, $3 * coalesce(last_duration_ms, 0)) / 1000.0))
          AND (lease_until IS NULL OR lease_until < now())
        FOR UPDATE SKIP LOCKED`,
      [name, Math.max(0, opts.intervalMs * 0.9), opts.intervalMs > 0 ? Math.max(0, svc.paceFactor ?? 0) : 0],
    );
    if (due.rowCount === 0) {
      await client.query('ROLLBACK');
      inTx = false;
      return { ran: false };
    }
    await client.query(
      `UPDATE maintenance_runs SET last_started_at = now(), last_coordinator = $2, runs = runs + 1,
              lease_owner = $3, lease_until = CASE WHEN $4::int > 0 THEN now() + make_interval(secs => $4 / 1000.0) END,
              interval_ms = CASE WHEN $5::int > 0 THEN $5 ELSE interval_ms END
        WHERE name = $1`,
      [name, base.coordinatorId ?? null, owner, steps ? (svc.leaseMs ?? DEFAULT_LEASE_MS) : 0, Math.round(opts.intervalMs)],
    );
    claimed = true;
    if (steps) {
      await client.query('COMMIT');
      inTx = false;
      client.release();
      held = null;
    }
    const result = await svc.run({ ...base, db: steps ? pool : client, pool, now: new Date() });
    // A 'steps' run records its end only while the lease is still its own.
    await (held ?? pool).query(
      `UPDATE maintenance_runs SET last_finished_at = now(), last_duration_ms = $2, last_result = $3, last_error = NULL,
              lease_owner = NULL, lease_until = NULL
        WHERE name = $1 AND (NOT $4 OR lease_owner = $5)`,
      [name, Math.round(performance.now() - t0), JSON.stringify(result ?? null), steps, owner],
    );
    if (inTx) await client.query('COMMIT');
    inTx = false;
    return { ran: true, result };
  } catch (e) {
    if (inTx) await client.query('ROLLBACK').catch(() => {});
    if (!claimed) throw e;
    const error = e instanceof Error ? e.message : String(e);
    // The rollback undid the claim of a 'transaction' service: record the run again here.
    await pool
      .query(
        `UPDATE maintenance_runs SET last_started_at = CASE WHEN $5 THEN last_started_at ELSE now() END,
                runs = runs + CASE WHEN $5 THEN 0 ELSE 1 END, last_coordinator = $4,
                last_finished_at = now(), last_duration_ms = $2, last_error = $3, lease_owner = NULL, lease_until = NULL
          WHERE name = $1 AND (NOT $5 OR lease_owner = $6)`,
        [name, Math.round(performance.now() - t0), error, base.coordinatorId ?? null, steps, owner],
      )
      .catch(() => {});
    base.log(`maintenance ${name} failed: ${error}`);
    return { ran: true, error };
  } finally {
    held?.release();
  }
}

export interface RunnerOptions {
  /** Multiplies every service's interval (coordinator maintenanceScale); default 1. */
  scale?: number;
  namespace?: string;
}

/** Runs each service on its interval until stop(); runs of one service never overlap in a process. */
export class MaintenanceRunner<B extends RunnerBase = RunnerBase> {
  private timers = new Map<string, NodeJS.Timeout>();
  private running = new Set<Promise<unknown>>();
  private stopped = false;
  private readonly scale: number;
  private readonly namespace: string;

  constructor(
    private readonly pool: pg.Pool,
    private readonly services: readonly MaintenanceService<B>[],
    opts: RunnerOptions,
    private readonly base: B,
  ) {
    this.scale = opts.scale ?? 1;
    this.namespace = opts.namespace ?? '';
  }

  private interval(svc: MaintenanceService<B>): number {
    return Math.max(5, Math.round(svc.intervalMs * this.scale));
  }

  start(): void {
    for (const svc of this.services) {
      const interval = this.interval(svc);
      const tick = () => {
        if (this.stopped) return;
        // A database that is down or restarting (pool.connect rejects) skips this tick.
        const p = runServiceOnce(this.pool, svc, { intervalMs: interval, namespace: this.namespace }, this.base)
          .catch((e: unknown) => this.base.log(`maintenance ${svc.name} skipped: ${(e as Error).message}`))
          .finally(() => {
            this.running.delete(p);
            if (!this.stopped) this.timers.set(svc.name, setTimeout(tick, interval));
          });
        this.running.add(p);
      };
      // Spread first runs so processes started together do not all knock at once.
      this.timers.set(svc.name, setTimeout(tick, Math.random() * Math.min(interval, 1000)));
    }
  }

  /** Runs one service now, ignoring its interval (tests, the "run now" button). */
  runNow(name: string): Promise<ServiceRun> {
    const svc = this.services.find((s) => s.name === name);
    if (!svc) return Promise.reject(new Error(`unknown maintenance service ${name}`));
    return runServiceOnce(this.pool, svc, { intervalMs: 0, namespace: this.namespace }, this.base);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const t of this.timers.values()) clearTimeout(t);
    await Promise.allSettled([...this.running]);
  }
}
