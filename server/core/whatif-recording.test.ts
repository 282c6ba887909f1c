import { describe, expect, it } from 'vitest';
import { engineLatencies, handoffLatencyMs, pickupLatencyMs, recordingToArrivals, MIN_MEASURED, type RecordedExecution } from './whatif-recording';

const at = (ms: number) => new Date(Date.UTC(2026, 10, 24, 12) + ms);
const row = (over: Partial<RecordedExecution>): RecordedExecution => ({
  partition: 0,
  groups: {},
  streamKey: null,
  runAt: at(0),
  startedAt: null,
  finishedAt: null,
  state: 'queued',
  ...over,
});
const window = { start: at(0), end: at(3_600_000), truncated: false };

describe('recordingToArrivals', () => {
  it('orders by ready time, measures finished rows and draws the rest from them (seeded)', () => {
    const rows = [
      row({ runAt: at(2000), state: 'queued', groups: { tenant: 'b' } }),
      row({ runAt: at(1000), startedAt: at(1500), finishedAt: at(1800), state: 'succeeded', partition: 3, groups: { tenant: 'a' }, streamKey: 's' }),
    ];
    const { arrivals, coverage } = recordingToArrivals(rows, window, 1);
    expect(arrivals).toEqual([
      { at: 1000, runMs: 300, partition: 3, keys: { tenant: 'a' }, stream: 's' },
      { at: 2000, runMs: 300, partition: 0, keys: { tenant: 'b' } },
    ]);
    expect(coverage).toMatchObject({ executions: 2, measured: 1, estimated: 1, tooLittle: true, truncated: false });
    expect(coverage.note).toMatch(/2 executions in the last 1 h, 1 with a measured run time; 1 still queued or running.*too little data/);
  });

  it('takes rows ready at the same instant in id order, as the claim does (ids compared as numbers)', () => {
    // as the read returns them: newest first, ties by id descending (one enqueue call's rows share run_at)
    const rows = [
      row({ id: '10', runAt: at(5), groups: { tenant: 'c' } }),
      row({ id: '9', runAt: at(5), groups: { tenant: 'b' } }),
      row({ id: '8', runAt: at(5), groups: { tenant: 'a' } }),
      row({ id: '100', runAt: at(1), groups: { tenant: 'first' } }),
    ];
    expect(recordingToArrivals(rows, window, 1).arrivals.map((a) => a.keys?.tenant)).toEqual(['first', 'a', 'b', 'c']);
  });

  it('says enough when enough run times were measured, and names a cut window and a short retention', () => {
    const rows = Array.from({ length: MIN_MEASURED }, (_, i) => row({ runAt: at(i), startedAt: at(i), finishedAt: at(i + 5), state: 'succeeded' }));
    const ok = recordingToArrivals(rows, window, 1).coverage;
    expect(ok.tooLittle).toBe(false);
    expect(ok.note).not.toMatch(/too little/);
    const cut = recordingToArrivals(rows, { ...window, truncated: true, retentionNote: 'the task keeps succeeded executions 0.5 h' }, 1).coverage;
    expect(cut.note).toMatch(/row cap.*0\.5 h/);
  });

  it('keeps each row’s priority and gives its rate cost at a path (rateCost: else 1)', () => {
    const rows = [
      row({ runAt: at(2), priority: 3, costs: { n: 5, 'a.b': 'x' } }),
      row({ runAt: at(1), costs: { n: null, 'a.b': 2.5 } }),
      row({ runAt: at(3) }),
    ];
    const r = recordingToArrivals(rows, window, 1);
    expect(r.arrivals.map((a) => a.priority ?? 0)).toEqual([0, 3, 0]);
    expect(Array.from(r.costColumn('n'))).toEqual([1, 5, 1]);
    expect(Array.from(r.costColumn('a.b'))).toEqual([2.5, 1, 1]);
  });

  it('uses 0 ms for unmeasured rows when nothing was measured', () => {
    expect(recordingToArrivals([row({})], window, 1).arrivals[0]!.runMs).toBe(0);
  });
});

