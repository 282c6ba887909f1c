import { describe, it, expect } from 'vitest';
import { alertSummary, backpressureRates, carryTopKeys, EVIDENCE_KEYS_PER_GROUP, evidenceTopKeys, observeTask, type EpisodeView, type TaskInputs, type WindowTotals } from './alert-observation';
import { DEFAULT_ALERT_POLICY, type AlertPolicy } from './alert-evaluation';
import { stepAlert, type AlertState } from './alert-rules';
import { flooredImbalance } from './metrics';

const policy: AlertPolicy = { ...DEFAULT_ALERT_POLICY, windowMs: 60_000 };
const window = (w: Partial<WindowTotals> = {}): WindowTotals => ({
  arrivals: 0, processed: 0, failed: 0, retried: 0, dead_lettered: 0, shed: 0, rejected: 0, spills: 0, throttled: 0, latency_p99_ms: null, wait_p99_ms: null, run_p99_ms: null, ...w,
});
const task = (t: Partial<TaskInputs> = {}): TaskInputs => ({ task: 'orders', definition: { name: 'orders' }, depths: [0, 0, 0, 0], arrivals: [], totals: undefined, keyLoads: [], ...t });
const none = new Map<string, EpisodeView>();
const rules = (obs: ReturnType<typeof observeTask>) => obs.map((o) => `${o.rule}${o.subject ? `:${o.subject}` : ''}=${o.breaching ? o.severity : 'clear'}`);

describe('observeTask: threshold rules', () => {
  it.each([
    // depths, window, expected verdicts (only breaching or in-progress subjects are observed)
    ['idle task', [0, 0, 0, 0], undefined, []],
    ['deep partition 2', [10, 10, 1500, 10], undefined, ['depth=warning', 'imbalance=warning', 'hotPartition:2=critical']],
    ['critical depth', [6000, 6000, 6000, 6000], undefined, ['depth=critical']],
    ['retries above 10%', [0, 0, 0, 0], window({ processed: 80, failed: 20, retried: 20 }), ['retryRate=warning']],
    ['dead letters above 5%', [0, 0, 0, 0], window({ processed: 90, dead_lettered: 10 }), ['dlqRate=critical']],
    ['p99 above 30 s', [0, 0, 0, 0], window({ processed: 1, latency_p99_ms: 31_000 }), ['p99LatencyMs=critical']],
  ] as const)('%s', (_name, depths, totals, want) => {
    expect(rules(observeTask(task({ depths: [...depths], totals }), none, policy))).toEqual(want);
  });

  it('depth alerts name the deepest partition and carry the depths as evidence', () => {
    const [o] = observeTask(task({ depths: [10, 10, 1500, 10] }), none, policy);
    expect(o).toMatchObject({ key: 'orders|depth|', partition: 2, value: 1500, threshold: 1000, evidence: { depths: [10, 10, 1500, 10], deepestPartition: 2 } });
  });

  it('an in-progress episode is observed even when clear (its clear-duration must run)', () => {
    const latest = new Map<string, EpisodeView>([['orders|retryRate|', { status: 'firing' }]]);
    expect(rules(observeTask(task(), latest, policy))).toEqual(['retryRate=clear']);
  });

  it('a resolved episode is not kept alive', () => {
    const latest = new Map<string, EpisodeView>([['orders|retryRate|', { status: 'resolved' }]]);
    expect(observeTask(task(), latest, policy)).toEqual([]);
  });
});

