// The Coordinators page's data: liveness by the database clock, owned partitions per
// task, desired vs applied version, and the rollout ("rolling out" until every live
// member applied the latest; stale and stopped members do not hold it up; apply errors
// are reported).
import { describe, it, expect, beforeAll } from 'vitest';
import { testDatabase, type TestDatabase } from './db';
import { applyTasks } from '../support/engine-fixtures';
import { registerCoordinator, recordAppliedVersion, markStopped } from '../../server/db/coordinator-membership';
import { syncOwnership } from '../../server/db/partition-ownership';
import { listCoordinators, COORDINATOR_STALE_MS } from '../../server/presenters/coordinators';
import { listTasks } from '../../server/presenters/tasks';

let db: TestDatabase;
beforeAll(async () => {
  db = await testDatabase();
});

const member = (name: string) => registerCoordinator(db.pool, { name, host: `${name}.internal`, pid: 100, tasks: ['alpha', 'beta'], slots: 8, metricsPort: null });

describe('listCoordinators', () => {
  it('rollout, liveness, ownership and apply errors', async () => {
    await applyTasks(db.pool, [{ name: 'alpha', partitions: 4 }, { name: 'beta', partitions: 2 }]);
    const [a, b, stale, gone] = [await member('a'), await member('b'), await member('stale'), await member('gone')];
    await syncOwnership(db.pool, a, [{ task: 'alpha', partition: 0 }, { task: 'alpha', partition: 2 }, { task: 'beta', partition: 1 }], 60_000);
    await syncOwnership(db.pool, b, [{ task: 'alpha', partition: 1 }], 60_000);
    await db.pool.query(`UPDATE coordinators SET last_heartbeat_at = now() - make_interval(secs => $2 / 1000.0 + 5) WHERE id = $1`, [stale, COORDINATOR_STALE_MS]);
    await markStopped(db.pool, gone);
    await applyTasks(db.pool, [{ name: 'alpha', partitions: 4, concurrency: 3 }, { name: 'beta', partitions: 2 }]);
    await recordAppliedVersion(db.pool, a, { version: 2, applyMs: 7, error: null });
    await recordAppliedVersion(db.pool, b, { version: 1, applyMs: 3, error: null });
    await recordAppliedVersion(db.pool, b, { version: 2, applyMs: 4, error: 'version 2: boom' });

    let page = await listCoordinators(db.pool);
    const by = new Map(page.coordinators.map((c) => [c.name, c]));
    expect([...by.keys()]).toEqual(['a', 'b', 'stale', 'gone']); // stopped last
    expect(by.get('a')).toMatchObject({
      status: 'live',
      ownedPartitions: 3,
      ownedByTask: [
        { task: 'alpha', partitions: [0, 2] },
        { task: 'beta', partitions: [1] },
      ],
      appliedVersion: 2,
      applyMs: 7,
      onLatest: true,
    });
    expect(by.get('a')!.pushLatencyMs).toBeGreaterThanOrEqual(0);
    expect(by.get('b')).toMatchObject({ status: 'live', appliedVersion: 1, applyError: 'version 2: boom', onLatest: false, pushLatencyMs: null });
    expect(by.get('stale')!.status).toBe('stale');
    expect(by.get('stale')!.heartbeatAgeMs).toBeGreaterThan(COORDINATOR_STALE_MS);
    expect(by.get('gone')!.status).toBe('stopped');
    expect(page.rollout).toMatchObject({ version: 2, live: 2, applied: 1, pending: ['b'], failed: [{ name: 'b', error: 'version 2: boom' }], rollingOut: true });

    await recordAppliedVersion(db.pool, b, { version: 2, applyMs: 5, error: null });
    page = await listCoordinators(db.pool);
    expect(page.rollout).toMatchObject({ version: 2, live: 2, applied: 2, pending: [], failed: [], rollingOut: false });
    expect(page.rollout!.maxPushLatencyMs).toBeGreaterThanOrEqual(0);

    // A member started after the commit applied it at start-up: no push latency for it.
    const late = await member('late');
    await recordAppliedVersion(db.pool, late, { version: 2, applyMs: 2, error: null });
    page = await listCoordinators(db.pool);
    expect(page.coordinators.find((c) => c.name === 'late')).toMatchObject({ onLatest: true, pushLatencyMs: null });
    expect(page.rollout).toMatchObject({ live: 3, applied: 3, rollingOut: false });

    // The Tasks list counts partitions owned by live members only.
    const tasks = await listTasks(db.pool);
    expect(tasks.tasks.map((t) => [t.name, t.load.ownedPartitions, t.partitions])).toEqual([
      ['alpha', 3, 4],
      ['beta', 1, 2],
    ]);
  });
});
