// Through PgBouncer in transaction mode (Debian's pgbouncer, started by the test on a free
// 127.0.0.1 port with a server pool smaller than the clients' connections):
//   - the chaos run (test/support/chaos.ts, 16k executions, kill -9 at four points) with the
//     coordinators' and the handlers' DATABASE_URL on the bouncer and LISTEN on
//     DATABASE_DIRECT_URL: nothing lost, limits and stream order held;
//   - the control plane: every control-plane job run by two runners at once on the bouncer
//     (no session state needed: the runner's lock is a row lock), and the presenters
//     (pg, like everything else) reading through it.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { coordinatorTestContext } from '../support/coordinator-harness';
import { runChaos } from '../support/chaos';
import { startPgBouncer, PGBOUNCER_BIN, type PgBouncer } from '../support/pgbouncer';
import { createPool } from '../../server/db/pool';
import { MaintenanceRunner } from '../../server/db/maintenance-runner';
import { controlPlaneServices } from '../../server/control-plane/services';
import { CONTROL_PLANE_NAMESPACE } from '../../server/control-plane/service';
import { listAudit, auditListInput } from '../../server/presenters/audit';
import { alertListInput, listAlerts } from '../../server/presenters/alerts';
import { listDeadLetterPage } from '../../server/presenters/dead-letters';

const ctx = coordinatorTestContext();
let bouncer: PgBouncer;

beforeAll(async () => {
  if (!PGBOUNCER_BIN) throw new Error('pgbouncer is not installed: apt-get install -y pgbouncer (.ci/run installs it)');
  bouncer = await startPgBouncer(ctx.db.url, { poolSize: 12 });
});
afterAll(async () => {
  await ctx.h?.stopAll();
  await bouncer?.stop();
});

describe('through PgBouncer (transaction mode)', () => {
  it('chaos: loses nothing and breaks no limit or order with kill -9 (16000 executions)', async () => {
    await runChaos(ctx, { total: 16_000, label: 'pgbouncer', env: { DATABASE_URL: bouncer.url, DATABASE_DIRECT_URL: ctx.db.url } });
    // the bouncer carried the coordinators' traffic, over at most its pool of server connections
    const admin = createPool(bouncer.adminUrl, 1);
    try {
      const pools = (await admin.query(`SHOW POOLS`)).rows.filter((r) => r.database === new URL(ctx.db.url).pathname.slice(1));
      expect(pools).toHaveLength(1);
      const stats = (await admin.query(`SHOW STATS`)).rows.find((r) => r.database === pools[0].database);
      // claims and finishes are batched: thousands of transactions, not one per execution
      expect(Number(stats.total_xact_count)).toBeGreaterThan(1000);
      console.log(`pgbouncer: ${stats.total_xact_count} transactions, ${stats.total_query_count} queries; pool ${JSON.stringify(pools[0])}`);
      expect(Number(pools[0].sv_active) + Number(pools[0].sv_idle) + Number(pools[0].sv_used) + Number(pools[0].sv_tested) + Number(pools[0].sv_login)).toBeLessThanOrEqual(12);
    } finally {
      await admin.end();
    }
  }, 240_000);

  it('control plane: every job runs through it from two processes at once, and pages read through it', async () => {
    const a = createPool(bouncer.url, 5);
    const b = createPool(bouncer.url, 5);
    const errors: string[] = [];
    try {
      const log = (m: string) => errors.push(m);
      const ra = new MaintenanceRunner(a, controlPlaneServices, { namespace: CONTROL_PLANE_NAMESPACE }, { log });
      const rb = new MaintenanceRunner(b, controlPlaneServices, { namespace: CONTROL_PLANE_NAMESPACE }, { log });
      for (const s of controlPlaneServices) {
        const [x, y] = await Promise.all([ra.runNow(s.name), rb.runNow(s.name)]);
        expect([x.error, y.error], s.name).toEqual([undefined, undefined]);
        // one of the two ran it, the other skipped (a row lock, held across the pooler)
        expect([x.ran, y.ran].filter(Boolean).length, s.name).toBeGreaterThanOrEqual(1);
      }
      const runs = await ctx.db.pool.query(`SELECT name, last_error FROM maintenance_runs WHERE name LIKE 'cp:%' ORDER BY name`);
      expect(runs.rows.map((r) => r.name)).toEqual(controlPlaneServices.map((s) => `cp:${s.name}`).sort());
      expect(runs.rows.filter((r) => r.last_error !== null)).toEqual([]);
      expect(errors).toEqual([]);

      await ctx.db.pool.query(`INSERT INTO audit_log (actor_type, actor_label, action, target_type) VALUES ('cli', 'bouncer-test', 'test.pgbouncer', 't')`);
      const page = await listAudit(a, auditListInput.parse({ action: 'test.pgbouncer' }));
      expect(page.entries.map((e) => e.action)).toEqual(['test.pgbouncer']);
      expect(await listAlerts(a, alertListInput.parse({ status: 'all' }))).toMatchObject({ counts: { firing: 0, acknowledged: 0 } });
      const dl = await listDeadLetterPage(b, { limit: 10 });
      expect(dl).toMatchObject({ items: [], count: 0 });
    } finally {
      await a.end();
      await b.end();
    }
  }, 120_000);
});
