// DATABASE_REPLICA_URL against a real streaming replica: a primary and a hot standby of the
// test's own (Debian's PostgreSQL 15, pg_basebackup -R). With the replica's replay paused,
// what the console's lists and charts show is the replica's view (new work on the primary
// does not appear), while what must be current — coordinator liveness, execution detail
// read after an action, every write — comes from the primary; the replica's lag is reported
// and the notice's rule fires; resumed, the lists catch up and the lag returns to 0.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import pg from 'pg';
import { createPool } from '../../server/db/pool';
import { migrate } from '../../server/db/migrate';
import { readReplicaLag } from '../../server/db/read-replica-lag';
import { enqueue } from '../../server/services/enqueue';
import { applyTasks, fakeCoordinator } from '../support/engine-fixtures';
import { insertDeadLetters } from '../support/dead-letter-fixtures';
import { callerAs } from '../support/trpc-caller';
import { createContext } from '../../server/api/context';
import { createCaller } from '../../server/api/root';
import { replicaBehind } from '../../components/shell/replica-lag-notice';
import { PG15_AVAILABLE, startPrimaryWithReplica, type PrimaryWithReplica } from '../support/replica';
import type { SessionUser } from '../../server/services/sessions';

const operator: SessionUser = { id: '00000000-0000-0000-0000-0000000000b2', email: 'op@example.com', role: 'operator' };

let servers: PrimaryWithReplica;
let primary: pg.Pool;
let replica: pg.Pool;

function dbUrl(url: string, name: string) {
  const u = new URL(url);
  u.pathname = '/' + name;
  return u.toString();
}

describe.skipIf(!PG15_AVAILABLE)('read replica (DATABASE_REPLICA_URL)', () => {
  beforeAll(async () => {
    servers = await startPrimaryWithReplica();
    const admin = new pg.Client({ connectionString: servers.primaryUrl });
    await admin.connect();
    await admin.query('CREATE DATABASE sluice');
    await admin.end();
    await migrate(dbUrl(servers.primaryUrl, 'sluice'));
    primary = createPool(dbUrl(servers.primaryUrl, 'sluice'), 4);
    replica = createPool(dbUrl(servers.replicaUrl, 'sluice'), 4);
    await applyTasks(primary, [{ name: 'mail', partitions: 2, concurrency: 4, groups: [{ name: 'tenant', limit: 2, keyPath: 'tenant' }] }]);
    await fakeCoordinator(primary, ['mail']);
    await enqueue(primary, 'mail', Array.from({ length: 5 }, (_, i) => ({ payload: { tenant: 'acme', n: i } })));
    await insertDeadLetters(primary, [{ task: 'mail', error: 'boom 1' }, { task: 'mail', error: 'boom 2' }]);
    await servers.waitForReplay();
  }, 120_000);

  afterAll(async () => {
    await primary?.end();
    await replica?.end();
    await servers?.stop();
  });

  it('the replica is a hot standby and reads it; writes there are refused', async () => {
    expect((await replica.query('SELECT pg_is_in_recovery() AS r')).rows[0].r).toBe(true);
    expect((await replica.query(`SELECT count(*)::int AS n FROM executions WHERE task = 'mail'`)).rows[0].n).toBe(5);
    await expect(replica.query(`DELETE FROM executions`)).rejects.toThrow(/read-only transaction/);
  });

  it('caught up, the lag is 0 even on an idle primary', async () => {
    await servers.waitForReplay();
    await new Promise((r) => setTimeout(r, 1200));
    const lag = await readReplicaLag(primary, replica);
    expect(lag).toMatchObject({ inRecovery: true, behindBytes: 0, lagMs: 0 });
    // Against itself (the "replica" is a primary) it says so.
    expect((await readReplicaLag(primary, primary)).inRecovery).toBe(false);
  });

  it('with replay paused, lists and charts show the replica, details and writes the primary; the lag is reported', async () => {
    const caller = callerAs(primary, operator, { readPool: replica });
    const before = await caller.executions.list({ filter: { task: 'mail' } });
    expect(before.items).toHaveLength(5);
    const dlqBefore = await caller.deadLetters.list({});
    expect(dlqBefore.items).toHaveLength(2);
    const auditBefore = await caller.audit.list({});

    await servers.pauseReplay();
    try {
      const fresh = await enqueue(primary, 'mail', Array.from({ length: 3 }, (_, i) => ({ payload: { tenant: 'globex', n: i } })));
      await insertDeadLetters(primary, [{ task: 'mail', error: 'boom 3' }]);
      const newId = fresh.executions[0]!.id!;
      await new Promise((r) => setTimeout(r, 300));

      // Lists: the replica's (paused) view.
      expect((await caller.executions.list({ filter: { task: 'mail' } })).items).toHaveLength(5);
      expect((await caller.deadLetters.list({})).items).toHaveLength(2);
      const overview = await caller.metrics.overview({ task: 'mail' });
      expect(overview.cards.find((c) => c.task === 'mail')).toBeDefined();
      expect(overview.fleet.replica).toMatchObject({ inRecovery: true });
      expect(overview.fleet.replica!.behindBytes).toBeGreaterThan(0);
      // Liveness from the primary: the fake coordinator registered there counts as live.
      expect(overview.fleet.coordinatorsLive).toBe(1);

      // An action and the read after it: on the primary, so the operator sees its effect.
      const detail = await caller.executions.get({ id: newId });
      expect(detail.id).toBe(newId);
      await caller.executionActions.cancel({ id: newId });
      expect((await caller.executions.get({ id: newId })).displayState).toBe('canceled');
      expect((await primary.query('SELECT state FROM executions WHERE id = $1', [newId])).rows[0].state).toBe('canceled');
      // The audit list (replica) does not show the cancel yet; the primary holds it.
      expect((await caller.audit.list({})).entries.length).toBe(auditBefore.entries.length);
      expect((await primary.query(`SELECT count(*)::int AS n FROM audit_log WHERE action LIKE 'execution.cancel%'`)).rows[0].n).toBe(1);

      const lag = await caller.metrics.replicaLag();
      expect(lag).not.toBeNull();
      expect(lag!.behindBytes).toBeGreaterThan(0);
      expect(lag!.lagMs).toBeGreaterThanOrEqual(300);
      // No roll-up has run here (data delay unknown): any lag is worth the notice.
      expect(replicaBehind(lag)).toBe(true);
    } finally {
      await servers.resumeReplay();
    }

    await servers.waitForReplay();
    expect((await caller.executions.list({ filter: { task: 'mail' } })).items).toHaveLength(8);
    expect((await caller.deadLetters.list({})).items).toHaveLength(3);
    expect((await caller.audit.list({})).entries.length).toBe(auditBefore.entries.length + 1);
    const after = await caller.metrics.replicaLag();
    expect(after).toMatchObject({ lagMs: 0, behindBytes: 0 });
    expect(replicaBehind(after)).toBe(false);
  }, 60_000);

  it('the request context reads from DATABASE_REPLICA_URL when set, and from the primary otherwise', async () => {
    const jar = { get: () => undefined, set: () => {}, delete: () => {} };
    const withReplica = await createContext({ headers: new Headers(), cookies: jar, db: primary, readDb: replica });
    expect(withReplica.readDb).toBe(replica);
    const without = await createContext({ headers: new Headers(), cookies: jar, db: primary });
    expect(without.readDb).toBe(primary);
    expect(await createCaller({ ...without, user: operator }).metrics.replicaLag()).toBeNull();
  });
});