describe('imbalance floor', () => {
  it.each([
    // depths, floor, ratio (null = not judged)
    [[1, 0, 0, 0, 0, 0, 0, 0], 100, null], // 8× of a total depth of 1
    [[99, 0, 0, 0], 100, null],
    [[100, 0, 0, 0], 100, 4],
    [[1, 0, 0, 0, 0, 0, 0, 0], 0, 8],
    [[0, 0], 0, 1],
  ])('%j with floor %i → %s', (depths, floor, want) => expect(flooredImbalance(depths, floor)).toBe(want));

  it('no imbalance alert below the total-depth floor, one above it', () => {
    expect(rules(observeTask(task({ depths: [1, 0, 0, 0, 0, 0, 0, 0] }), none, policy))).not.toContain('imbalance=critical');
    const deep = observeTask(task({ depths: [400, 0, 0, 0, 0, 0, 0, 0] }), none, policy).find((o) => o.rule === 'imbalance');
    expect(deep).toMatchObject({ breaching: true, severity: 'critical', value: 8, evidence: { totalDepth: 400, minTotalDepth: 100 } });
  });

  it('flapping case: a trickle hopping between partitions never opens an episode', () => {
    // One or two executions at a time, landing on a different partition each evaluation
    // (every 15 s for 10 minutes): without the floor this reads 4–8× and flaps.
    let state: AlertState | undefined;
    const episodes: string[] = [];
    const unfloored = { ...policy, imbalanceMinTotalDepth: 0 };
    const run = (p: AlertPolicy) => {
      state = undefined;
      episodes.length = 0;
      for (let i = 0; i < 40; i++) {
        const depths = [0, 0, 0, 0, 0, 0, 0, 0];
        depths[i % 8] = 1 + (i % 2);
        const latest = new Map<string, EpisodeView>(state ? [['orders|imbalance|', { status: state.status }]] : []);
        const o = observeTask(task({ depths }), latest, { ...p, forMs: 0, clearForMs: 0 }).find((x) => x.rule === 'imbalance');
        const depthNow = i % 2 === 0 ? 1 : 2;
        const step = stepAlert(state, { breaching: o?.breaching ?? false, value: o?.value ?? null, at: i * 15_000 }, { forMs: 0, clearForMs: 0 });
        for (const e of step.events) episodes.push(`${e.type}@${depthNow}`);
        state = step.state;
      }
      return episodes.filter((e) => e.startsWith('fired')).length;
    };
    expect(run(unfloored)).toBeGreaterThan(0); // the case is real without the floor
    expect(run(policy)).toBe(0);
  });
});

describe('backpressure rules', () => {
  it.each([
    // window, expected
    ['nothing past maxDepth', window({ arrivals: 600 }), []],
    ['one shed execution is critical', window({ arrivals: 600, shed: 1 }), ['shedPerSecond=critical']],
    ['rejects under 1% are fine', window({ arrivals: 1000, rejected: 5 }), []],
    ['rejects above 1% warn', window({ arrivals: 900, rejected: 100 }), ['rejectRate=warning']],
    ['rejects above 25% are critical', window({ arrivals: 600, rejected: 400 }), ['rejectRate=critical']],
    ['throttled and spilled do not alert', window({ arrivals: 600, throttled: 300, spills: 200 }), []],
  ] as const)('%s', (_name, totals, want) => {
    expect(rules(observeTask(task({ totals }), none, policy))).toEqual(want);
  });

  it('shed evidence: per-second rates over the window, the task policy and maxDepth', () => {
    const def = { name: 'orders', backpressure: { policy: 'shed', maxDepth: 50 } };
    const o = observeTask(task({ definition: def, totals: window({ arrivals: 120, shed: 30, rejected: 0 }) }), none, policy).find((x) => x.rule === 'shedPerSecond')!;
    expect(o.value).toBeCloseTo(0.5);
    expect(o.evidence).toMatchObject({ policy: 'shed', maxDepth: 50, perSecond: { shed: 0.5, rejected: 0, throttled: 0, spilled: 0 }, window: { shed: 30, windowMs: 60_000 } });
    expect(o.remedy).toMatch(/shed policy is dropping executions/);
  });

  it('backpressureRates: null without a window', () => {
    expect(backpressureRates(undefined, 60_000)).toBeNull();
    expect(backpressureRates(window({ rejected: 60, throttled: 6, shed: 0, spills: 600 }), 60_000)).toEqual({ rejected: 1, throttled: 0.1, shed: 0, spilled: 10 });
  });
});

