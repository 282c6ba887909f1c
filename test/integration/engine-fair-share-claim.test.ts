// Weighted fair share (issue #19) through the real claim (sluice_claim_rows), one
// coordinator row, no processes: which rows a claim hands out, in which order, and that
// every limit holds. The rule: server/core/fair-share.ts.
import { describe, it, expect, beforeAll } from 'vitest';
import { testDatabase, type TestDatabase } from './db';
import { applyTasks, fakeCoordinator, statsDelta } from '../support/engine-fixtures';
import { enqueue } from '../../server/services/enqueue';
import { claimExecutions, type ClaimedExecution } from '../../server/db/claim-executions';
import { finishExecutions } from '../../server/db/finish-executions';
import { readWhyWaiting } from '../../server/db/why-waiting';
import { whyWaitingFromRow } from '../../server/core/why-waiting';
import { finishAndClaimExecutions } from '../../server/db/finish-and-claim-executions';
import { stableHash32 } from '../../server/core/stable-hash';

let db: TestDatabase;
beforeAll(async () => {
  db = await testDatabase();
});

const tenantsOf = (got: ClaimedExecution[]) => got.map((e) => (e.payload as { t: string }).t);
const countBy = (xs: string[]) => Object.fromEntries([...new Set(xs)].sort().map((x) => [x, xs.filter((y) => y === x).length]));
const finish = (task: string, got: ClaimedExecution[]) =>
  finishExecutions(db.pool, task, got.map((e) => ({ id: e.id, leaseToken: e.leaseToken, outcome: 'succeeded' as const })));

describe('fair share in the claim', () => {
  it('stores the fair group and its weights for the claim; a fifo task is stored as before', async () => {
    await applyTasks(db.pool, [
      { name: 'fs-store', order: 'fair', groups: [{ name: 'tenant', limit: 5, keyPath: 't', weights: { acme: 3 } }, { name: 'key', limit: 1, keyPath: 'k' }] },
      { name: 'fs-fifo', groups: [{ name: 'tenant', limit: 5, keyPath: 't' }] },
    ]);
    const r = await db.pool.query<{ task: string; groups: unknown }>(`SELECT task, groups FROM task_runtime WHERE task LIKE 'fs-%' ORDER BY task`);
    expect(r.rows).toEqual([
      { task: 'fs-fifo', groups: { tenant: { limit: 5, overrides: {} } } },
      { task: 'fs-store', groups: { tenant: { limit: 5, overrides: {}, weights: { acme: 3 }, fair: true }, key: { limit: 1, overrides: {} } } },
    ]);
  });
});

