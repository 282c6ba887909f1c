// When Sluice vacuums its own tables (issue #18, "storage that survives churn"): only where
// autovacuum will not — the server runs with `autovacuum = off` (seen on a CI machine's
// Postgres: /etc/postgresql/15/main/conf.d/90-ci.conf), or a table has
// `autovacuum_enabled = false`. Then the maintenance service `vacuum` does what autovacuum
// would: a table whose dead tuples pass its vacuum threshold — threshold + scale factor ×
// live tuples, the table's own reloptions over the server's settings, as autovacuum computes
// it — is vacuumed, with ANALYZE when its changes since the last analyze pass the analyze
// threshold likewise; and, like autovacuum, not again within `autovacuum_naptime` of its last
// vacuum. That pacing matters: every VACUUM and ANALYZE updates the table's pg_class row,
// which makes every session re-plan its cached plans of the table, and the engine's claim is
// a large plpgsql function planned generically once per session. Run every few seconds (the
// maintenance interval scaled for tests, 4 s) on the counter tables, it cut a 40/s key's
// starts in engine-rate-limits-coordinators from 25–27/s to 11.5/s (load 5), and to 2 starts
// in 3 s in a CI run (9.1/s between them). Where autovacuum runs, Sluice
// leaves it alone: two vacuums of one table wait for each other, and autovacuum's own
// cost-based pacing is the operator's choice (the dead-tuples health rule says when it falls
// behind).
//
// The xmin horizon (2026-12-07, issue #18's held snapshot): while a session holds a snapshot,
// a VACUUM can remove no row version that died after it, so vacuuming the same table again
// under the same horizon is a scan of every page changed since that frees nothing (executions
// in bench:soak's hold: 140–280 MB, 1.3–2.4 s a VACUUM here), once per naptime for as long as
// the hold lasts. And the naptime can then delay the one vacuum that matters — the first
// after the hold ends, when everything that died during it becomes removable at once — by up
// to a naptime, while the table's churn goes to new pages. So with the horizon and what
// Sluice's own last vacuum of a table recorded (vacuum_state: the horizon it ran under and
// the dead tuples it left, and how long the snapshot holding the horizon had been open): when
// that last vacuum ran under a snapshot open for HELD_MS or more, a table whose horizon has
// not moved since is left alone and reported held, and one that vacuum left more dead tuples
// than its threshold is vacuumed as soon as the horizon has moved, naptime or not. Only then:
// a hot table leaves dead tuples behind without any long snapshot (rows it could not get a
// cleanup lock for, versions a short transaction still sees) — group_slots left ~1,200 at
// every run of an 8-minute soak, and the rule without the snapshot's age vacuumed it every
// run, where each VACUUM makes every session plan the claim again (above). Anything else as
// above.

export interface TableVacuumStats {
  table: string;
  live: number;
  dead: number;
  /** n_mod_since_analyze */
  modSinceAnalyze: number;
  /** The last vacuum of either kind (epoch ms), null = never. */
  lastVacuumAt: number | null;
  /** pg_class.reloptions, as 'name=value' strings (null: none set). */
  reloptions: readonly string[] | null;
  /** What Sluice's own last vacuum of the table recorded, when it is the table's last vacuum
   *  of either kind: the xmin horizon it ran under (a 64-bit transaction id), the dead tuples
   *  it could not remove, and how long the snapshot holding that horizon had been open (ms; 0
   *  when none, or unknown: a replication slot). Absent or null: none, or another vacuum ran
   *  since. */
  own?: { horizon: number; leftDead: number; heldMs: number } | null;
}

/** A snapshot open this long (ms) when Sluice vacuumed a table is a hold the next run waits
 *  out (not again until the horizon moves) and follows up on (at once when it has). */
export const HELD_MS = 5_000;

export interface ServerVacuumSettings {
  /** current_setting('autovacuum') = 'on' */
  autovacuum: boolean;
  /** autovacuum_vacuum_threshold */
  threshold: number;
  /** autovacuum_vacuum_scale_factor */
  scaleFactor: number;
  /** autovacuum_analyze_threshold, autovacuum_analyze_scale_factor */
  analyzeThreshold: number;
  analyzeScaleFactor: number;
  /** autovacuum_naptime: no table is vacuumed again sooner than this after its last vacuum */
  naptimeMs: number;
}

