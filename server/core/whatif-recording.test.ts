import { describe, expect, it } from 'vitest';
import { recordingToArrivals, MIN_MEASURED, type RecordedExecution } from './whatif-recording';

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

  it('uses 0 ms for unmeasured rows when nothing was measured', () => {
    expect(recordingToArrivals([row({})], window, 1).arrivals[0]!.runMs).toBe(0);
  });
});
