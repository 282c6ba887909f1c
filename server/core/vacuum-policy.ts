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
}

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

/** The tables to vacuum now (epoch ms `now`), most dead tuples first: those autovacuum will
 *  not vacuum (server off, or the table's autovacuum_enabled false), whose dead tuples pass
 *  the table's vacuum threshold and that were not vacuumed within the naptime. Empty where
 *  autovacuum runs. */
export function vacuumCandidates(tables: readonly TableVacuumStats[], server: ServerVacuumSettings, now: number): VacuumCandidate[] {
  const out: VacuumCandidate[] = [];
  for (const t of tables) {
    const tableOff = relopt(t.reloptions, 'autovacuum_enabled')?.toLowerCase();
    const disabled = tableOff === 'false' || tableOff === 'off' || tableOff === '0';
    if (server.autovacuum && !disabled) continue;
    const limit = relNumber(t.reloptions, 'autovacuum_vacuum_threshold', server.threshold) + relNumber(t.reloptions, 'autovacuum_vacuum_scale_factor', server.scaleFactor) * Math.max(0, t.live);
    if (t.dead <= limit) continue;
    if (t.lastVacuumAt !== null && now - t.lastVacuumAt < server.naptimeMs) continue;
    const analyzeLimit =
      relNumber(t.reloptions, 'autovacuum_analyze_threshold', server.analyzeThreshold) +
      relNumber(t.reloptions, 'autovacuum_analyze_scale_factor', server.analyzeScaleFactor) * Math.max(0, t.live);
    out.push({
      table: t.table, dead: t.dead, live: t.live, limit: Math.round(limit),
      reason: server.autovacuum ? 'autovacuum_enabled = false' : 'autovacuum off',
      analyze: t.modSinceAnalyze > analyzeLimit,
    });
  }
  return out.sort((a, b) => b.dead - a.dead || (a.table < b.table ? -1 : a.table > b.table ? 1 : 0));
}
