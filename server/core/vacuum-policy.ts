// When Sluice vacuums its own tables (issue #18, "storage that survives churn"): only where
// autovacuum will not — the server runs with `autovacuum = off` (seen on a CI machine's
// Postgres: /etc/postgresql/15/main/conf.d/90-ci.conf), or a table has
// `autovacuum_enabled = false`. Then the maintenance service `vacuum` does what autovacuum
// would: a table whose dead tuples pass its vacuum threshold — threshold + scale factor ×
// live tuples, the table's own reloptions over the server's settings, as autovacuum computes
// it — is vacuumed (with ANALYZE: the statistics are as stale). Where autovacuum runs, Sluice
// leaves it alone: two vacuums of one table wait for each other, and autovacuum's own
// cost-based pacing is the operator's choice (the dead-tuples health rule says when it falls
// behind).

export interface TableVacuumStats {
  table: string;
  live: number;
  dead: number;
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
}

export interface VacuumCandidate {
  table: string;
  dead: number;
  live: number;
  /** The dead-tuple count past which autovacuum would have vacuumed it. */
  limit: number;
  /** Why autovacuum will not: the server's setting, or the table's own. */
  reason: 'autovacuum off' | 'autovacuum_enabled = false';
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

/** The tables to vacuum now, most dead tuples first: those autovacuum will not vacuum
 *  (server off, or the table's autovacuum_enabled false) and whose dead tuples pass the
 *  table's vacuum threshold. Empty where autovacuum runs. */
export function vacuumCandidates(tables: readonly TableVacuumStats[], server: ServerVacuumSettings): VacuumCandidate[] {
  const out: VacuumCandidate[] = [];
  for (const t of tables) {
    const tableOff = relopt(t.reloptions, 'autovacuum_enabled')?.toLowerCase();
    const disabled = tableOff === 'false' || tableOff === 'off' || tableOff === '0';
    if (server.autovacuum && !disabled) continue;
    const limit = relNumber(t.reloptions, 'autovacuum_vacuum_threshold', server.threshold) + relNumber(t.reloptions, 'autovacuum_vacuum_scale_factor', server.scaleFactor) * Math.max(0, t.live);
    if (t.dead <= limit) continue;
    out.push({ table: t.table, dead: t.dead, live: t.live, limit: Math.round(limit), reason: server.autovacuum ? 'autovacuum_enabled = false' : 'autovacuum off' });
  }
  return out.sort((a, b) => b.dead - a.dead || (a.table < b.table ? -1 : a.table > b.table ? 1 : 0));
}