describe('wait vs run time', () => {
  it.each([
    // window, expected: the task's p99 lines (5 s / 30 s) judge run time; wait has its own (30 s / 5 min)
    ['a retry backoff makes enqueue → finish slow, not run', window({ processed: 10, latency_p99_ms: 60_000, run_p99_ms: 200, wait_p99_ms: 100 }), []],
    ['slow handlers: run p99 above 5 s', window({ processed: 10, latency_p99_ms: 7000, run_p99_ms: 6000, wait_p99_ms: 100 }), ['p99LatencyMs=warning']],
    ['a backlog: wait p99 above 30 s', window({ processed: 10, latency_p99_ms: 40_000, run_p99_ms: 100, wait_p99_ms: 35_000 }), ['waitP99Ms=warning']],
    ['a long backlog: wait p99 above 5 min', window({ processed: 10, latency_p99_ms: 400_000, run_p99_ms: 100, wait_p99_ms: 310_000 }), ['waitP99Ms=critical']],
    ['no run histogram yet: enqueue → finish stands in', window({ processed: 10, latency_p99_ms: 6000 }), ['p99LatencyMs=warning']],
  ] as const)('%s', (_name, totals, want) => {
    expect(rules(observeTask(task({ totals }), none, policy))).toEqual(want);
  });

  it('the latency alert says what it measured', () => {
    const o = observeTask(task({ totals: window({ processed: 1, latency_p99_ms: 9000, run_p99_ms: 8000, wait_p99_ms: 900 }) }), none, policy)[0]!;
    expect(o.evidence).toMatchObject({ measured: 'run', waitP99Ms: 900, endToEndP99Ms: 9000, value: 8000 });
  });
});

describe('hot partitions and hot keys', () => {
  it('a hot partition past the floor and factor is observed with its routing', () => {
    const obs = observeTask(task({ depths: [900, 10, 10, 10], definition: { name: 'orders', routing: { strategy: 'hash', keyPath: 'k' } } }), none, policy);
    const hot = obs.find((o) => o.rule === 'hotPartition')!;
    expect(hot).toMatchObject({ key: 'orders|hotPartition|0', partition: 0, breaching: true, evidence: { routing: 'hash', partition: 0 } });
  });

  it('a dominant key of a group is observed, the others-summed stand-in never is', () => {
    const keyLoads = [
      { group_name: 'tenant', group_key: 'acme', in_flight: 5, queued: 195, group_total: 260, group_active: 3 },
      { group_name: 'tenant', group_key: 'beta', in_flight: 5, queued: 20, group_total: 260, group_active: 3 },
    ];
    const obs = observeTask(task({ keyLoads }), none, policy).filter((o) => o.rule === 'hotKey');
    expect(obs.map((o) => o.subject)).toEqual(['tenant=acme']);
    expect(obs[0]).toMatchObject({ groupName: 'tenant', groupKey: 'acme', breaching: true });
  });
});

