// The claim loop: while this member has free slots, claim from each served task in
// turn (rotating the starting task for fairness) asking for at most the free slots, so
// it never fetches more than it can run (River's producer rule). When a round finds
// nothing, or every slot is busy, it sleeps until the completer signals freed slots or
// the poll interval passes; likewise after a round whose claims all came back short
// (drained, or held by group limits: repeating at once would re-read the head under the
// task lock for nothing). An idle poll is cheap: sluice_claim returns before taking
// any lock when no claimable row exists in this member's partitions.
// The completer refills the slots a flush frees in the same round trip
// (sluice_cycle); this loop fills the rest — idle polls, start-up, other tasks
// — concurrently with flushes. Both reserve slots before their call (`hold`), so the two
// can never hand out the same local slot twice.
import type pg from 'pg';
import type { TaskDefinition } from '../core/task-definition';
import { longestTimeout } from '../core/fleet-defaults';
import { claimExecutions, type ClaimedExecution } from '../db/claim-executions';
import type { LocalSignal } from './local-signal';
import type { CoordinatorMetrics } from './coordinator-metrics';
import type { Admission } from './breaker-gate';
import { rateWakeMs } from '../core/rate-limit';

export interface ClaimLoopDeps {
  pool: pg.Pool;
  me: string;
  slots: number;
  signal: LocalSignal;
  tasks: () => readonly TaskDefinition[];
  /** Running here + slots reserved by calls in flight (claims, finish-and-claims). */
  inFlight: () => number;
  /** Reserve (n > 0) or return (n < 0) local slots around one claim call. */
  hold?: (n: number) => void;
  leaseGraceMs: number;
  pollMs: number;
  onClaimed: (rows: ClaimedExecution[], def: TaskDefinition) => void;
  metrics: CoordinatorMetrics;
  log: (m: string) => void;
  /** The circuit breaker (breaker-gate.ts): how many of the free slots a task may fill now
   *  (none while open, the probe slots while half-open). Absent: no breaker. */
  gate?: { admit(def: TaskDefinition, free: number): Promise<Admission> };
}

export class ClaimLoop {
  private stopped = false;
  private done: Promise<void> | null = null;
  private rotate = 0;

  constructor(private readonly d: ClaimLoopDeps) {}

  start(): void {
    this.done = this.run();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.d.signal.fire();
    await this.done;
  }

  private async run(): Promise<void> {
    let errors = 0;
    while (!this.stopped) {
      try {
        const tasks = this.d.tasks();
        // A claim that filled every slot it asked for may have left more behind; one that
        // came back short found all there is for now (drained, or held by group limits).
        let full = false;
        // Rate limits (issue #19): a claim a rate cut short is looked at again when the next
        // token can be due (core/rate-limit.ts rateWakeMs), not only after the poll interval;
        // so is a round that found no free slot while a rate-limited task is served — the
        // slots may be held by a flush's refill that the rate then cut short, and such a
        // refill wakes nobody (refill.ts), so the loop slept the whole poll interval:
        // 1 start per 50 ms for a 40/s key with burst 0
        let wake = this.d.pollMs;
        let rated = this.d.pollMs;
        for (const def of tasks) rated = Math.min(rated, rateWakeMs(def) ?? rated);
        for (let i = 0; i < tasks.length && !this.stopped; i++) {
          const def = tasks[(i + this.rotate) % tasks.length]!;
          const free = this.d.slots - this.d.inFlight();
          if (free <= 0) break;
          const admission = this.d.gate ? await this.d.gate.admit(def, free) : null;
          const want = admission ? Math.min(free, admission.max) : free;
          if (want <= 0) continue; // the task's circuit breaker is open (or every probe has started)
          const t0 = performance.now();
          this.d.hold?.(want);
          let rows: ClaimedExecution[] = [];
          try {
            // Leased for the longest timeout of any key (the runner narrows rows of shorter ones).
            rows = await claimExecutions(this.d.pool, this.d.me, def.name, want, longestTimeout(def) + this.d.leaseGraceMs);
          } finally {
            this.d.hold?.(-want);
            await admission?.done(rows.length);
          }
          this.d.metrics.observe('sluice_claim_duration_seconds', { task: def.name }, (performance.now() - t0) / 1000, 'Round trip of one sluice_claim call');
          if (rows.length > 0) {
            this.d.metrics.inc('sluice_executions_claimed_total', { task: def.name }, rows.length, 'Executions claimed by this coordinator');
            this.d.onClaimed(rows, def);
          }
          if (rows.length >= free) full = true;
          else wake = Math.min(wake, rateWakeMs(def) ?? wake);
        }
        this.rotate++;
        errors = 0;
        if (this.stopped) break;
        if (!full || this.d.slots - this.d.inFlight() <= 0) await this.d.signal.wait(this.d.slots - this.d.inFlight() <= 0 ? rated : wake);
      } catch (e) {
        errors++;
        this.d.log(`claim failed: ${(e as Error).message}`);
        await new Promise((r) => setTimeout(r, Math.min(5000, this.d.pollMs * 2 ** Math.min(errors, 8))));
      }
    }
  }
}
