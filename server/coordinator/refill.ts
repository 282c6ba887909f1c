// The refill: the completer's hook that turns a finish batch into sluice_cycle, so the
// slots a flush frees are refilled in the same round trip and commit. Before the call it
// reserves the local slots the claim may fill (core/slot-plan refillShare) in the slot
// ledger, so the claim loop, running concurrently on its own connection, cannot hand them
// out twice; afterwards it returns the reservation and starts the claimed rows under the
// definition the claim was planned with (as the claim loop does). One flush per task at a
// time carries a claim.
import type { TaskDefinition } from '../core/task-definition';
import { longestTimeout } from '../core/fleet-defaults';
import { refillShare, wakeClaimLoopAfterRefill } from '../core/slot-plan';
import type { ClaimedExecution } from '../db/claim-executions';
import type { Refill } from './completer';
import type { CoordinatorMetrics } from './coordinator-metrics';
import type { ServedTasks } from './served-tasks';
import type { SlotLedger } from './slot-ledger';

export interface RefillOptions {
  coordinatorId: string;
  ledger: SlotLedger;
  tasks: ServedTasks;
  leaseGraceMs: number;
  metrics: CoordinatorMetrics;
  /** Start the claimed rows (ExecutionRunner.startClaimed). */
  start: (rows: ClaimedExecution[], def: TaskDefinition) => void;
  /** Wake the claim loop. */
  wake: () => void;
  /** The circuit breaker (breaker-gate.ts): a claim rides a flush only while it is closed. */
  gate?: { allowsRefill(task: string): boolean };
}

export class RefillPlanner implements Refill {
  readonly coordinatorId: string;
  private readonly planned = new Map<string, TaskDefinition>();

  constructor(private readonly o: RefillOptions) {
    this.coordinatorId = o.coordinatorId;
  }

  plan(task: string, freeing: number): { max: number; leaseMs: number } | null {
    const def = this.o.tasks.get(task);
    if (!def || this.o.tasks.draining || def.paused) return null;
    if (this.o.gate && !this.o.gate.allowsRefill(task)) return null;
    const max = refillShare({ slots: this.o.ledger.slots, busy: this.o.ledger.busy(), freeing, activeTasks: this.o.tasks.activeCount() });
    if (max === 0) return null;
    this.o.ledger.hold(max);
    this.planned.set(task, def);
    // The longest timeout of any key (the rows' keys are not known yet; ExecutionRunner narrows).
    return { max, leaseMs: longestTimeout(def) + this.o.leaseGraceMs };
  }

  /** A flush of `task` carries a claim: its freed slots are handed back out by done(). */
  riding(task: string): boolean {
    return this.planned.has(task);
  }

  done(task: string, reserved: number, rows: ClaimedExecution[]): void {
    this.o.ledger.hold(-reserved);
    const def = this.planned.get(task)!;
    this.planned.delete(task);
    if (rows.length > 0) {
      this.o.metrics.inc('sluice_executions_claimed_total', { task }, rows.length, 'Executions claimed by this coordinator');
      this.o.start(rows, def);
    }
    if (wakeClaimLoopAfterRefill(this.o.tasks.activeCount())) this.o.wake();
  }
}