describe('per-key rules under the key level (keyWait, hotKey)', () => {
  const def = (thresholds: Record<string, unknown>, keyPolicies: Record<string, unknown>) => ({
    name: 'orders',
    thresholds: { depth: { warning: 1000, critical: 5000 }, imbalance: { warning: 2, critical: 5 }, retryRate: { warning: 0.1, critical: 0.25 }, dlqRate: { warning: 0.01, critical: 0.05 }, p99LatencyMs: { warning: 5000, critical: 30_000 }, ...thresholds },
    groups: [{ name: 'tenant', limit: 5, overrides: {}, keyPolicies }],
  });
  const waits = (ws: Record<string, number | null>) => Object.entries(ws).map(([key, waitMs]) => ({ group: 'tenant', key, waitMs }));
  type KeyVerdict = { breaching: boolean; severity: string; timing: { forMs: number; clearForMs: number }; source: unknown; warning: unknown };
  const kw = (obs: ReturnType<typeof observeTask>): Record<string, KeyVerdict> =>
    Object.fromEntries(obs.filter((o) => o.rule === 'keyWait').map((o) => [o.groupKey, { breaching: o.breaching, severity: o.severity, timing: o.timing, source: o.evidence.source, warning: o.evidence.warning }]));

  it.each([
    // task thresholds, key policies, fleet key-wait lines, waits → keyWait verdicts
    ['own lines only: a key without them is not judged', {}, { acme: { waitMs: { warning: 100, critical: 200 } } }, null, { acme: 150, beta: 10_000 }, { acme: 'warning:key:100' }],
    ['task key-wait lines judge every key without its own', { keyWaitMs: { warning: 1000, critical: 5000 } }, { acme: { waitMs: { warning: 100, critical: 200 } } }, null, { acme: 150, beta: 6000, gamma: 10 }, { acme: 'warning:key:100', beta: 'critical:task:1000' }],
    ['fleet key-wait lines when the task sets none', {}, {}, { warning: 50, critical: 500 }, { beta: 60 }, { beta: 'warning:task:50' }],
    ['the task over the fleet', { keyWaitMs: { warning: 1000, critical: 5000 } }, {}, { warning: 50, critical: 500 }, { beta: 60 }, {}],
    ['no wait (null) is no breach', { keyWaitMs: { warning: 1, critical: 2 } }, {}, null, { beta: null }, {}],
  ] as const)('%s', (_n, thresholds, keyPolicies, fleetLines, ws, want) => {
    const obs = observeTask(task({ definition: def(thresholds, keyPolicies), keyWaits: waits(ws) }), none, { ...policy, keyWaitMs: fleetLines });
    const got = Object.fromEntries(Object.entries(kw(obs)).map(([k, v]) => [k, `${v.severity}:${String(v.source)}:${String(v.warning)}`]));
    expect(got).toEqual(want);
  });

  it("a key's own for-duration, clear-duration and hysteresis time its keyWait; others take the task's", () => {
    const d = def({ alertAfterMs: 60_000, clearAfterMs: 30_000, keyWaitMs: { warning: 100, critical: 1000 } }, { acme: { alertAfterMs: 0, hysteresis: 0.5 } });
    const obs = kw(observeTask(task({ definition: d, keyWaits: waits({ acme: 150, beta: 150 }) }), none, policy));
    expect(obs.acme!.timing).toEqual({ forMs: 0, clearForMs: 30_000 });
    expect(obs.beta!.timing).toEqual({ forMs: 60_000, clearForMs: 30_000 });
    // Open: acme's line is lowered by its own hysteresis (100 × 0.5 = 50), beta's by the task's (0.1 → 90).
    const open = new Map<string, EpisodeView>([['orders|keyWait|tenant=acme', { status: 'firing' }], ['orders|keyWait|tenant=beta', { status: 'firing' }]]);
    const eased = kw(observeTask(task({ definition: d, keyWaits: waits({ acme: 60, beta: 60 }) }), open, policy));
    expect([eased.acme!.breaching, eased.beta!.breaching]).toEqual([true, false]);
  });

  it("a hot key takes its key's own for-duration and hysteresis", () => {
    const keyLoads = [
      { group_name: 'tenant', group_key: 'acme', in_flight: 5, queued: 195, group_total: 260, group_active: 3 },
      { group_name: 'tenant', group_key: 'beta', in_flight: 5, queued: 55, group_total: 260, group_active: 3 },
    ];
    const d = def({ alertAfterMs: 120_000 }, { acme: { alertAfterMs: 15_000, clearAfterMs: 0 } });
    const [hot] = observeTask(task({ definition: d, keyLoads }), none, policy).filter((o) => o.rule === 'hotKey');
    expect(hot).toMatchObject({ groupKey: 'acme', breaching: true, timing: { forMs: 15_000, clearForMs: 0 } });
    // Once open, the key's hysteresis 0.6 keeps a 25% share hot (strict line 50%, relaxed 20%); the task's 0.1 would not (45%).
    const eased = [
      { group_name: 'tenant', group_key: 'acme', in_flight: 5, queued: 60, group_total: 260, group_active: 3 },
      { group_name: 'tenant', group_key: 'beta', in_flight: 5, queued: 190, group_total: 260, group_active: 3 },
    ];
    const open = new Map<string, EpisodeView>([['orders|hotKey|tenant=acme', { status: 'firing' }]]);
    const share = (kp: Record<string, unknown>) =>
      observeTask(task({ definition: def({}, { acme: kp }), keyLoads: eased }), open, policy).find((o) => o.rule === 'hotKey' && o.groupKey === 'acme')!.breaching;
    expect(share({ hysteresis: 0.6 })).toBe(true);
    expect(share({})).toBe(false);
  });
});

