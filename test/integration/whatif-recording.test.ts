// The what-if recording read (server/db/whatif-recording.ts): each execution's stored
// priority, and the payload's value at each rate-cost path asked for (the preview replays
// rate limits with the costs the claim would have charged). No payload is read otherwise.
import { describe, it, expect, beforeAll } from 'vitest';
import { testDatabase, type TestDatabase } from './db';
import { applyTasks } from '../support/engine-fixtures';
import { enqueue } from '../../server/services/enqueue';
import { readWhatIfRecording } from '../../server/db/whatif-recording';
import { recordingToArrivals } from '../../server/core/whatif-recording';

describe('readWhatIfRecording', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await testDatabase();
    await applyTasks(db.pool, [{ name: 'wr', partitions: 2, concurrency: 4, rate: { limit: 10, per: 1000 }, rateCostPath: 'job.cost', priority: { default: 2, agingMs: 1000 } }]);
    await enqueue(db.pool, 'wr', [
      { payload: { job: { cost: 5 } }, priority: 7 },
      { payload: { job: { cost: 'x' } } },
      { payload: {} },
    ]);
  });

  it('reads priorities, and costs only at the paths asked for', async () => {
    const plain = await readWhatIfRecording(db.pool, 'wr', 60_000, 100);
    expect(plain.rows).toHaveLength(3);
    expect(plain.rows.map((r) => r.priority).sort()).toEqual([2, 2, 7]);
    expect(plain.rows.every((r) => r.costs === undefined)).toBe(true);

    const rec = await readWhatIfRecording(db.pool, 'wr', 60_000, 100, ['job.cost', 'other']);
    const byPriority = [...rec.rows].sort((a, b) => (b.priority ?? 0) - (a.priority ?? 0));
    expect(byPriority[0]!.costs).toEqual({ 'job.cost': 5, other: null });
    const { arrivals, costColumn } = recordingToArrivals(rec.rows, { start: rec.start, end: rec.end, truncated: rec.truncated }, 1);
    // rateCost: 5 where the payload has a number, 1 for a string or nothing
    expect(Array.from(costColumn('job.cost')).sort()).toEqual([1, 1, 5]);
    expect(arrivals.map((a) => a.priority).sort()).toEqual([2, 2, 7]);
  });
});
