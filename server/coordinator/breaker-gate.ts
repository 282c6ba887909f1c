// The circuit breaker in the coordinator (issue 23): the claim loop and the refill ask the
// gate before claiming a task, and the completer's flushed outcomes are reported to it.
//
// - Cache: the breaker rows of the served tasks whose breaker is enabled, re-read on every
//   sluice_breaker notification (any coordinator's transition), after this member's own
//   reports, and every `refreshMs` as the fallback (LISTEN may not pass a pooler).
// - Closed (or no breaker): the claim loop and the refill claim as usual, no query added.
// - Open: neither claims the task; queued executions wait and no attempt is used. Once the
//   cool-down has passed (by the cached opened_at), the claim loop asks the database
//   (services/circuit-breaker admitProbes), which moves it to half-open on its own clock.
// - Half-open: only the claim loop claims, at most the probe slots admitProbes reserved
//   cluster-wide; what a claim did not fill is handed back. The refill does not ride on
//   flushes then. A probe that gives no outcome (released by a shutdown or a cancel, or
//   its coordinator died) has its slot let through again once it has been silent for the
//   task's timeout + the lease grace + two report intervals (core/circuit-breaker advance).
// - Outcomes: succeeded counts as a success, retry/dead (failures and timeouts) as
//   failures; release and canceled say nothing about the target. They are summed per task
//   and written every `reportMs` (one transaction per task, not one per flush).
// A member that has not yet seen a trip another made may claim until the notification
// arrives (milliseconds; at most refreshMs without LISTEN): the gate is cluster-wide but
// not a lock on every claim.
import type pg from 'pg';
import type { TaskDefinition } from '../core/task-definition';
import { probeTimeout } from '../core/circuit-breaker';
import { longestTimeout } from '../core/fleet-defaults';
import { admitProbes, recordBreakerOutcomes } from './breaker-store';
import { readBreakers, returnProbes, type BreakerRow } from '../db/task-breakers';
import type { CompletedBatch } from './completer';

export interface BreakerGateOptions {
  pool: pg.Pool;
  /** The served tasks' current definitions (pushed live with each config apply). */
  tasks: () => readonly TaskDefinition[];
  refreshMs: number;
  reportMs: number;
  /** The lease grace past a task's timeout (coordinator timings): with reportMs, how long
   *  a half-open probe may give no outcome before its slot is let through again. */
  leaseGraceMs: number;
  /** A breaker closed or went half-open: wake the claim loop. */
  wake: () => void;
  log: (m: string) => void;
}

interface Cached {
  state: BreakerRow['state'];
  /** open: when the cool-down ends, on this process's clock (from the database's). */
  coolUntil: number;
}

export interface Admission {
  max: number;
  /** Call with how many rows the claim returned. */
  done(claimed: number): Promise<void>;
}

const NOOP = async () => {};

export class BreakerGate {
  private cache = new Map<string, Cached>();
  private pending = new Map<string, { ok: number; failed: number }>();
  private refreshTimer: NodeJS.Timeout | null = null;
  private reportTimer: NodeJS.Timeout | null = null;
  private refreshing: Promise<void> | null = null;
  private reporting: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(private readonly o: BreakerGateOptions) {}

  private enabled(task: string): TaskDefinition | undefined {
    const def = this.o.tasks().find((t) => t.name === task);
    return def?.circuitBreaker?.enabled ? def : undefined;
  }