// Two members owning two partitions each take turns: each finishes a few of its running
// executions (random ones) and refills in the same call (sluice_cycle), as the completer does.
async function cycleRounds(task: string, rounds: number, perMember: number, onRound: (running: Record<string, number>) => void) {
  const a = await fakeCoordinator(db.pool, [task], { [task]: [0, 1] });
  const b = await fakeCoordinator(db.pool, [task], { [task]: [2, 3] });
  const live: Record<string, { id: number; leaseToken: string }[]> = { [a]: [], [b]: [] };
  let x = 3;
  const rnd = () => (x = (x * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  for (let round = 0; round < rounds; round++) {
    const me = round % 2 ? b : a;
    const mine = live[me]!;
    for (let i = mine.length - 1; i > 0; i--) {
      const j = Math.floor(rnd() * (i + 1));
      [mine[i], mine[j]] = [mine[j]!, mine[i]!];
    }
    const done = mine.splice(0, Math.min(mine.length, 1 + (round % 4)));
    const got = await finishAndClaimExecutions(db.pool, me, task, done.map((e) => ({ id: e.id, leaseToken: e.leaseToken, outcome: 'succeeded' as const })), perMember - mine.length, 60_000);
    mine.push(...got.claimed.map((e) => ({ id: e.id, leaseToken: e.leaseToken })));
    const c = await db.pool.query<{ t: string; n: number }>(`SELECT payload ->> 't' AS t, count(*)::int AS n FROM executions WHERE task = $1 AND state = 'running' GROUP BY 1`, [task]);
    onRound(Object.fromEntries(c.rows.map((r) => [r.t, r.n])));
  }
}

describe('fair share through real claims and cycles', () => {
  it('weights 1:2:4 from an empty task: the first claim fills by weight, then every refill keeps 2:4:8 of 14', async () => {
    await applyTasks(db.pool, [
      { name: 'fs-w', partitions: 4, concurrency: 14, order: 'fair', groups: [{ name: 'tenant', limit: 100, keyPath: 't', weights: { a: 1, b: 2, c: 4 } }] },
    ]);
    await enqueue(db.pool, 'fs-w', Array.from({ length: 600 }, (_, i) => ({ payload: { t: ['a', 'b', 'c'][i % 3] } })));
    const seen: Record<string, number>[] = [];
    await cycleRounds('fs-w', 60, 7, (r) => seen.push(r));
    // the first member's 7 slots by water-filling (levels 1/4, 1/2, … per row of c, 1/2, 1 of
    // b, 1 of a), then both members full at exactly 2:4:8, whatever finishes
    expect(seen[0]).toEqual({ a: 1, b: 2, c: 4 });
    for (const r of seen.slice(1)) expect(r).toEqual({ a: 2, b: 4, c: 8 });
  });

  it('one tenant sending 90%: refills go to the others until all four run 3 of 12, however deep the flood is; the same backlog oldest-first gives t0 almost everything', async () => {
    let x = 7;
    const rnd = () => (x = (x * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
    const inputs = Array.from({ length: 6000 }, () => ({ payload: { t: rnd() < 0.9 ? 't0' : `t${1 + Math.floor(rnd() * 3)}` } }));
    await applyTasks(db.pool, [
      { name: 'fs-f', partitions: 4, concurrency: 12, order: 'fair', groups: [{ name: 'tenant', limit: 100, keyPath: 't' }] },
      { name: 'fs-fifo', partitions: 4, concurrency: 12, groups: [{ name: 'tenant', limit: 100, keyPath: 't' }] },
    ]);
    await enqueue(db.pool, 'fs-f', inputs);
    await enqueue(db.pool, 'fs-fifo', inputs);
    const fair: Record<string, number>[] = [];
    await cycleRounds('fs-f', 120, 6, (r) => fair.push(r));
    // 120 rounds of 1–4 finishes: far more t0 rows than any window reads piled up at the
    // head. A member whose two partitions hold no row of a tenant below its share within
    // reach gives the slot to the others (never idle), so a round may be one off.
    for (const r of fair.slice(10)) for (const t of ['t0', 't1', 't2', 't3']) expect(Math.abs((r[t] ?? 0) - 3), JSON.stringify(r)).toBeLessThanOrEqual(1);
    const mean = (t: string) => fair.slice(10).reduce((s, r) => s + (r[t] ?? 0), 0) / (fair.length - 10);
    for (const t of ['t0', 't1', 't2', 't3']) expect(Math.abs(mean(t) - 3), t).toBeLessThan(0.3);
    const aside = await db.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM executions WHERE task = 'fs-f' AND waiting_on = 'tenant=t0'`);
    // the fair passes read t1–t3 through executions_fair_idx: nothing set aside for fairness
    expect(aside.rows[0]!.n).toBe(0);
    const fifo: Record<string, number>[] = [];
    await cycleRounds('fs-fifo', 20, 6, (r) => fifo.push(r));
    expect(fifo.at(-1)!.t0 ?? 0).toBeGreaterThanOrEqual(8);
  });

  it('keeps every limit exact: a per-key override caps a heavy-weight key below its share, and the rest is shared', async () => {
    await applyTasks(db.pool, [
      { name: 'fs-lim', partitions: 4, concurrency: 12, order: 'fair', groups: [{ name: 'tenant', limit: 100, keyPath: 't', overrides: { c: 2 }, weights: { c: 10 } }] },
    ]);
    await enqueue(db.pool, 'fs-lim', Array.from({ length: 600 }, (_, i) => ({ payload: { t: ['a', 'b', 'c'][i % 3] } })));
    const seen: Record<string, number>[] = [];
    await cycleRounds('fs-lim', 40, 6, (r) => seen.push(r));
    console.log(JSON.stringify(seen));
    for (const r of seen) expect(r.c ?? 0).toBeLessThanOrEqual(2);
    for (const r of seen) expect(Object.values(r).reduce((s, n) => s + n, 0)).toBeLessThanOrEqual(12);
    expect(seen.at(-1)).toEqual({ a: 5, b: 5, c: 2 });
  });

  it("why-waiting names the fair share while the task is full: 'fair share: a used 2× its weight'; the claim takes nothing then, and hands the next slot to b", async () => {
    await applyTasks(db.pool, [{ name: 'fs-why', partitions: 1, concurrency: 4, order: 'fair', groups: [{ name: 'tenant', limit: 100, keyPath: 't' }] }]);
    const coord = await fakeCoordinator(db.pool, ['fs-why']);
    await enqueue(db.pool, 'fs-why', Array.from({ length: 6 }, () => ({ payload: { t: 'a' } })));
    const first = await claimExecutions(db.pool, coord, 'fs-why', 4, 60_000);
    expect(countBy(tenantsOf(first))).toEqual({ a: 4 }); // alone, a takes the whole task (never idle)
    const b = await enqueue(db.pool, 'fs-why', [{ payload: { t: 'b' } }]);
    const aRow = (await db.pool.query<{ id: number }>(`SELECT id FROM executions WHERE task = 'fs-why' AND state = 'queued' AND payload ->> 't' = 'a' ORDER BY id LIMIT 1`)).rows[0]!.id;
    const whyA = whyWaitingFromRow((await readWhyWaiting(db.pool, Number(aRow), 10_000))!);
    expect(whyA.holds.map((h) => h.reason)).toEqual(['fair_share', 'task_full']);
    expect(whyA.text).toBe('fair share: a used 2× its weight (4 running, weight 1, share 2)');
    const whyB = whyWaitingFromRow((await readWhyWaiting(db.pool, b.executions[0]!.id!, 10_000))!);
    expect(whyB.holds.map((h) => h.reason)).toEqual(['task_full']);
    expect(await claimExecutions(db.pool, coord, 'fs-why', 4, 60_000)).toEqual([]);
    // one of a's finishes: the freed slot goes to b, although a's rows are older
    await finish('fs-why', first.slice(0, 1));
    expect(tenantsOf(await claimExecutions(db.pool, coord, 'fs-why', 4, 60_000))).toEqual(['b']);
  });
});


// Fair share with rate limits (both issue #19): a rate-held key is skipped by the fair
// passes like a full key and takes no share; what a pass keeps is spent from the key's
// allowance before the next pass ranks, so several passes never start more than the rate allows.
describe('fair share with rate limits', () => {
  const HOUR = 3_600_000;
  const fast = { limit: 1_000_000, per: 1000, burst: 1000 };

  it('a key out of rate tokens is skipped and takes no share; the passes never start more than burst + 1 of it; why-waiting agrees', async () => {
    await applyTasks(db.pool, [
      {
        name: 'fs-rate',
        partitions: 1,
        concurrency: 12,
        order: 'fair',
        // every key runs unthrottled but a: one per hour, burst 2 (3 at once from idle)
        groups: [{ name: 'tenant', limit: 100, keyPath: 't', rate: { ...fast, overrides: { a: { limit: 1, per: HOUR, burst: 2 } } } }],
      },
    ]);
    const coord = await fakeCoordinator(db.pool, ['fs-rate']);
    await enqueue(db.pool, 'fs-rate', Array.from({ length: 30 }, (_, i) => ({ payload: { t: ['a', 'b', 'c'][i % 3] } })));
    // fair level 4 each: a's allowance admits 3 in the first pass; the next pass must not
    // admit a again (it did while each pass read the allowance afresh: a got 4); a's 4th
    // slot goes to b and c, who share the 9 slots a does not hold (level 4.5; b's row is older)
    const first = await claimExecutions(db.pool, coord, 'fs-rate', 12, 60_000);
    expect(countBy(tenantsOf(first))).toEqual({ a: 3, b: 5, c: 4 });
    // a is rate-held for hours: its rows wait on the rate, not on a share; the level b and
    // c share leaves a out (4.5 each): b at 5 is over it, c at 4 is not
    const rowOf = async (t: string) =>
      (await db.pool.query<{ id: number }>(`SELECT id FROM executions WHERE task = 'fs-rate' AND state = 'queued' AND payload ->> 't' = $1 ORDER BY id LIMIT 1`, [t])).rows[0]!.id;
    const why = async (t: string) => whyWaitingFromRow((await readWhyWaiting(db.pool, Number(await rowOf(t)), 10_000))!);
    expect((await why('a')).holds.map((h) => h.reason)).toEqual(['rate_limited', 'task_full']);
    const whyB = await why('b');
    expect(whyB.holds.map((h) => h.reason)).toEqual(['fair_share', 'task_full']);
    expect(whyB.text).toBe('fair share: b used 1.1× its weight (5 running, weight 1, share 4.5)');
    expect((await why('c')).holds.map((h) => h.reason)).toEqual(['task_full']);
    // a's running rows finish: its 3 slots go to b and c (a has no token), never idle, and
    // a's queued rows stay out of the share (b and c end at 6 each)
    await finish('fs-rate', first.filter((e) => (e.payload as { t: string }).t === 'a'));
    expect(countBy(tenantsOf(await claimExecutions(db.pool, coord, 'fs-rate', 12, 60_000)))).toEqual({ b: 1, c: 2 });
    const running = await db.pool.query<{ t: string; n: number }>(
      `SELECT payload ->> 't' AS t, count(*)::int AS n FROM executions WHERE task = 'fs-rate' AND state = 'running' GROUP BY 1 ORDER BY 1`,
    );
    expect(running.rows).toEqual([
      { t: 'b', n: 6 },
      { t: 'c', n: 6 },
    ]);
    // one hour later a has one token again: a's next row runs ahead of b and c (level 0)
    await db.pool.query(`UPDATE rate_state SET tat_ms = tat_ms - $1, parked_until = parked_until - $1 WHERE task = 'fs-rate'`, [HOUR]);
    const bc = first.filter((e) => (e.payload as { t: string }).t !== 'a').slice(0, 1);
    await finish('fs-rate', bc);
    expect(tenantsOf(await claimExecutions(db.pool, coord, 'fs-rate', 12, 60_000))).toEqual(['a']);
  });
  it("rows another group's rate refuses take no place in the key's share: the key still gets its half", async () => {
    await applyTasks(db.pool, [
      {
        name: 'fs-rate-rank',
        partitions: 1,
        concurrency: 4,
        order: 'fair',
        fairGroup: 'tenant',
        groups: [
          { name: 'tenant', limit: 100, keyPath: 't' },
          // the endpoint "slow" starts one per hour (no burst); every other endpoint is unthrottled
          { name: 'ep', limit: 100, keyPath: 'e', rate: { ...fast, overrides: { slow: { limit: 1, per: HOUR, burst: 0 } } } },
        ],
      },
    ]);
    const coord = await fakeCoordinator(db.pool, ['fs-rate-rank']);
    // a's oldest six rows call the slow endpoint, then a's and b's rows call fast ones
    await enqueue(db.pool, 'fs-rate-rank', [
      ...Array.from({ length: 6 }, () => ({ payload: { t: 'a', e: 'slow' } })),
      ...Array.from({ length: 10 }, (_, i) => ({ payload: { t: ['a', 'b'][i % 2], e: 'fast' } })),
    ]);
    // level 2 each: a gets one slow row (the rate's one token) and its first fast row; the
    // five slow rows the rate refuses do not push a's fast rows past its share (counted,
    // they left a at 1 and b at 3)
    const got = await claimExecutions(db.pool, coord, 'fs-rate-rank', 4, 60_000);
    expect(countBy(tenantsOf(got))).toEqual({ a: 2, b: 2 });
    expect(got.filter((e) => (e.payload as { e: string }).e === 'slow')).toHaveLength(1);
  });
});

describe('the per-key entry point (executions_fair_idx)', () => {
  it("a member leaves other members only what their keys below the share can use: the rest goes to the flood, not idle", async () => {
    // Members A (partitions 0, 1) and B (2, 3); hash routing on `p` places each row. t0 floods
    // every partition; t1 has due rows only in B's partitions; t2 only delayed rows (waiting,
    // so it counts in the fair level L = 12 / 3 = 4, but nothing of it can start). A's claim:
    // t0 to its share (4), then the last pass leaves t1's shortfall (4) to B and fills the
    // other 4 with t0 (until 2026-12-01 it left all 8 idle: A took 4). B then takes t1's 4.
    const partitionOf = (v: string) => stableHash32(v) % 4;
    const placed = (part: number, n: number) => {
      const out: string[] = [];
      for (let i = 0; out.length < n; i++) if (partitionOf(`x${i}`) === part) out.push(`x${i}`);
      return out;
    };
    await applyTasks(db.pool, [
      { name: 'fs-hold', partitions: 4, concurrency: 12, order: 'fair', routing: { strategy: 'hash', keyPath: 'p' }, groups: [{ name: 'tenant', limit: 100, keyPath: 't' }] },
    ]);
    await enqueue(db.pool, 'fs-hold', [0, 1, 2, 3].flatMap((part) => placed(part, 10).map((p) => ({ payload: { t: 't0', p } }))));
    await enqueue(db.pool, 'fs-hold', [2, 3].flatMap((part) => placed(part, 5).map((p) => ({ payload: { t: 't1', p } }))));
    await enqueue(db.pool, 'fs-hold', placed(0, 5).map((p) => ({ payload: { t: 't2', p }, delayMs: 600_000 })));
    const a = await fakeCoordinator(db.pool, ['fs-hold'], { 'fs-hold': [0, 1] });
    const b = await fakeCoordinator(db.pool, ['fs-hold'], { 'fs-hold': [2, 3] });
    const gotA = await claimExecutions(db.pool, a, 'fs-hold', 12, 60_000);
    expect(countBy(tenantsOf(gotA))).toEqual({ t0: 8 });
    const gotB = await claimExecutions(db.pool, b, 'fs-hold', 12, 60_000);
    expect(countBy(tenantsOf(gotB))).toEqual({ t1: 4 });
  });

  it("a fair pass reads the others' rows behind a 20,000-row flood directly: 3 of 12 each, a few hundred index entries, nothing set aside", async () => {
    await applyTasks(db.pool, [
      { name: 'fs-deep', partitions: 4, concurrency: 12, order: 'fair', groups: [{ name: 'tenant', limit: 100, keyPath: 't' }], backpressure: { maxDepth: 1_000_000 } },
    ]);
    // the flood first, the others' rows after it: oldest-first, they lie 5,000 rows deep in
    // every partition, beyond any head a claim reads (16 × window + 256)
    for (let i = 0; i < 20_000; i += 5000) await enqueue(db.pool, 'fs-deep', Array.from({ length: 5000 }, () => ({ payload: { t: 't0' } })));
    await enqueue(db.pool, 'fs-deep', Array.from({ length: 90 }, (_, i) => ({ payload: { t: `t${1 + (i % 3)}` } })));
    const fk = await db.pool.query<{ k: string; n: number }>(`SELECT fair_key AS k, count(*)::int AS n FROM executions WHERE task = 'fs-deep' GROUP BY 1 ORDER BY 1`);
    expect(fk.rows).toEqual([{ k: 'tenant=t0', n: 20_000 }, { k: 'tenant=t1', n: 30 }, { k: 'tenant=t2', n: 30 }, { k: 'tenant=t3', n: 30 }]);
    await db.pool.query('VACUUM ANALYZE executions');
    const coord = await fakeCoordinator(db.pool, ['fs-deep']);
    const c = await db.pool.connect();
    try {
      const { delta, value: got } = await statsDelta(
        db.pool,
        c,
        `SELECT coalesce(sum(idx_tup_read), 0) AS reads FROM pg_stat_user_indexes WHERE indexrelname IN ('executions_claim_idx', 'executions_fair_idx')`,
        (cl) => claimExecutions(cl, coord, 'fs-deep', 12, 60_000),
      );
      expect(countBy(tenantsOf(got))).toEqual({ t0: 3, t1: 3, t2: 3, t3: 3 });
      expect(delta.reads).toBeLessThan(500);
    } finally {
      c.release();
    }
    const aside = await db.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM executions WHERE task = 'fs-deep' AND waiting_on IS NOT NULL`);
    expect(aside.rows[0]!.n).toBe(0);
  });

  it('when the limits already give every tenant its share (4 × limit 3 = concurrency 12) the claim goes in claim order and probes no key; at limit 4 it shares by fair passes', async () => {
    const def = (name: string, limit: number) => ({ name, partitions: 4, concurrency: 12, order: 'fair' as const, groups: [{ name: 'tenant', limit, keyPath: 't' }] });
    await applyTasks(db.pool, [def('fs-nobind', 3), def('fs-binds', 4)]);
    // 90% t0: every tenth row is t1, t2, t3 in turn
    const inputs = Array.from({ length: 400 }, (_, i) => ({ payload: { t: i % 10 === 9 ? `t${1 + (Math.floor(i / 10) % 3)}` : 't0' } }));
    for (const task of ['fs-nobind', 'fs-binds']) await enqueue(db.pool, task, inputs);
    const fairReads = `SELECT coalesce(sum(idx_tup_read), 0) AS reads FROM pg_stat_user_indexes WHERE indexrelname = 'executions_fair_idx'`;
    const c = await db.pool.connect();
    try {
      const coord = await fakeCoordinator(db.pool, ['fs-nobind', 'fs-binds']);
      // claim order: t0's oldest three (its limit), then the others' oldest as slots allow
      const { delta, value: rounds } = await statsDelta(db.pool, c, fairReads, async (cl) => {
        const out: ClaimedExecution[][] = [];
        for (let n = 0; n < 12 && out.length < 4; ) {
          const got = await claimExecutions(cl, coord, 'fs-nobind', 12 - n, 60_000);
          out.push(got);
          n += got.length;
        }
        return out;
      });
      const all = rounds.flat();
      expect(countBy(tenantsOf(all))).toEqual({ t0: 3, t1: 3, t2: 3, t3: 3 });
      expect(tenantsOf(rounds[0]!).slice(0, 3)).toEqual(['t0', 't0', 't0']);
      const seqs = rounds[0]!.map((e) => e.id);
      expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
      expect(delta.reads).toBe(0);
      // one more slot of share than the limit: fair passes, through executions_fair_idx, 3 each in one claim
      const binds = await statsDelta(db.pool, c, fairReads, (cl) => claimExecutions(cl, coord, 'fs-binds', 12, 60_000));
      expect(countBy(tenantsOf(binds.value))).toEqual({ t0: 3, t1: 3, t2: 3, t3: 3 });
      expect(binds.delta.reads).toBeGreaterThan(0);
    } finally {
      c.release();
    }
  });

  it('one tenant alone waiting has nobody to share with: claim order, no key probed; a second tenant brings the fair passes back', async () => {
    await applyTasks(db.pool, [{ name: 'fs-alone', partitions: 2, concurrency: 8, order: 'fair', groups: [{ name: 'tenant', limit: 100, keyPath: 't' }] }]);
    await enqueue(db.pool, 'fs-alone', Array.from({ length: 40 }, (_, i) => ({ payload: { t: 't0', i } })));
    const fairReads = `SELECT coalesce(sum(idx_tup_read), 0) AS reads FROM pg_stat_user_indexes WHERE indexrelname = 'executions_fair_idx'`;
    const c = await db.pool.connect();
    try {
      const coord = await fakeCoordinator(db.pool, ['fs-alone']);
      const alone = await statsDelta(db.pool, c, fairReads, (cl) => claimExecutions(cl, coord, 'fs-alone', 6, 60_000));
      // the oldest six in claim order, as oldest-first would take them, without a fair pass
      expect(alone.value.map((e) => (e.payload as { i: number }).i)).toEqual([0, 1, 2, 3, 4, 5]);
      expect(alone.delta.reads).toBe(0);
      // t1 arrives: two keys wait, t0 holds 6 of 8 (over its share of 4), so both free slots
      // go to t1 through the fair passes, although t0's rows are older
      await enqueue(db.pool, 'fs-alone', Array.from({ length: 4 }, () => ({ payload: { t: 't1' } })));
      const shared = await statsDelta(db.pool, c, fairReads, (cl) => claimExecutions(cl, coord, 'fs-alone', 8, 60_000));
      expect(countBy(tenantsOf(shared.value))).toEqual({ t1: 2 });
      expect(shared.delta.reads).toBeGreaterThan(0);
    } finally {
      c.release();
    }
  });

  it('a change of the fair group rewrites the waiting rows\' fair_key: fifo → fair by tenant → fair by region → fifo', async () => {
    const def = (order: 'fifo' | 'fair', fairGroup?: string) => ({
      name: 'fs-switch', partitions: 2, concurrency: 4, order, ...(fairGroup ? { fairGroup } : {}),
      groups: [{ name: 'tenant', limit: 10, keyPath: 't' }, { name: 'region', limit: 10, keyPath: 'r' }],
    });
    await applyTasks(db.pool, [def('fifo')]);
    await enqueue(db.pool, 'fs-switch', [{ payload: { t: 'a', r: 'eu' } }, { payload: { t: 'b', r: 'us' } }]);
    const keys = async () => (await db.pool.query<{ k: string | null }>(`SELECT fair_key AS k FROM executions WHERE task = 'fs-switch' ORDER BY id`)).rows.map((x) => x.k);
    expect(await keys()).toEqual([null, null]);
    await applyTasks(db.pool, [def('fair', 'tenant')]);
    expect(await keys()).toEqual(['tenant=a', 'tenant=b']);
    await applyTasks(db.pool, [def('fair', 'region')]);
    expect(await keys()).toEqual(['region=eu', 'region=us']);
    await enqueue(db.pool, 'fs-switch', [{ payload: { t: 'c', r: 'ap' } }]);
    expect(await keys()).toEqual(['region=eu', 'region=us', 'region=ap']);
    await applyTasks(db.pool, [def('fifo')]);
    expect(await keys()).toEqual([null, null, null]);
  });
});