describe('spilled backlog', () => {
  it.each([
    ['nothing spilled', [0, 0, 0, 0], []],
    ['800 parked: under the line', [200, 200, 200, 200], []],
    ['1,200 parked over two partitions', [0, 600, 600, 0], ['spillBacklog=warning']],
    ['12,000 parked', [3000, 3000, 3000, 3000], ['spillBacklog=critical']],
  ] as const)('%s', (_n, spilled, want) => {
    const obs = observeTask(task({ spilled: [...spilled], definition: { name: 'orders', backpressure: { policy: 'spill', maxDepth: 500 } } }), none, policy);
    expect(rules(obs).filter((r) => r.startsWith('spillBacklog'))).toEqual(want);
  });

  it('carries each partition\'s parked count, the policy and maxDepth', () => {
    const o = observeTask(task({ spilled: [0, 1500, 0, 0], definition: { name: 'orders', backpressure: { policy: 'spill', maxDepth: 500 } } }), none, policy).find((x) => x.rule === 'spillBacklog')!;
    expect(o.evidence).toMatchObject({ value: 1500, spilled: [0, 1500, 0, 0], policy: 'spill', maxDepth: 500, warning: 1000 });
  });
});

describe('stream blocked', () => {
  const blocked = (blockedMs: number, headState: 'queued' | 'running' = 'queued') => ({ streamKey: 'order-7', headId: 41, headState, attempts: 3, lastError: 'boom', behind: 12, blockedMs });
  it.each([
    ['no blocked stream', null, []],
    ['blocked 4 min: under the 5-min line', blocked(240_000), []],
    ['blocked 6 min', blocked(360_000), ['streamBlocked=warning']],
    ['blocked 31 min', blocked(1_860_000), ['streamBlocked=critical']],
  ] as const)('%s', (_n, s, want) => {
    expect(rules(observeTask(task({ blockedStream: s }), none, policy)).filter((r) => r.startsWith('streamBlocked'))).toEqual(want);
  });

  it('names the stream and its head in the evidence and the remedy', () => {
    const o = observeTask(task({ blockedStream: blocked(400_000, 'running') }), none, policy).find((x) => x.rule === 'streamBlocked')!;
    expect(o.evidence).toMatchObject({ streamKey: 'order-7', headId: 41, headState: 'running', behind: 12, value: 400_000, warning: 300_000 });
    expect(o.remedy).toContain('execution 41, still running');
  });

  it('an open episode stays open within hysteresis, then clears', () => {
    const open = new Map<string, EpisodeView>([['orders|streamBlocked|', { status: 'firing' }]]);
    expect(rules(observeTask(task({ blockedStream: blocked(280_000) }), open, policy))).toContain('streamBlocked=warning');
    expect(rules(observeTask(task({ blockedStream: null }), open, policy))).toContain('streamBlocked=clear');
  });
});

