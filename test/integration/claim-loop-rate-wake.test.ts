// The claim loop's sleep after a claim a rate limit cut short (issue #19): it looks again
// when the key's next token can be due — rateWakeMs, max(T/4, 5 ms) — not after its poll
// interval. Checked on what the loop asks its signal to wait for, against the real claim, so
// it does not depend on how fast a loaded machine runs. A throughput bound did: 40/s, 50 ms
// poll, bound 24/s — CI at load 7–11 measured 18.6/s with the wake; without it, a 500 ms
// poll still gave 7.9/s at load 10 (a slow finish's round trip wakes the loop instead).
import { describe, it, expect, beforeAll } from 'vitest';
import { testDatabase, type TestDatabase } from './db';
import { applyTasks, fakeCoordinator } from '../support/engine-fixtures';
import { enqueue } from '../../server/services/enqueue';
import { ClaimLoop } from '../../server/coordinator/claim-loop';
import { LocalSignal } from '../../server/coordinator/local-signal';
import { CoordinatorMetrics } from '../../server/coordinator/coordinator-metrics';
import { parseTaskDefinition, type TaskDefinition, type TaskDefinitionInput } from '../../server/core/task-definition';
import { rateWakeMs } from '../../server/core/rate-limit';

let db: TestDatabase;
beforeAll(async () => {
  db = await testDatabase();
});

/** A signal that records every wait the loop asks for (and waits 1 ms instead). */
class RecordingSignal extends LocalSignal {
  readonly waits: number[] = [];
  override wait(timeoutMs: number): Promise<void> {
    this.waits.push(timeoutMs);
    return super.wait(1);
  }
}

async function runLoop(input: TaskDefinitionInput, rounds: number): Promise<{ waits: number[]; claimed: number; def: TaskDefinition }> {
  const parsed = parseTaskDefinition(input);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed));
  const def = parsed.value;
  const me = await fakeCoordinator(db.pool, [def.name]);
  const signal = new RecordingSignal();
  let claimed = 0;
  const loop = new ClaimLoop({
    pool: db.pool, me, slots: 10, signal, tasks: () => [def], inFlight: () => 0, leaseGraceMs: 5000, pollMs: 500,
    onClaimed: (rows) => (claimed += rows.length), metrics: new CoordinatorMetrics(), log: () => {},
  });
  loop.start();
  while (signal.waits.length < rounds) await new Promise((r) => setTimeout(r, 5));
  await loop.stop();
  return { waits: signal.waits.slice(0, rounds), claimed, def };
}

describe('claim loop: the wait after a claim cut short', () => {
  it('by a key rate with no burst: rateWakeMs (max(T/4, 5 ms)), not the 500 ms poll', async () => {
    const input: TaskDefinitionInput = {
      name: 'wake-rate', partitions: 1, concurrency: 10,
      groups: [{ name: 'tenant', limit: 10, keyPath: 'tenant', rate: { limit: 40, per: 1000, burst: 0 } }],
    };
    await applyTasks(db.pool, [input]);
    await enqueue(db.pool, 'wake-rate', Array.from({ length: 50 }, () => ({ payload: { tenant: 'solo' } })));
    const { waits, claimed, def } = await runLoop(input, 5);
    expect(rateWakeMs(def)).toBe(6.25);
    // every round claimed less than its 10 free slots (the rate allows one per 25 ms)
    expect(claimed).toBeGreaterThanOrEqual(1);
    expect(claimed).toBeLessThan(50);
    expect(waits).toEqual([6.25, 6.25, 6.25, 6.25, 6.25]);
  });

  it('by an empty queue on a task without rates: the poll interval', async () => {
    const input: TaskDefinitionInput = { name: 'wake-plain', partitions: 1, concurrency: 10 };
    await applyTasks(db.pool, [input]);
    const { waits, claimed } = await runLoop(input, 3);
    expect(claimed).toBe(0);
    expect(waits).toEqual([500, 500, 500]);
  });
});
