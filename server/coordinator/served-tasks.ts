// The tasks this member serves, as the applied config version defines them, and whether
// the member is draining (then it claims nothing). Read by the claim loop, the refill and
// the execution runner (the current retry policy); replaced whole on each config apply.
import type { SluiceConfig, TaskDefinition } from '../core/task-definition';
import type { HandlerMap } from './handler-runner';

/** The tasks a coordinator serves: those named by --tasks (each must have a handler), or
 *  every task the handlers module has a handler for. Sorted. Throws a message for the
 *  operator when the choice is impossible. */
export function chooseServedTasks(handlers: HandlerMap, tasks: readonly string[] | undefined): string[] {
  const handlerNames = Object.keys(handlers).sort();
  for (const t of tasks ?? []) {
    if (!handlers[t]) throw new Error(`--tasks names "${t}", but the handlers module has no handler for it (it has: ${handlerNames.join(', ') || 'none'})`);
    if (typeof handlers[t] !== 'function') throw new Error(`the handler for "${t}" is not a function`);
  }
  const served = (tasks && tasks.length > 0 ? [...tasks] : handlerNames).sort();
  if (served.length === 0) throw new Error('the handlers module serves no task: its default export must map task names to async functions');
  return served;
}

export class ServedTasks {
  private defs = new Map<string, TaskDefinition>();
  /** The served tasks not paused (config order); changes only on apply. */
  private active: TaskDefinition[] = [];
  private syncedShape: string | null = null;
  private drainingNow = false;

  constructor(readonly names: readonly string[]) {}

  /**
   * Takes a config version's definitions of the served tasks. Returns the new ownership
   * shape when partition ownership must be re-synced, else null: ownership depends only on
   * which served tasks exist and how many partitions each has, so a push that changes
   * neither (limits, groups, thresholds, pause …) needs no re-sync and applying it is a
   * map swap (the heartbeat re-syncs ownership on its own interval anyway). Call
   * ownershipSynced(shape) once the re-sync succeeded.
   */
  apply(config: SluiceConfig): string | null {
    this.defs = new Map(config.tasks.filter((t) => this.names.includes(t.name)).map((t) => [t.name, t]));
    this.active = [...this.defs.values()].filter((d) => !d.paused);
    const shape = [...this.defs.values()].map((d) => `${d.name}:${d.partitions}`).sort().join(',');
    return shape === this.syncedShape ? null : shape;
  }

  ownershipSynced(shape: string): void {
    this.syncedShape = shape;
  }

  get(task: string): TaskDefinition | undefined {
    return this.defs.get(task);
  }

  has(task: string): boolean {
    return this.defs.has(task);
  }

  /** Served tasks that are not paused, whether or not the member drains. */
  activeCount(): number {
    return this.active.length;
  }

  /** What the claim loop claims from: nothing while draining. */
  claimable(): readonly TaskDefinition[] {
    return this.drainingNow ? [] : this.active;
  }

  get draining(): boolean {
    return this.drainingNow;
  }

  startDraining(): void {
    this.drainingNow = true;
  }
}
