// Routing at enqueue: which of a task's P partitions an execution goes to.
//   round-robin  counter % P                      (counter: a per-task sequence)
//   hash         stableHash32(key) % P            (same key → same partition, always)
//   random       floor(rand() · P)
//   least-loaded the partition with the lowest depth; among equally low partitions the
//                counter picks one (ties[counter % ties.length]), so a burst against an
//                idle task spreads instead of piling onto partition 0.
// Pure: no I/O imports (server/core rule).
import { CoreError } from './errors';
import { stableHash32 } from './stable-hash';
import type { TaskDefinition } from './task-definition';

export type RoutingStrategy = TaskDefinition['routing']['strategy'];

export interface PickPartitionInput {
  strategy: RoutingStrategy;
  partitions: number;
  /** The routing key (hash); required for `hash`. */
  key?: string;
  /** Only used in the error message when the key is missing, e.g. "customer.id". */
  keyPath?: string;
  /** Round-robin position / least-loaded tie-breaker; a non-negative integer. */
  counter: number;
  /** Current depth per partition, length P; required for `least-loaded`. */
  depths?: readonly number[];
  rand: () => number;
}

function checkPartitions(partitions: number): void {
  if (!Number.isInteger(partitions) || partitions < 1) {
    throw new RangeError(`partitions must be an integer ≥ 1, got ${partitions}`);
  }
}

function checkCounter(counter: number): void {
  if (!Number.isSafeInteger(counter) || counter < 0) {
    throw new RangeError(`counter must be a non-negative safe integer, got ${counter}`);
  }
}

/** floor(rand() · n), clamped into [0, n-1] even if rand misbehaves (returns 1, NaN…). */
export function randomIndex(n: number, rand: () => number): number {
  const r = rand();
  const i = Math.floor((Number.isFinite(r) ? r : 0) * n);
  return Math.min(n - 1, Math.max(0, i));
}

/** Partition for a hash key: stableHash32(key) % partitions. */
export function hashPartition(key: string, partitions: number): number {
  checkPartitions(partitions);
  return stableHash32(key) % partitions;
}

/** Index of the minimum depth; ties broken by counter (ties[counter % ties.length]). */
export function leastLoadedPartition(depths: readonly number[], counter: number): number {
  if (depths.length === 0) throw new RangeError('least-loaded routing needs at least one partition depth');
  let min = Infinity;
  const ties: number[] = [];
  depths.forEach((d, i) => {
    if (!Number.isFinite(d) || d < 0) throw new RangeError(`partition ${i} has an invalid depth ${d}`);
    if (d < min) {
      min = d;
      ties.length = 0;
      ties.push(i);
    } else if (d === min) {
      ties.push(i);
    }
  });
  return ties[counter % ties.length]!;
}

export function pickPartition(input: PickPartitionInput): number {
  const { strategy, partitions, counter } = input;
  checkPartitions(partitions);
  checkCounter(counter);
  switch (strategy) {
    case 'round-robin':
      return counter % partitions;
    case 'hash': {
      if (input.key === undefined || input.key === '') {
        const where = input.keyPath ? ` at "${input.keyPath}"` : '';
        throw CoreError.badRequest(`hash routing needs a key${where}, and the execution has none`, [
          { path: input.keyPath ? `payload.${input.keyPath}` : 'routingKey', message: 'required by hash routing' },
        ]);
      }
      return stableHash32(input.key) % partitions;
    }
    case 'random':
      return randomIndex(partitions, input.rand);
    case 'least-loaded': {
      const depths = input.depths;
      if (!depths || depths.length !== partitions) {
        throw new RangeError(`least-loaded routing needs ${partitions} partition depths, got ${depths?.length ?? 'none'}`);
      }
      return leastLoadedPartition(depths, counter);
    }
    default: {
      const never: never = strategy;
      throw CoreError.badRequest(`unknown routing strategy "${String(never)}"`);
    }
  }
}

export interface RouteBatchInput {
  strategy: RoutingStrategy;
  partitions: number;
  /** One entry per execution; `keys.length` is the batch size. Keys matter for `hash` only. */
  keys: readonly (string | undefined)[];
  keyPath?: string;
  /** Counter for the first execution; execution i uses counterStart + i. */
  counterStart: number;
  depths?: readonly number[];
  rand: () => number;
}

/**
 * Routes a batch. For least-loaded the depths are updated as the batch is placed, so a
 * batch of 100 against depths [0, 0, 0, 0] lands 25 per partition rather than 100 on one.
 * Returns the partition of each execution, in order.
 */
export function routeBatch(input: RouteBatchInput): number[] {
  checkCounter(input.counterStart);
  const depths = input.depths ? [...input.depths] : undefined;
  return input.keys.map((key, i) => {
    const p = pickPartition({
      strategy: input.strategy,
      partitions: input.partitions,
      ...(key !== undefined ? { key } : {}),
      ...(input.keyPath !== undefined ? { keyPath: input.keyPath } : {}),
      counter: input.counterStart + i,
      ...(depths ? { depths } : {}),
      rand: input.rand,
    });
    if (depths) depths[p] = (depths[p] ?? 0) + 1;
    return p;
  });
}
