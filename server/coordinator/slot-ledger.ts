// The slot ledger: the executions running in this member now, and the local slots that
// claim calls in flight have reserved (the claim loop's, and the claims riding on a
// flush). busy() = running + reserved is what every claim asks against, so no two calls
// can fill the same slot. A row keeps its slot until its finish is written (the
// completer's flush), not merely until its handler returns.
import type { TaskDefinition } from '../core/task-definition';
import type { ClaimedExecution } from '../db/claim-executions';
import type { AttemptTrace } from './attempt-tracing';
import type { ExecutionAbort } from './handler-runner';

export interface RunningExecution {
  row: ClaimedExecution;
  def: TaskDefinition;
  abort: ExecutionAbort;
  /** Settles when the handler has returned and its finish item is handed to the completer. */
  done: Promise<void>;
  /** tracing on: the attempt's span, ended when its finish is written */
  trace?: AttemptTrace;
}

export class SlotLedger {
  private readonly running = new Map<number, RunningExecution>();
  private reserved = 0;

  constructor(readonly slots: number) {
    if (!Number.isInteger(slots) || slots < 1) throw new Error(`slots must be a whole number ≥ 1, got ${slots}`);
  }

  /** Executions running here (their finish not yet written). */
  get inFlight(): number {
    return this.running.size;
  }

  /** Running + reserved by claim calls in flight. */
  busy(): number {
    return this.running.size + this.reserved;
  }

  /** Reserve (n > 0) or return (n < 0) local slots around one claim call. */
  hold(n: number): void {
    this.reserved += n;
  }

  add(e: RunningExecution): void {
    this.running.set(e.row.id, e);
  }

  get(id: number): RunningExecution | undefined {
    return this.running.get(id);
  }

  /** Its finish is written (or fenced): the slot is free again. */
  release(id: number): void {
    this.running.delete(id);
  }

  executions(): RunningExecution[] {
    return [...this.running.values()];
  }
}
