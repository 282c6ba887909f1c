import type pg from 'pg';
import { describe, expect, it } from 'vitest';
import { Heartbeat, type HeartbeatOptions } from './heartbeat';

function setup(over: Partial<HeartbeatOptions> = {}) {
  const calls: string[] = [];
  let draining = false;
  let taken = 0;
  let wakes = 0;
  const logs: string[] = [];
  const hb = new Heartbeat({
    pool: {} as pg.Pool,
    id: 'me',
    everyMs: 10_000,
    inFlight: () => 7,
    draining: () => draining,
    syncOwnership: async () => {
      calls.push('ownership');
      return { taken };
    },
    onTaken: () => wakes++,
    log: (m) => logs.push(m),
    membership: {
      heartbeat: async (_db, id, inFlight) => {
        calls.push(`beat ${id} ${inFlight}`);
        return { rejoined: false };
      },
      drainingHeartbeat: async (_db, id, inFlight) => void calls.push(`draining beat ${id} ${inFlight}`),
    },
    ...over,
  });
  return {
    hb,
    calls,
    logs,
    wakes: () => wakes,
    setDraining: (d: boolean) => (draining = d),
    setTaken: (n: number) => (taken = n),
  };
}

describe('Heartbeat', () => {
  it('refreshes the membership row, then re-syncs ownership; taken partitions wake the claim loop', async () => {
    const s = setup();
    await s.hb.beat();
    expect(s.calls).toEqual(['beat me 7', 'ownership']);
    expect(s.wakes()).toBe(0);
    s.setTaken(2);
    await s.hb.beat();
    expect(s.wakes()).toBe(1);
  });

  it('a draining member beats without taking partitions', async () => {
    const s = setup();
    s.setDraining(true);
    await s.hb.beat();
    expect(s.calls).toEqual(['draining beat me 7']);
  });

  it('a failed beat is logged, and the next one runs', async () => {
    let fail = true;
    const s = setup({
      syncOwnership: async () => {
        if (fail) throw new Error('connection lost');
        return { taken: 0 };
      },
    });
    await s.hb.beat();
    expect(s.logs).toEqual(['heartbeat failed: connection lost']);
    fail = false;
    await s.hb.beat();
    expect(s.logs).toHaveLength(1);
  });

  it('beats never overlap, and stop waits for the one in progress', async () => {
    let release!: () => void;
    let started = 0;
    let ended = 0;
    const s = setup({
      syncOwnership: async () => {
        started++;
        await new Promise<void>((r) => (release = r));
        ended++;
        return { taken: 0 };
      },
    });
    void s.hb.beat();
    await new Promise((r) => setTimeout(r, 0));
    await s.hb.beat(); // resolves at once: one is running
    expect(started).toBe(1);
    const stopped = s.hb.stop();
    let done = false;
    void stopped.then(() => (done = true));
    await new Promise((r) => setTimeout(r, 10));
    expect(done).toBe(false);
    release();
    await stopped;
    expect(ended).toBe(1);
  });

  it('beats on its interval until stopped', async () => {
    const s = setup({ everyMs: 10 });
    s.hb.start();
    await new Promise((r) => setTimeout(r, 60));
    await s.hb.stop();
    const n = s.calls.filter((c) => c.startsWith('beat')).length;
    expect(n).toBeGreaterThanOrEqual(2);
    await new Promise((r) => setTimeout(r, 40));
    expect(s.calls.filter((c) => c.startsWith('beat')).length).toBe(n);
  });
});