  async start(): Promise<void> {
    await this.refresh();
    this.refreshTimer = setInterval(() => void this.refresh(), this.o.refreshMs);
    this.refreshTimer.unref();
    this.reportTimer = setInterval(() => void this.report(), this.o.reportMs);
    this.reportTimer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.refreshTimer) clearInterval(this.refreshTimer);
    if (this.reportTimer) clearInterval(this.reportTimer);
    await this.report();
    await this.refreshing;
  }

  /** Re-reads the rows (sluice_breaker, the timer). Concurrent calls share one read. */
  refresh(): Promise<void> {
    if (this.refreshing) return this.refreshing;
    this.refreshing = this.refreshNow()
      .catch((e: unknown) => this.o.log(`breaker refresh failed: ${(e as Error).message}`))
      .finally(() => {
        this.refreshing = null;
      });
    return this.refreshing;
  }

  private async refreshNow(): Promise<void> {
    const defs = this.o.tasks().filter((t) => t.circuitBreaker?.enabled);
    if (defs.length === 0) {
      this.cache.clear();
      return;
    }
    const rows = await readBreakers(this.o.pool, defs.map((d) => d.name));
    const next = new Map<string, Cached>();
    let wake = false;
    for (const r of rows) {
      const def = defs.find((d) => d.name === r.task)!;
      const coolUntil = r.state === 'open' ? Date.now() + Math.max(0, (r.openedAtMs ?? r.sinceMs) + def.circuitBreaker.coolDownMs - r.nowMs) : 0;
      next.set(r.task, { state: r.state, coolUntil });
      if (r.state !== 'open' && this.cache.get(r.task)?.state === 'open') wake = true;
    }
    this.cache = next;
    if (wake) this.o.wake();
  }

  private probeTimeoutMs(def: TaskDefinition): number {
    // A probe's key is not known before it is claimed: wait as long as the longest key timeout.
    return probeTimeout(longestTimeout(def), this.o.leaseGraceMs, this.o.reportMs);
  }

  /** The refill may ride a claim on a flush of this task: only while closed. */
  allowsRefill(task: string): boolean {
    if (!this.enabled(task)) return true;
    const c = this.cache.get(task);
    return c === undefined || c.state === 'closed';
  }

  /** How many of `free` slots the claim loop may fill for this task now. */
  async admit(def: TaskDefinition, free: number): Promise<Admission> {
    if (!def.circuitBreaker?.enabled) return { max: free, done: NOOP };
    const c = this.cache.get(def.name);
    if (c === undefined || c.state === 'closed') return { max: free, done: NOOP };
    if (c.state === 'open' && Date.now() < c.coolUntil) return { max: 0, done: NOOP };
    const a = await admitProbes(this.o.pool, def.name, def.circuitBreaker, free, this.probeTimeoutMs(def));
    if (a.transition) this.o.log(`circuit breaker of ${def.name}: ${a.transition.from} → ${a.transition.to} (${a.transition.reason})`);
    this.cache.set(def.name, { state: a.breaker.state, coolUntil: c.coolUntil });
    if (a.breaker.state === 'closed') return { max: free, done: NOOP };
    return {
      max: a.granted,
      done: async (claimed) => {
        if (a.granted > claimed) await returnProbes(this.o.pool, def.name, a.granted - claimed, a.sinceMs);
      },
    };
  }

  /** The completer wrote a batch: count its outcomes for the task's breaker. */
  finished(b: CompletedBatch): void {
    if (this.stopped || !this.enabled(b.task)) return;
    if (this.cache.get(b.task)?.state === 'open') return; // ignored while open (core/circuit-breaker.ts)
    let ok = 0;
    let failed = 0;
    for (const outcome of b.applied.values()) {
      if (outcome === 'succeeded') ok++;
      else if (outcome === 'retry' || outcome === 'dead') failed++;
    }
    if (ok + failed === 0) return;
    const p = this.pending.get(b.task) ?? { ok: 0, failed: 0 };
    p.ok += ok;
    p.failed += failed;
    this.pending.set(b.task, p);
  }

  /** Writes the summed outcomes, one transaction per task (serialised). */
  report(): Promise<void> {
    this.reporting = this.reporting.then(() => this.reportNow()).catch((e: unknown) => this.o.log(`breaker report failed: ${(e as Error).message}`));
    return this.reporting;
  }

  private async reportNow(): Promise<void> {
    const batch = this.pending;
    this.pending = new Map();
    let changed = false;
    for (const [task, counts] of batch) {
      const def = this.enabled(task);
      if (!def) continue;
      const r = await recordBreakerOutcomes(this.o.pool, task, def.circuitBreaker, counts, this.probeTimeoutMs(def));
      if (r.transition) {
        changed = true;
        this.o.log(`circuit breaker of ${task}: ${r.transition.from} → ${r.transition.to} (${r.transition.reason})`);
        const coolUntil = r.breaker.state === 'open' ? Date.now() + def.circuitBreaker.coolDownMs : 0;
        this.cache.set(task, { state: r.breaker.state, coolUntil });
      }
    }
    if (changed) this.o.wake();
  }
}
