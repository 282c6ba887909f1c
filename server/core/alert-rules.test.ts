import { describe, expect, it } from 'vitest';
import {
  acknowledgeAlert,
  detectHotKeys,
  detectHotPartitions,
  hotPartitionRemedy,
  resolveAlert,
  silenceAlert,
  stepAlert,
  type AlertEvent,
  type AlertRuleTiming,
  type AlertState,
  type HotPartitionInput,
} from './alert-rules';

describe('detectHotPartitions', () => {
  const base = { floorDepth: 100, factor: 3 };
  it.each<{ name: string; input: Partial<HotPartitionInput>; expected: { partition: number; reasons: string[] }[] }>([
    { name: 'no partitions', input: { depths: [] }, expected: [] },
    { name: 'one partition has no siblings', input: { depths: [10_000] }, expected: [] },
    { name: 'even load', input: { depths: [500, 520, 480, 510] }, expected: [] },
    { name: 'one far above', input: { depths: [5000, 500, 480, 510] }, expected: [{ partition: 0, reasons: ['depth'] }] },
    { name: 'exactly factor × median is hot', input: { depths: [1500, 500, 500, 500] }, expected: [{ partition: 0, reasons: ['depth'] }] },
    { name: 'just under factor × median', input: { depths: [1499, 500, 500, 500] }, expected: [] },
    { name: 'far above but under the floor', input: { depths: [90, 1, 0, 2] }, expected: [] },
    { name: 'exactly at the floor is not hot', input: { depths: [100, 0, 0, 0] }, expected: [] },
    { name: 'one above the floor, siblings empty', input: { depths: [101, 0, 0, 0] }, expected: [{ partition: 0, reasons: ['depth'] }] },
    { name: 'two hot among eight', input: { depths: [10, 900, 10, 12, 800, 9, 11, 10] }, expected: [{ partition: 1, reasons: ['depth'] }, { partition: 4, reasons: ['depth'] }] },
    { name: 'two partitions, one hot', input: { depths: [1000, 100] }, expected: [{ partition: 0, reasons: ['depth'] }] },
    {
      name: 'arrival rate hot while depth is not yet',
      input: { depths: [300, 200, 250, 220], arrivals: [900, 100, 110, 95] },
      expected: [{ partition: 0, reasons: ['arrivals'] }],
    },
    {
      name: 'both depth and arrivals',
      input: { depths: [3000, 200, 250, 220], arrivals: [900, 100, 110, 95] },
      expected: [{ partition: 0, reasons: ['depth', 'arrivals'] }],
    },
    {
      name: 'arrival spike on a shallow partition is below the floor',
      input: { depths: [50, 20, 25, 22], arrivals: [900, 100, 110, 95] },
      expected: [],
    },
    { name: 'empty arrivals skip that test', input: { depths: [300, 200, 250, 220], arrivals: [] }, expected: [] },
    { name: 'zero arrivals everywhere', input: { depths: [300, 200, 250, 220], arrivals: [0, 0, 0, 0] }, expected: [] },
  ])('$name', ({ input, expected }) => {
    const hot = detectHotPartitions({ ...base, depths: [], ...input });
    expect(hot.map(({ partition, reasons }) => ({ partition, reasons }))).toEqual(expected);
  });

  it('returns the evidence numbers', () => {
    const [hot] = detectHotPartitions({ ...base, depths: [6000, 500, 400, 600], arrivals: [50, 10, 20, 30] });
    expect(hot).toEqual({
      partition: 0,
      depth: 6000,
      siblingMedianDepth: 500,
      depthRatio: 12,
      arrivals: 50,
      siblingMedianArrivals: 20,
      arrivalRatio: 2.5,
      reasons: ['depth'],
    });
  });

  it('reports a null ratio when the siblings are empty', () => {
    expect(detectHotPartitions({ ...base, depths: [500, 0, 0] })[0]?.depthRatio).toBeNull();
  });

  it.each<{ input: Partial<HotPartitionInput>; error: string }>([
    { input: { factor: 0.5 }, error: 'factor must be a finite number ≥ 1' },
    { input: { floorDepth: -1 }, error: 'floorDepth must be a finite number ≥ 0' },
    { input: { depths: [1, -1] }, error: 'depths[1] must be a finite number ≥ 0' },
    { input: { depths: [1, 2], arrivals: [1] }, error: 'arrivals has 1 entries for 2 partitions' },
  ])('refuses $input', ({ input, error }) => {
    expect(() => detectHotPartitions({ ...base, depths: [1, 2], ...input })).toThrow(error);
  });

  it.each([
    { strategy: 'hash' as const, reasons: ['arrivals' as const], contains: 'finer-grained key path' },
    { strategy: 'hash' as const, reasons: ['depth' as const], contains: 'drains slowly' },
    { strategy: 'round-robin' as const, reasons: ['arrivals' as const], contains: 'round-robin routing' },
    { strategy: 'least-loaded' as const, reasons: ['depth' as const], contains: 'check the coordinator' },
  ])('remedy for $strategy / $reasons mentions "$contains"', ({ strategy, reasons, contains }) => {
    expect(hotPartitionRemedy(strategy, reasons)).toContain(contains);
  });
});

