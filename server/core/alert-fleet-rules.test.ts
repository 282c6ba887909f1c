import { describe, it, expect } from 'vitest';
import { DEFAULT_FLEET_POLICY, observeFleet, type FleetCoordinator, type FleetInputs } from './alert-fleet-rules';
import { DEFAULT_ALERT_POLICY } from './alert-evaluation';
import type { EpisodeView } from './alert-observation';

const coord = (c: Partial<FleetCoordinator> = {}): FleetCoordinator => ({
  id: 'c1', name: 'c1', host: 'h', tasks: ['orders'], status: 'live', unclean: false, heartbeatAgeMs: 500, staleMs: 10_000,
  startedAt: 1_000, lastHeartbeatAt: 100_000, appliedVersion: 3, applyError: null, sinceAppliedMs: 1000, ...c,
});
const healthy = (): FleetInputs => ({
  coordinators: [coord()],
  desiredVersion: 3,
  ownership: [{ task: 'orders', partitions: 4, unowned: [] }],
  maintenance: [{ name: 'reconciler', intervalMs: 30_000, sinceFinishedMs: 10_000, sinceStartedMs: 10_000, lastError: null, runs: 5 }],
  reconcile: [],
  dlq: [{ task: 'orders', depth: 10, maxDepth: 1000, trimmed: 0 }],
  database: { connections: 10, maxConnections: 100, oldestSnapshotMs: 200, executionsLive: 100_000, executionsDead: 1000 },
});
const none = new Map<string, EpisodeView>();
const verdicts = (f: FleetInputs, latest = none) =>
  observeFleet(f, latest, DEFAULT_ALERT_POLICY).map((o) => `${o.rule}${o.task ? `[${o.task}]` : ''}${o.subject ? `:${o.subject}` : ''}=${o.breaching ? o.severity : 'clear'}`);
const withF = (edit: (f: FleetInputs) => void) => {
  const f = healthy();
  edit(f);
  return f;
};

