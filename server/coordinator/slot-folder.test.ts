import { afterEach, describe, expect, it, vi } from 'vitest';
import { SlotFolder } from './slot-folder';

afterEach(() => vi.useRealTimers());

function folder(fold: (task: string) => Promise<number>, everyMs = 100) {
  const logs: string[] = [];
  return { f: new SlotFolder({ everyMs, fold, log: (m) => void logs.push(m) }), logs };
}

describe('SlotFolder', () => {
  it('folds a touched task once after everyMs, however often it was touched meanwhile', async () => {
    vi.useFakeTimers();
    const calls: string[] = [];
    const { f } = folder(async (t) => (calls.push(t), 1));
    f.touched('a');
    f.touched('a');
    f.touched('b');
    await vi.advanceTimersByTimeAsync(99);
    expect(calls).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(calls.sort()).toEqual(['a', 'b']);
    await vi.advanceTimersByTimeAsync(1000);
    expect(calls).toHaveLength(2); // nothing touched since
  });

  it('a touch during a fold is folded by the next one, everyMs later (one fold in flight)', async () => {
    vi.useFakeTimers();
    let release!: () => void;
    let inFlight = 0;
    let most = 0;
    const calls: number[] = [];
    const { f } = folder(async () => {
      inFlight++;
      most = Math.max(most, inFlight);
      calls.push(Date.now());
      await new Promise<void>((r) => (release = r));
      inFlight--;
      return 1;
    });
    f.touched('a');
    await vi.advanceTimersByTimeAsync(100);
    expect(calls).toHaveLength(1);
    f.touched('a');
    await vi.advanceTimersByTimeAsync(500);
    expect(calls).toHaveLength(1); // the first fold has not returned
    release();
    await vi.advanceTimersByTimeAsync(0);
    // that fold took 500 ms: the next waits 40 × as long, at most 2 s
    await vi.advanceTimersByTimeAsync(1999);
    expect(calls).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(calls).toHaveLength(2);
    release();
    await vi.advanceTimersByTimeAsync(0);
    expect(most).toBe(1);
  });

  it('paces itself by its own cost: after a fold of d ms the next waits max(everyMs, 40 × d), at most 2 s', async () => {
    vi.useFakeTimers();
    const durations = [10, 1, 200, 1];
    const calls: number[] = [];
    const { f } = folder(async () => {
      calls.push(Date.now());
      const d = durations.shift() ?? 0;
      await new Promise((r) => setTimeout(r, d)); // a query: never synchronous
      f.touched('a'); // the member claimed meanwhile
      return 1;
    });
    const t0 = Date.now();
    f.touched('a');
    await vi.advanceTimersByTimeAsync(3000);
    // at 100 a 10 ms fold, then 400 ms; at 510 a 1 ms fold, then everyMs (not 40 ms); at 611
    // a 200 ms fold, then 2 s (not 8); at 2,811 a 1 ms fold, then everyMs
    expect(calls.slice(0, 5).map((c) => c - t0)).toEqual([100, 510, 611, 2811, 2912]);
  });

  it('a task that filled a whole fold batch is folded again; a failed fold is kept, retried with backoff and logged once', async () => {
    vi.useFakeTimers();
    const results: (number | Error)[] = [1000, new Error('db down'), new Error('db down'), 3];
    const calls: number[] = [];
    const { f, logs } = folder(async () => {
      calls.push(Date.now());
      const r = results.shift()!;
      if (r instanceof Error) throw r;
      return r;
    });
    const t0 = Date.now();
    f.touched('a');
    await vi.advanceTimersByTimeAsync(100); // 1000 rows: more may be there
    await vi.advanceTimersByTimeAsync(100); // fails
    await vi.advanceTimersByTimeAsync(200); // fails again after 2 × everyMs
    await vi.advanceTimersByTimeAsync(400); // succeeds after 4 × everyMs
    expect(calls.map((c) => c - t0)).toEqual([100, 200, 400, 800]);
    expect(logs).toEqual(['slot counter fold for a failed (kept for later): db down']);
    await vi.advanceTimersByTimeAsync(5000);
    expect(calls).toHaveLength(4);
  });

  it('stop() folds what is still touched at once and schedules nothing after', async () => {
    vi.useFakeTimers();
    const calls: string[] = [];
    const { f } = folder(async (t) => (calls.push(t), 1));
    f.touched('a');
    await f.stop();
    expect(calls).toEqual(['a']);
    f.touched('b');
    await vi.advanceTimersByTimeAsync(1000);
    expect(calls).toEqual(['a']);
  });
});
