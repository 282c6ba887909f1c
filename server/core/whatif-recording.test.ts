import { describe, expect, it } from 'vitest';
import { handoffLatencyMs, recordingToArrivals, MIN_MEASURED, type RecordedExecution } from './whatif-recording';

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
