// An operator asks a coordinator to drain: it is marked draining (it stops counting as
// a live member for ownership, so the others take its partitions on their next tick),
// its partitions are released now, and the coordinator process — which sees the flag
// when its heartbeat no longer matches — stops claiming, finishes what it runs and
// exits. Change and audit record in one transaction.
import { z } from 'zod';
import { CoreError } from '../core/errors';
import { recordAudit, type Actor } from '../db/audit';
import { markDraining } from '../db/coordinator-membership';
import { withTransaction, type Db } from '../db/pool';

export const drainCoordinatorInput = z.strictObject({ id: z.uuid('must be a coordinator id') });

export interface DrainRequested {
  id: string;
  name: string;
  releasedPartitions: number;
}

export async function requestCoordinatorDrain(db: Db, actor: Actor, input: z.output<typeof drainCoordinatorInput>): Promise<DrainRequested> {
  return withTransaction(db, async (c) => {
    const r = await c.query<{ name: string; host: string; pid: number; draining: boolean; stopped: boolean }>(
      'SELECT name, host, pid, draining, stopped_at IS NOT NULL AS stopped FROM coordinators WHERE id = $1 FOR UPDATE',
      [input.id],
    );
    const row = r.rows[0];
    if (!row) throw CoreError.notFound('coordinator');
    if (row.stopped) throw new CoreError('PRECONDITION_FAILED', `coordinator ${row.name} has already stopped`);
    if (row.draining) throw new CoreError('PRECONDITION_FAILED', `coordinator ${row.name} is already draining`);
    const owned = await c.query<{ n: number }>('SELECT count(*)::int AS n FROM partition_owners WHERE owner = $1', [input.id]);
    await markDraining(c, input.id);
    await recordAudit(c, actor, {
      action: 'coordinator.drain',
      targetType: 'coordinator',
      targetId: input.id,
      before: { draining: false },
      after: { draining: true },
      meta: { name: row.name, host: row.host, pid: row.pid, releasedPartitions: owned.rows[0]!.n },
    });
    return { id: input.id, name: row.name, releasedPartitions: owned.rows[0]!.n };
  });
}