describe('observeFleet', () => {
  it.each([
    ['a healthy fleet', healthy(), []],
    // coordinators
    ['a coordinator gone without a goodbye and not replaced', withF((f) => (f.coordinators = [coord({ status: 'stopped', unclean: true, heartbeatAgeMs: 60_000 })])), ['coordinatorStale:c1@h=critical']],
    ['… replaced by a member that joined after its last beat', withF((f) => (f.coordinators = [coord({ status: 'stopped', unclean: true }), coord({ id: 'c2', name: 'c2', startedAt: 200_000 })])), []],
    ['… a member serving other tasks is no replacement', withF((f) => (f.coordinators = [coord({ status: 'stale', unclean: true }), coord({ id: 'c2', name: 'c2', tasks: ['mail'], startedAt: 200_000 })])), ['coordinatorStale:c1@h=critical']],
    ['a clean stop is not stale', withF((f) => (f.coordinators = [coord({ status: 'stopped', unclean: false }), coord({ id: 'c2', name: 'c2' })])), []],
    // ownership
    ['some partitions without a live owner', withF((f) => (f.ownership = [{ task: 'orders', partitions: 4, unowned: [1, 3] }])), ['unownedPartitions[orders]=warning']],
    ['every partition without a live owner', withF((f) => (f.ownership = [{ task: 'orders', partitions: 4, unowned: [0, 1, 2, 3] }])), ['unownedPartitions[orders]=critical']],
    ['no coordinator ever registered: setup, not a failure', withF((f) => ((f.coordinators = []), (f.ownership = [{ task: 'orders', partitions: 4, unowned: [0, 1, 2, 3] }]))), []],
    // config
    ['a live member behind the desired version', withF((f) => (f.desiredVersion = 4)), ['configBehind:c1@h=warning']],
    ['a live member failing to apply', withF((f) => (f.coordinators = [coord({ applyError: 'bad config' })])), ['configBehind:c1@h=critical']],
    ['a stopped member behind is not judged', withF((f) => ((f.desiredVersion = 4), (f.coordinators = [coord({ status: 'stopped' })]))), []],
    // maintenance
    ['a failing service', withF((f) => (f.maintenance[0]!.lastError = 'deadlock detected')), ['maintenanceFailing:reconciler=critical']],
    ['a service not finished for 3 intervals', withF((f) => (f.maintenance[0]!.sinceFinishedMs = 91_000)), ['maintenanceFailing:reconciler=warning']],
    ['… 3 intervals exactly is still fine', withF((f) => (f.maintenance[0]!.sinceFinishedMs = 90_000)), []],
    ['a service that never ran anywhere is not judged', withF((f) => (f.maintenance = [{ name: 'x', intervalMs: 1000, sinceFinishedMs: null, sinceStartedMs: null, lastError: null, runs: 0 }])), []],
    // reconciler
    ['one repair in the window', withF((f) => (f.reconcile = [{ task: 'orders', repairs: 1, recent: [] }])), []],
    ['repairs past the line', withF((f) => (f.reconcile = [{ task: 'orders', repairs: 3, recent: [] }])), ['reconcileRepairs[orders]=warning']],
    ['repairs past critical', withF((f) => (f.reconcile = [{ task: 'orders', repairs: 11, recent: [] }])), ['reconcileRepairs[orders]=critical']],
    // dlq
    ['DLQ within 10 % of maxDepth', withF((f) => (f.dlq = [{ task: 'orders', depth: 900, maxDepth: 1000, trimmed: 0 }])), ['dlqNearFull[orders]=warning']],
    ['DLQ below 90 %', withF((f) => (f.dlq = [{ task: 'orders', depth: 899, maxDepth: 1000, trimmed: 0 }])), []],
    ['DLQ trimmed by maxDepth', withF((f) => (f.dlq = [{ task: 'orders', depth: 500, maxDepth: 1000, trimmed: 20 }])), ['dlqNearFull[orders]=critical']],
    // postgres
    ['connections past 80 %', withF((f) => (f.database.connections = 85)), ['dbConnections:postgres=warning']],
    ['connections past 95 %', withF((f) => (f.database.connections = 96)), ['dbConnections:postgres=critical']],
    ['a snapshot held 6 minutes', withF((f) => (f.database.oldestSnapshotMs = 6 * 60_000)), ['vacuumHorizon:postgres=warning']],
    ['a snapshot held 31 minutes', withF((f) => (f.database.oldestSnapshotMs = 31 * 60_000)), ['vacuumHorizon:postgres=critical']],
    ['executions 30 % dead', withF((f) => ((f.database.executionsLive = 70_000), (f.database.executionsDead = 30_000))), ['deadTuples:executions=warning']],
    ['a small table mostly dead stays under the floor', withF((f) => ((f.database.executionsLive = 10), (f.database.executionsDead = 900))), []],
  ] as const)('%s', (_name, f, want) => expect(verdicts(f)).toEqual(want));

  it('an open episode is observed while clear, so it can resolve', () => {
    expect(verdicts(healthy(), new Map([['|vacuumHorizon|postgres', { status: 'firing' }]]))).toEqual(['vacuumHorizon:postgres=clear']);
  });

  it('evidence and remedy of a stale coordinator', () => {
    const f = withF((x) => (x.coordinators = [coord({ status: 'stopped', unclean: true, heartbeatAgeMs: 60_000 }), coord({ id: 'c2', name: 'c2', tasks: ['mail'] })]));
    const [o] = observeFleet(f, none, DEFAULT_ALERT_POLICY);
    expect(o).toMatchObject({ key: '|coordinatorStale|c1@h', task: '', value: 60_000, threshold: 10_000, timing: { forMs: DEFAULT_FLEET_POLICY.forMs } });
    expect(o!.evidence).toMatchObject({ coordinator: 'c1', replacedBy: null, liveCoordinators: ['c2'] });
    expect(o!.remedy).toMatch(/restart it or start another/);
  });
});
