// How far a streaming replica is behind its primary: the primary's current WAL position
// compared with what the replica has replayed. Caught up (replayed ≥ the primary's
// position read just before) is 0 ms even when the primary has been idle for an hour;
// behind, the lag is the age of the last transaction the replica replayed, which is how
// old the data the console shows from it may be. Two one-row queries, no table reads.
import type { Db } from './pool';

export interface ReplicaLag {
  /** ms of primary history the replica has not replayed yet (0 when caught up). */
  lagMs: number;
  /** Bytes of WAL between the primary's position and the replica's replay position. */
  behindBytes: number;
  /** false when the "replica" is not in recovery (DATABASE_REPLICA_URL names a primary). */
  inRecovery: boolean;
  /** The charts' own delay on the primary (now − the 10 s roll-up cursor); null before the
   *  first roll-up. The console warns when the replica is further behind than this. */
  dataDelayMs: number | null;
}

export async function readReplicaLag(primary: Db, replica: Db): Promise<ReplicaLag> {
  const p = await primary.query<{ lsn: string; data_delay_ms: number | null }>(
    `SELECT pg_current_wal_lsn()::text AS lsn,
            (SELECT extract(epoch FROM now() - rolled_until) * 1000 FROM metric_rollup_state WHERE resolution_s = 10)::float8 AS data_delay_ms`,
  );
  const r = await replica.query<{ in_recovery: boolean; behind_bytes: string | null; since_ms: number | null }>(
    `SELECT pg_is_in_recovery() AS in_recovery,
            CASE WHEN pg_is_in_recovery() THEN pg_wal_lsn_diff($1::pg_lsn, pg_last_wal_replay_lsn()) END::text AS behind_bytes,
            (extract(epoch FROM now() - pg_last_xact_replay_timestamp()) * 1000)::float8 AS since_ms`,
    [p.rows[0]!.lsn],
  );
  const row = r.rows[0]!;
  const behind = Math.max(0, Number(row.behind_bytes ?? 0));
  return {
    inRecovery: row.in_recovery,
    behindBytes: behind,
    lagMs: behind > 0 ? Math.max(0, Math.round(row.since_ms ?? 0)) : 0,
    dataDelayMs: p.rows[0]!.data_delay_ms === null ? null : Math.max(0, Math.round(p.rows[0]!.data_delay_ms)),
  };
}
