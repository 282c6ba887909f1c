// The roll-up cursor per resolution (metric_rollup_state): read all at the start of a
// roll-up run, advance one after its buckets are written (same transaction). Tiny table,
// four rows.
import type { Db } from './pool';
import type { RollupResolution } from '../core/rollup-buckets';

export async function readRollupState(db: Db): Promise<Map<number, Date>> {
  const r = await db.query<{ resolution_s: number; rolled_until: Date }>('SELECT resolution_s, rolled_until FROM metric_rollup_state');
  return new Map(r.rows.map((x) => [x.resolution_s, x.rolled_until]));
}

export async function advanceRollupState(db: Db, resolutionS: RollupResolution, rolledUntil: Date): Promise<void> {
  await db.query(
    `INSERT INTO metric_rollup_state (resolution_s, rolled_until, updated_at) VALUES ($1, $2, now())
     ON CONFLICT (resolution_s) DO UPDATE SET rolled_until = greatest(metric_rollup_state.rolled_until, excluded.rolled_until), updated_at = now()`,
    [resolutionS, rolledUntil],
  );
}
