// Vacuum (issue #18): where autovacuum will not run — the server's `autovacuum = off`, or a
// table's `autovacuum_enabled = false` — vacuums the tables of Sluice's schema whose dead
// tuples pass their vacuum threshold, as autovacuum would, at most once per
// autovacuum_naptime per table (server/core/vacuum-policy.ts says why that pacing matters).
// Without it a queue table only grows: every claim and finish leaves a dead row version
// and nothing but HOT pruning removes them. 'steps' mode (VACUUM cannot run inside the
// runner's transaction), most dead tuples first, up to a time budget per run; a lease long
// enough for a big table. A table whose xmin horizon has not moved since its last vacuum is
// not scanned again for nothing, and is reported `held` (with how many of its dead tuples
// wait for the horizon). Where autovacuum runs, each run is three catalog reads.
import type { MaintenanceService } from './service';
import { vacuumPlan } from '../../core/vacuum-policy';
import { readVacuumState, vacuumTable } from '../../db/vacuum-tables';

const BUDGET_MS = 60_000;

export const vacuum: MaintenanceService = {
  name: 'vacuum',
  intervalMs: 20_000,
  mode: 'steps',
  leaseMs: 10 * 60_000,
  async run({ db, log }) {
    const { server, schema, nowMs, horizon, heldMs, tables } = await readVacuumState(db);
    const { todo, held } = vacuumPlan(tables, server, nowMs, horizon ?? undefined);
    const deadline = Date.now() + BUDGET_MS;
    const vacuumed: { table: string; dead: number; leftDead: number | null; analyze: boolean; ms: number }[] = [];
    for (const c of todo) {
      if (Date.now() > deadline) break;
      const t0 = performance.now();
      const { leftDead } = await vacuumTable(db, schema, c.table, c.analyze, { horizon, heldMs });
      vacuumed.push({ table: c.table, dead: c.dead, leftDead, analyze: c.analyze, ms: Math.round(performance.now() - t0) });
    }
    if (vacuumed.length > 0) log(`vacuum: ${vacuumed.map((v) => `${v.table} (${v.dead} dead, ${v.leftDead ?? '?'} left, ${v.ms} ms)`).join(', ')} — ${todo[0]!.reason}`);
    if (held.length > 0) log(`vacuum: not again while the xmin horizon has not moved: ${held.map((h) => `${h.table} (${h.dead} dead)`).join(', ')}`);
    return { autovacuum: server.autovacuum ? 'on' : 'off', vacuumed, left: todo.length - vacuumed.length, held };
  },
};