describe('detectHotKeys', () => {
  const opts = { dominantShare: 0.5, floor: 10 };
  it.each([
    { name: 'no keys', keys: [], expected: [] },
    { name: 'a single active key has nothing to dominate', keys: [{ key: 'acme', inFlight: 20, queued: 5000 }, { key: 'idle', inFlight: 0, queued: 0 }], expected: [] },
    { name: 'even keys', keys: [{ key: 'a', inFlight: 5, queued: 20 }, { key: 'b', inFlight: 5, queued: 20 }, { key: 'c', inFlight: 5, queued: 20 }], expected: [] },
    {
      name: 'one dominant key',
      keys: [{ key: 'acme', inFlight: 20, queued: 780 }, { key: 'b', inFlight: 5, queued: 95 }, { key: 'c', inFlight: 5, queued: 95 }],
      expected: [{ key: 'acme', inFlight: 20, queued: 780, load: 800, share: 0.8 }],
    },
    {
      name: 'exactly the dominant share',
      keys: [{ key: 'acme', inFlight: 0, queued: 50 }, { key: 'b', inFlight: 0, queued: 50 }],
      expected: [
        { key: 'acme', inFlight: 0, queued: 50, load: 50, share: 0.5 },
        { key: 'b', inFlight: 0, queued: 50, load: 50, share: 0.5 },
      ],
    },
    { name: 'dominant but at the floor', keys: [{ key: 'acme', inFlight: 2, queued: 8 }, { key: 'b', inFlight: 1, queued: 0 }], expected: [] },
    {
      name: 'unicode and numeric keys',
      keys: [{ key: '東京', inFlight: 1, queued: 90 }, { key: '42', inFlight: 1, queued: 8 }],
      expected: [{ key: '東京', inFlight: 1, queued: 90, load: 91, share: 0.91 }],
    },
  ])('$name', ({ keys, expected }) => {
    expect(detectHotKeys(keys, opts)).toEqual(expected);
  });

  it.each([
    { o: { dominantShare: 0, floor: 0 }, error: 'dominantShare must be within (0, 1]' },
    { o: { dominantShare: 1.5, floor: 0 }, error: 'dominantShare must be within (0, 1]' },
    { o: { dominantShare: 0.5, floor: -1 }, error: 'floor must be a finite number ≥ 0' },
  ])('refuses $o', ({ o, error }) => {
    expect(() => detectHotKeys([], o)).toThrow(error);
  });
  it('refuses negative counts', () => {
    expect(() => detectHotKeys([{ key: 'x', inFlight: -1, queued: 0 }], opts)).toThrow('key "x" has invalid counts');
  });
});