describe('handoffLatencyMs', () => {
  // Executions that waited (ready 0, started later) each start g ms after the last finish before them.
  const chain = (gaps: number[]) => {
    const rows: RecordedExecution[] = [];
    let t = 100;
    for (const g of gaps) {
      rows.push(row({ runAt: at(0), startedAt: at(t + g), finishedAt: at(t + g + 50), state: 'succeeded' }));
      t += g + 50;
    }
    return rows;
  };

  it('is the median gap between the last finish and the start of an execution that waited', () => {
    expect(handoffLatencyMs(chain([...Array<number>(15).fill(4), ...Array<number>(10).fill(30)]))).toBe(4);
    expect(handoffLatencyMs(chain([...Array<number>(10).fill(4), ...Array<number>(15).fill(30)]))).toBe(30);
  });

  it('is 0 when too few executions waited (nothing to fit)', () => {
    expect(handoffLatencyMs(chain(Array<number>(10).fill(8)))).toBe(0);
    // ready when started: they did not wait
    expect(handoffLatencyMs(Array.from({ length: 40 }, (_, i) => row({ runAt: at(i * 60), startedAt: at(i * 60 + 2), finishedAt: at(i * 60 + 50), state: 'succeeded' })))).toBe(0);
  });
});

describe('pickupLatencyMs and engineLatencies', () => {
  // Batches of 3 ready at b × 1000, started p ms later with nothing finishing meanwhile
  // (the previous batch finished long before): pick-up samples, not hand-offs.
  const batches = (ps: number[]) =>
    ps.flatMap((p, b) => [0, 1, 2].map(() => row({ runAt: at(b * 1000), startedAt: at(b * 1000 + p), finishedAt: at(b * 1000 + p + 50), state: 'succeeded' })));

  it('is the median start − ready of executions no finish came for while they were ready', () => {
    // 7 batches at 40 ms, 3 at 300 ms: 30 samples, median 40
    expect(pickupLatencyMs(batches([...Array<number>(7).fill(40), ...Array<number>(3).fill(300)]))).toBe(40);
    // a finish while it was ready makes it a hand-off sample instead (started 30 ms after
    // that finish); the finishers themselves waited 100 ms for nothing: pick-ups of 100
    const busy = batches(Array<number>(10).fill(40));
    const shift = (d: Date, ms: number) => new Date(d.getTime() + ms);
    const finishers = busy.map((r) => row({ runAt: shift(r.runAt, -500), startedAt: shift(r.runAt, -400), finishedAt: shift(r.runAt, 10), state: 'succeeded' }));
    expect(engineLatencies([...busy, ...finishers])).toMatchObject({ pickupMs: 100, handoffMs: 30 });
  });

  it('is 0 with fewer than 20 samples', () => {
    expect(pickupLatencyMs(batches(Array<number>(6).fill(40)))).toBe(0);
  });

  it('gives the medians, and the hand-offs to draw from', () => {
    const rows = batches(Array<number>(10).fill(25));
    // ...and 25 executions that waited behind a finish, started 4 or 30 ms after it
    let t = 20_000;
    for (const g of [...Array<number>(15).fill(4), ...Array<number>(10).fill(30)]) {
      rows.push(row({ runAt: at(19_000), startedAt: at(t + g), finishedAt: at(t + g + 50), state: 'succeeded' }));
      t += g + 50;
    }
    const l = engineLatencies(rows);
    expect(l).toMatchObject({ pickupMs: 25, handoffMs: 4 });
    // the chain's first had no finish while it was ready: a pick-up (1,004 ms), not a hand-off
    expect(Array.from(l.handoffSamplesMs!)).toEqual([...Array<number>(14).fill(4), ...Array<number>(10).fill(30)]);
    expect(engineLatencies(rows.slice(0, 10))).toEqual({ handoffMs: 0, pickupMs: 0 });
  });

  it('gives one pick-up per enqueue call to draw from: the first claim of the rows that became ready together', () => {
    // 8 enqueue calls of 3 rows each; in each, the rows start 10, 12 and 15 ms after ready
    // except the slow calls (every third), whose first row waited 60 ms
    const rows = Array.from({ length: 8 }, (_, b) => [10, 12, 15].map((d) => row({ runAt: at(b * 1000), startedAt: at(b * 1000 + d + (b % 3 === 0 ? 50 : 0)), finishedAt: at(b * 1000 + 500), state: 'succeeded' }))).flat();
    expect(Array.from(engineLatencies(rows).pickupSamplesMs!)).toEqual([60, 10, 10, 60, 10, 10, 60, 10]);
    // fewer than 8 calls: none to draw from
    expect(engineLatencies(rows.slice(0, 21)).pickupSamplesMs).toBeUndefined();
  });
});