describe('top keys in a hot partition\'s evidence', () => {
  const load = (group: string, key: string, queued: number, total: number) => ({ group_name: group, group_key: key, in_flight: 1, queued, group_total: total, group_active: 3 });

  it('a hot partition records the task\'s top keys of every group even when no key dominates', () => {
    const keyLoads = [load('tenant', 'acme', 300, 900), load('tenant', 'beta', 290, 900), load('tenant', 'gamma', 280, 900), load('region', 'eu', 40, 50)];
    const obs = observeTask(task({ depths: [900, 10, 10, 10], keyLoads }), none, policy);
    expect(obs.filter((o) => o.rule === 'hotKey')).toEqual([]);
    const hot = obs.find((o) => o.rule === 'hotPartition')!;
    expect(hot.evidence.topKeys).toEqual([
      { group: 'tenant', key: 'acme', inFlight: 1, queued: 300, groupLoad: 900 },
      { group: 'tenant', key: 'beta', inFlight: 1, queued: 290, groupLoad: 900 },
      { group: 'tenant', key: 'gamma', inFlight: 1, queued: 280, groupLoad: 900 },
      { group: 'region', key: 'eu', inFlight: 1, queued: 40, groupLoad: 50 },
    ]);
  });

  it('keeps at most EVIDENCE_KEYS_PER_GROUP keys of each group', () => {
    const keyLoads = Array.from({ length: 15 }, (_, i) => load('tenant', `k${i}`, 100 - i, 2000));
    expect(evidenceTopKeys(keyLoads).map((k) => k.key)).toEqual(keyLoads.slice(0, EVIDENCE_KEYS_PER_GROUP).map((k) => k.group_key));
  });

  it.each([
    ['a new snapshot replaces the old', { topKeys: [{ key: 'a' }] }, { topKeys: [{ key: 'b' }], depth: 2 }, { topKeys: [{ key: 'b' }], depth: 2 }],
    ['an empty snapshot keeps the keys it fired with', { topKeys: [{ key: 'a' }] }, { topKeys: [], depth: 2 }, { topKeys: [{ key: 'a' }], depth: 2 }],
    ['nothing to keep', { depth: 1 }, { topKeys: [], depth: 2 }, { topKeys: [], depth: 2 }],
    ['a new episode starts empty', null, { topKeys: [], depth: 2 }, { topKeys: [], depth: 2 }],
    ['evidence without keys stays without', { topKeys: [{ key: 'a' }] }, { value: 3 }, { value: 3 }],
  ])('carryTopKeys: %s', (_name, prev, next, want) => {
    expect(carryTopKeys(prev, next)).toEqual(want);
  });
});

describe('alertSummary: one line per alert, everywhere', () => {
  const a = { task: 'orders', subject: '', partition: null, groupName: null, groupKey: null };
  it.each([
    [{ ...a, rule: 'depth', partition: 3 }, 'Partition depth — orders (partition 3)'],
    [{ ...a, rule: 'hotPartition', subject: '2', partition: 2 }, 'Hot partition — orders partition 2'],
    [{ ...a, rule: 'hotKey', subject: 'tenant=acme', groupName: 'tenant', groupKey: 'acme' }, 'Hot key — orders tenant=acme'],
    [{ ...a, rule: 'shedPerSecond' }, 'Shed executions — orders'],
    [{ ...a, task: '', rule: 'coordinatorStale', subject: 'c1@host' }, 'Coordinator stale — fleet: c1@host'],
  ])('%j', (input, want) => expect(alertSummary(input)).toBe(want));
});

describe('circuit breaker alert (issue 23)', () => {
  const open = { state: 'open' as const, since: '2026-11-24T10:00:00.000Z', reason: '12 of 20 executions failed in 60000 ms (threshold 50%)', tripsTotal: 1 };
  it.each<[string, TaskInputs['breaker'], Map<string, EpisodeView>, string[]]>([
    ['closed, nothing open: no observation', null, none, []],
    ['open: critical, fires at once', open, none, ['circuitOpen=critical']],
    ['half-open is still not closed', { ...open, state: 'half-open' }, none, ['circuitOpen=critical']],
    ['closed with an episode open: clear, so it resolves', null, new Map([['orders|circuitOpen|', { status: 'firing' as const }]]), ['circuitOpen=clear']],
  ])('%s', (_n, breaker, latest, want) => {
    const obs = observeTask(task({ breaker }), latest, policy).filter((o) => o.rule === 'circuitOpen');
    expect(rules(obs)).toEqual(want);
    for (const o of obs) expect(o.timing).toEqual({ forMs: 0, clearForMs: 0 });
  });

  it('says when and why in the evidence', () => {
    const [o] = observeTask(task({ breaker: open }), none, policy).filter((x) => x.rule === 'circuitOpen');
    expect(o!.evidence).toEqual({ state: 'open', since: open.since, reason: open.reason, tripsTotal: 1 });
    expect(o!.remedy).toMatch(/reset it on the task page/);
  });
});