export interface VacuumCandidate {
  table: string;
  dead: number;
  live: number;
  /** The dead-tuple count past which autovacuum would have vacuumed it. */
  limit: number;
  /** Why autovacuum will not: the server's setting, or the table's own. */
  reason: 'autovacuum off' | 'autovacuum_enabled = false';
  /** Its changes since the last analyze pass the analyze threshold: VACUUM (ANALYZE). */
  analyze: boolean;
}

/** One reloption's value ('autovacuum_vacuum_threshold=5000' → '5000'), or undefined. */
function relopt(opts: readonly string[] | null, name: string): string | undefined {
  for (const o of opts ?? []) {
    const eq = o.indexOf('=');
    if (eq > 0 && o.slice(0, eq) === name) return o.slice(eq + 1);
  }
  return undefined;
}

function relNumber(opts: readonly string[] | null, name: string, fallback: number): number {
  const v = relopt(opts, name);
  const n = v === undefined ? NaN : Number(v);
  return Number.isFinite(n) && n >= 0 ? n : fallback;
}

export interface VacuumPlan {
  /** To vacuum now, most dead tuples first. */
  todo: VacuumCandidate[];
  /** Past their threshold, but the horizon has not moved since Sluice's last vacuum of them
   *  under a long hold: another would free nothing. With their dead tuples. */
  held: { table: string; dead: number }[];
}

/** The tables to vacuum now (epoch ms `now`; `horizon`, the database's xmin horizon as a
 *  64-bit transaction id, unknown when absent): those autovacuum will not vacuum (server
 *  off, or the table's autovacuum_enabled false), whose dead tuples pass the table's vacuum
 *  threshold, that were not vacuumed within the naptime — unless their last vacuum, under a
 *  long hold, left more than the threshold behind — and, after such a vacuum, whose horizon
 *  has moved since. Empty where autovacuum runs. */
export function vacuumPlan(tables: readonly TableVacuumStats[], server: ServerVacuumSettings, now: number, horizon?: number): VacuumPlan {
  const out: VacuumCandidate[] = [];
  const held: VacuumPlan['held'] = [];
  for (const t of tables) {
    const tableOff = relopt(t.reloptions, 'autovacuum_enabled')?.toLowerCase();
    const disabled = tableOff === 'false' || tableOff === 'off' || tableOff === '0';
    if (server.autovacuum && !disabled) continue;
    const limit = relNumber(t.reloptions, 'autovacuum_vacuum_threshold', server.threshold) + relNumber(t.reloptions, 'autovacuum_vacuum_scale_factor', server.scaleFactor) * Math.max(0, t.live);
    if (t.dead <= limit) continue;
    // its last vacuum ran under a long hold (and the horizon is known now)
    const own = horizon !== undefined && t.own && t.own.heldMs >= HELD_MS ? t.own : null;
    if (own !== null && horizon !== undefined && horizon <= own.horizon) {
      held.push({ table: t.table, dead: t.dead });
      continue;
    }
    // its last vacuum was held back (left more than the threshold): now that the horizon has
    // moved, at once
    const heldBack = own !== null && own.leftDead > limit;
    if (t.lastVacuumAt !== null && now - t.lastVacuumAt < server.naptimeMs && !heldBack) continue;
    const analyzeLimit =
      relNumber(t.reloptions, 'autovacuum_analyze_threshold', server.analyzeThreshold) +
      relNumber(t.reloptions, 'autovacuum_analyze_scale_factor', server.analyzeScaleFactor) * Math.max(0, t.live);
    out.push({
      table: t.table, dead: t.dead, live: t.live, limit: Math.round(limit),
      reason: server.autovacuum ? 'autovacuum_enabled = false' : 'autovacuum off',
      analyze: t.modSinceAnalyze > analyzeLimit,
    });
  }
  return { todo: out.sort((a, b) => b.dead - a.dead || (a.table < b.table ? -1 : a.table > b.table ? 1 : 0)), held };
}
