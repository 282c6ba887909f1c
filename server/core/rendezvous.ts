// Partition ownership by rendezvous (highest-random-weight) hashing: each (task,
// partition) goes to the live member with the largest stableHash32(`task:partition:member`)
// (ties, vanishingly rare, go to the member whose id sorts first). Every coordinator
// computes the same answer from the same member list with no coordination, and when a
// member joins it takes ≈1/(n+1) of the partitions, each from exactly one old owner;
// when one leaves only its partitions move. (Thaler & Ravishankar, 1998.)
// Pure: no I/O imports (server/core rule).
import { stableHash32 } from './stable-hash';

export function rendezvousWeight(task: string, partition: number, member: string): number {
  return stableHash32(`${task}:${partition}:${member}`);
}

function checkPartition(p: number): void {
  if (!Number.isInteger(p) || p < 0) throw new RangeError(`partition must be an integer ≥ 0, got ${p}`);
}

/** The member that owns `partition` of `task`, or undefined when there are no members. */
export function ownerOf(task: string, partition: number, members: readonly string[]): string | undefined {
  checkPartition(partition);
  let best: string | undefined;
  let bestWeight = -1;
  for (const m of members) {
    const w = rendezvousWeight(task, partition, m);
    if (w > bestWeight || (w === bestWeight && best !== undefined && m < best)) {
      best = m;
      bestWeight = w;
    }
  }
  return best;
}

/**
 * Every member (deduplicated) → the partitions of `task` it owns, ascending. Members
 * that own nothing are present with an empty list. No members → empty map.
 */
export function assignPartitions(task: string, partitions: number, members: readonly string[]): Map<string, number[]> {
  if (!Number.isInteger(partitions) || partitions < 0) throw new RangeError(`partitions must be an integer ≥ 0, got ${partitions}`);
  const unique = [...new Set(members)];
  const out = new Map<string, number[]>(unique.map((m) => [m, []]));
  if (unique.length === 0) return out;
  for (let p = 0; p < partitions; p++) {
    out.get(ownerOf(task, p, unique)!)!.push(p);
  }
  return out;
}
