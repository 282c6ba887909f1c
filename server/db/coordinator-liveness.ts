// The one liveness predicate: a coordinator is live when it has not stopped and its last
// heartbeat is within ITS OWN stale threshold (coordinators.stale_ms, written when it
// registered; the default for rows of members that predate the column), by the database
// clock. The Overview strip, the Coordinators page, the task drill-down's owners, the
// task list, /metrics, the "why waiting" explanation and the fleet alert rules all
// inline these fragments, so they cannot disagree (10 s vs 30 s, JS vs DB clocks).
// Ownership (server/coordinator) judges peers with the member's own staleMs, which
// equals the peers' stale_ms in a fleet run with one SLUICE_STALE_MS.
/**
 * The default stale threshold, for rows without stale_ms: the core coordinator timings'
 * default (coordinator-liveness.test.ts pins that they agree; Db imports only core types).
 */
export const DEFAULT_STALE_MS = 10_000;

/** SQL: the stale threshold of coordinator row `c`, in ms. */
export const staleMsOf = (c: string) => `coalesce(${c}.stale_ms, ${DEFAULT_STALE_MS})`;

/** SQL: coordinator row `c` is live (may still be draining). NULL-safe for outer joins: false without a row. */
export function coordinatorLive(c: string): string {
  return `(${c}.id IS NOT NULL AND ${c}.stopped_at IS NULL
           AND ${c}.last_heartbeat_at >= now() - make_interval(secs => ${staleMsOf(c)} / 1000.0))`;
}

/** SQL: 'stopped' | 'stale' | 'draining' | 'live' for coordinator row `c`. */
export function coordinatorStatus(c: string): string {
  return `CASE WHEN ${c}.stopped_at IS NOT NULL THEN 'stopped'
               WHEN NOT ${coordinatorLive(c)} THEN 'stale'
               WHEN ${c}.draining THEN 'draining' ELSE 'live' END`;
}
