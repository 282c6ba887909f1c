// Partition ownership for this member: every heartbeat it lists live members serving
// each task, computes its share by rendezvous hashing (core/rendezvous) and syncs the
// owner rows (db/partition-ownership). Members that serve different task sets only
// share the tasks they both serve.
import type pg from 'pg';
import { assignPartitions } from '../core/rendezvous';
import { liveMembers } from '../db/coordinator-membership';
import { syncOwnership, taskPartitionCounts, type PartitionRef } from '../db/partition-ownership';

export class Ownership {
  owned: PartitionRef[] = [];

  constructor(
    private readonly pool: pg.Pool,
    private readonly me: string,
    private readonly staleMs: number,
  ) {}

  async tick(servedTasks: readonly string[], draining: boolean): Promise<{ taken: number; released: number }> {
    const wanted: PartitionRef[] = [];
    if (!draining && servedTasks.length > 0) {
      const [members, counts] = await Promise.all([liveMembers(this.pool, this.staleMs), taskPartitionCounts(this.pool, servedTasks)]);
      for (const [task, partitions] of counts) {
        const serving = members.filter((m) => m.tasks.includes(task)).map((m) => m.id);
        if (!serving.includes(this.me)) serving.push(this.me);
        const mine = assignPartitions(task, partitions, serving).get(this.me) ?? [];
        for (const p of mine) wanted.push({ task, partition: p });
      }
    }
    const r = await syncOwnership(this.pool, this.me, wanted, this.staleMs);
    this.owned = r.owned;
    return { taken: r.taken.length, released: r.released.length };
  }
}