describe('stepAlert', () => {
  const rule: AlertRuleTiming = { forMs: 60_000, clearForMs: 120_000 };
  type Obs = [at: number, breaching: boolean, value?: number];

  /** Runs observations through the machine; returns the status after each and all events. */
  function run(observations: Obs[], r: AlertRuleTiming = rule, start?: AlertState) {
    let state: AlertState | undefined = start;
    const statuses: (string | undefined)[] = [];
    const events: (AlertEvent & { step: number })[] = [];
    observations.forEach(([at, breaching, value], step) => {
      const next = stepAlert(state, { at, breaching, value: value ?? (breaching ? 2000 : 10) }, r);
      state = next.state;
      statuses.push(state?.status);
      events.push(...next.events.map((e) => ({ ...e, step })));
    });
    return { state, statuses, events: events.map((e) => `${e.type}@${e.at}${e.silenced ? ' (silenced)' : ''}`) };
  }

  it.each<{ name: string; obs: Obs[]; rule?: AlertRuleTiming; statuses: (string | undefined)[]; events: string[] }>([
    { name: 'never breaching', obs: [[0, false], [30_000, false]], statuses: [undefined, undefined], events: [] },
    { name: 'breach shorter than forMs never fires', obs: [[0, true], [30_000, true], [59_999, true], [60_500, false]], statuses: ['pending', 'pending', 'pending', undefined], events: [] },
    { name: 'breach exactly forMs fires', obs: [[0, true], [30_000, true], [60_000, true]], statuses: ['pending', 'pending', 'firing'], events: ['fired@60000'] },
    { name: 'forMs 0 fires on the first breach', obs: [[5, true]], rule: { forMs: 0, clearForMs: 0 }, statuses: ['firing'], events: ['fired@5'] },
    { name: 'clearForMs 0 resolves on the first clear', obs: [[0, true], [1, false]], rule: { forMs: 0, clearForMs: 0 }, statuses: ['firing', 'resolved'], events: ['fired@0', 'resolved@1'] },
    {
      name: 'fires, then resolves after clearForMs of clear',
      obs: [[0, true], [60_000, true], [90_000, false], [150_000, false], [210_000, false]],
      statuses: ['pending', 'firing', 'firing', 'firing', 'resolved'],
      events: ['fired@60000', 'resolved@210000'],
    },
    {
      name: 'oscillating around the threshold within clearForMs: no flapping',
      obs: [[0, true], [60_000, true], [70_000, false], [100_000, true], [110_000, false], [150_000, true], [160_000, false], [200_000, true]],
      statuses: ['pending', 'firing', 'firing', 'firing', 'firing', 'firing', 'firing', 'firing'],
      events: ['fired@60000'],
    },
    {
      name: 'a breach during clearing restarts the clear clock',
      obs: [[0, true], [60_000, true], [100_000, false], [200_000, true], [210_000, false], [320_000, false], [330_000, false]],
      statuses: ['pending', 'firing', 'firing', 'firing', 'firing', 'firing', 'resolved'],
      events: ['fired@60000', 'resolved@330000'],
    },
    {
      name: 'a pending episode broken by a clear starts over',
      obs: [[0, true], [50_000, false], [55_000, true], [100_000, true], [115_000, true]],
      statuses: ['pending', undefined, 'pending', 'pending', 'firing'],
      events: ['fired@115000'],
    },
    {
      name: 'a resolved alert that breaches again goes through pending again',
      obs: [[0, true], [60_000, true], [61_000, false], [181_000, false], [200_000, true], [259_999, true], [260_000, true]],
      statuses: ['pending', 'firing', 'firing', 'resolved', 'pending', 'pending', 'firing'],
      events: ['fired@60000', 'resolved@181000', 'fired@260000'],
    },
    {
      name: 'out-of-order observations are ignored',
      obs: [[0, true], [60_000, true], [30_000, false], [61_000, true]],
      statuses: ['pending', 'firing', 'firing', 'firing'],
      events: ['fired@60000'],
    },
  ])('$name', ({ obs, rule: r, statuses, events }) => {
    const out = run(obs, r);
    expect(out.statuses).toEqual(statuses);
    expect(out.events).toEqual(events);
  });

  it('tracks the peak value and reports it on the events', () => {
    let s = stepAlert(undefined, { at: 0, breaching: true, value: 1200 }, rule).state;
    s = stepAlert(s, { at: 30_000, breaching: true, value: 4000 }, rule).state;
    const fired = stepAlert(s, { at: 60_000, breaching: true, value: 1500 }, rule);
    expect(fired.events).toEqual([{ type: 'fired', at: 60_000, value: 1500, peakValue: 4000, silenced: false }]);
    const higher = stepAlert(fired.state, { at: 70_000, breaching: true, value: 9000 }, rule);
    expect(higher.state?.peakValue).toBe(9000);
    expect(higher.state?.lastValue).toBe(9000);
  });

  it('acknowledged alerts stay acknowledged while breaching and resolve normally', () => {
    const fired = run([[0, true], [60_000, true]]).state!;
    const ack = acknowledgeAlert(fired, 65_000, 'ops@example.com');
    expect(ack).toMatchObject({ status: 'acknowledged', acknowledgedAt: 65_000, acknowledgedBy: 'ops@example.com', firedAt: 60_000 });
    const out = run([[70_000, true], [80_000, false], [200_000, false]], rule, ack);
    expect(out.statuses).toEqual(['acknowledged', 'acknowledged', 'resolved']);
    expect(out.events).toEqual(['resolved@200000']);
  });

  it.each(['pending', 'acknowledged', 'resolved'] as const)('only a firing alert can be acknowledged, not %s', (status) => {
    const s: AlertState = { status, since: 0, lastValue: 1, peakValue: 1, lastObservedAt: 0 };
    expect(() => acknowledgeAlert(s, 1, 'x')).toThrow(`only a firing alert can be acknowledged (this one is ${status})`);
  });

  it('silenced alerts still change state and emit events, marked silenced, until the silence ends', () => {
    const fired = run([[0, true], [60_000, true]]).state!;
    const silent = silenceAlert(fired, 300_000);
    // resolves while silenced, re-fires while silenced (silence carried over), fires again after it ends
    const out = run(
      [[61_000, false], [181_000, false], [190_000, true], [250_000, true], [260_000, false], [380_000, false], [400_000, true], [460_000, true]],
      rule,
      silent,
    );
    expect(out.events).toEqual(['resolved@181000 (silenced)', 'fired@250000 (silenced)', 'resolved@380000', 'fired@460000']);
  });

  it('a silence survives a pending episode that never fired', () => {
    const resolved = run([[0, true], [60_000, true], [61_000, false], [181_000, false]]).state!;
    const silent = silenceAlert(resolved, 1_000_000);
    const out = run([[200_000, true], [210_000, false], [220_000, true], [280_000, true]], rule, silent);
    expect(out.statuses).toEqual(['pending', 'resolved', 'pending', 'firing']);
    expect(out.events).toEqual(['fired@280000 (silenced)']);
  });

  it('manual resolve of a firing alert emits resolved; a still-breaching condition fires again after forMs', () => {
    const fired = run([[0, true], [60_000, true]]).state!;
    const r = resolveAlert(fired, 70_000);
    expect(r.state?.status).toBe('resolved');
    expect(r.events.map((e) => `${e.type}@${e.at}`)).toEqual(['resolved@70000']);
    const out = run([[80_000, true], [140_000, true]], rule, r.state);
    expect(out.events).toEqual(['fired@140000']);
  });

  it.each([
    { status: 'pending' as const, events: 0 },
    { status: 'resolved' as const, events: 0 },
  ])('manual resolve of a $status alert emits $events events', ({ status, events }) => {
    const s: AlertState = { status, since: 0, lastValue: 1, peakValue: 1, lastObservedAt: 0 };
    expect(resolveAlert(s, 5).events).toHaveLength(events);
  });

  it.each([
    { r: { forMs: -1, clearForMs: 0 }, error: 'forMs must be a finite number ≥ 0' },
    { r: { forMs: 0, clearForMs: Number.NaN }, error: 'clearForMs must be a finite number ≥ 0' },
  ])('refuses timing $r', ({ r, error }) => {
    expect(() => stepAlert(undefined, { at: 0, breaching: true, value: 1 }, r)).toThrow(error);
  });
});
