// Browsing dead letters: filters, keyset pagination (ties on dead_at, microseconds),
// fingerprint groups and the detail view — on a real Postgres, checked against the
// same selection computed in JavaScript.
import { describe, it, expect, beforeAll } from 'vitest';
import { testDatabase } from './db';
import { insertDeadLetters, type DeadLetterSeed } from '../support/dead-letter-fixtures';
import { COUNT_CAP, TEXT_COUNT_CAP, deadLetterDetail, listDeadLetterPage, listFingerprintGroups } from '../../server/presenters/dead-letters';
import { deadLetterFilterSchema, type DeadLetterFilterInput } from '../../server/core/dead-letter-filter';
import { isCoreError } from '../../server/core/errors';

const db = await testDatabase();

interface Seeded extends DeadLetterSeed {
  id: number;
  deadAtMs: number;
}
let seeded: Seeded[] = [];

const base = Date.parse('2026-11-20T12:00:00.000Z');

beforeAll(async () => {
  const seeds: DeadLetterSeed[] = [];
  for (let i = 0; i < 240; i++) {
    seeds.push({
      task: ['billing', 'emails', 'exports'][i % 3]!,
      fingerprint: ['aaa1', 'bbb2', 'ccc3', 'ddd4'][i % 4]!,
      groups: i % 5 === 0 ? { tenant: 'acme' } : { tenant: `t${i % 7}` },
      streamKey: i % 6 === 0 ? `order-${i % 4}` : null,
      error: i % 10 === 0 ? `Error: 100% of quota_used for order ${i}` : `TimeoutError: upstream timed out after ${i} ms`,
      // Many rows share a dead_at (ties broken by id) and some differ only by microseconds.
      // `…00.000001Z`: one microsecond later than its neighbours (a JS Date cannot hold it).
      deadAt: new Date(base + Math.floor(i / 4) * 1000).toISOString().replace('Z', i % 4 === 3 ? '001Z' : 'Z'),
    });
  }
  const rows = await insertDeadLetters(db.pool, seeds);
  seeded = seeds.map((s, i) => ({ ...s, id: rows[i]!.id, deadAtMs: Date.parse(String(s.deadAt)) }));
  await db.pool.query(`UPDATE dead_letters SET replayed_at = now() WHERE id = ANY ($1::bigint[])`, [seeded.filter((_, i) => i % 9 === 0).map((s) => s.id)]);
});

async function allPages(filter: DeadLetterFilterInput, limit: number): Promise<number[]> {
  const ids: number[] = [];
  let cursor: string | undefined;
  for (let guard = 0; guard < 1000; guard++) {
    const page = await listDeadLetterPage(db.pool, { filter, limit, ...(cursor ? { cursor } : {}) });
    ids.push(...page.items.map((x) => x.id));
    if (!page.nextCursor) return ids;
    cursor = page.nextCursor;
  }
  throw new Error('pagination did not end');
}

function expected(pred: (s: Seeded, i: number) => boolean): number[] {
  // newest first; dead_at ties → higher id first. Rows with the .xxx001 suffix are 1 µs later.
  return seeded
    .map((s, i) => ({ s, i, us: s.deadAtMs * 1000 + (String(s.deadAt).endsWith('001Z') ? 1 : 0) }))
    .filter(({ s, i }) => pred(s, i))
    .sort((a, b) => b.us - a.us || b.s.id - a.s.id)
    .map(({ s }) => s.id);
}

describe('dead-letter list', () => {
  it('walks every page without gaps or repeats, newest first, ties broken by id', async () => {
    expect(await allPages({}, 7)).toEqual(expected(() => true));
  });

  it.each<[string, DeadLetterFilterInput, (s: Seeded, i: number) => boolean]>([
    ['task', { task: 'emails' }, (s) => s.task === 'emails'],
    ['fingerprint', { fingerprint: 'bbb2' }, (s) => s.fingerprint === 'bbb2'],
    ['task + fingerprint', { task: 'billing', fingerprint: 'aaa1' }, (s) => s.task === 'billing' && s.fingerprint === 'aaa1'],
    ['group', { group: 'tenant=acme' }, (s) => s.groups?.tenant === 'acme'],
    ['stream', { stream: 'order-2' }, (s) => s.streamKey === 'order-2'],
    ['text (LIKE metacharacters are literal)', { q: '100% of quota_used' }, (s) => String(s.error).includes('100% of quota_used')],
    ['text is case-insensitive', { q: 'TIMED OUT' }, (s) => String(s.error).includes('timed out')],
    ['time range', { from: new Date(base + 10_000), to: new Date(base + 20_000) }, (s) => s.deadAtMs >= base + 10_000 && s.deadAtMs < base + 20_000],
    ['pending', { status: 'pending' }, (_s, i) => i % 9 !== 0],
    ['replayed', { status: 'replayed' }, (_s, i) => i % 9 === 0],
    ['everything at once', { task: 'billing', group: 'tenant=acme', q: 'timed out', status: 'pending' },
      (s, i) => s.task === 'billing' && s.groups?.tenant === 'acme' && String(s.error).includes('timed out') && i % 9 !== 0],
  ])('filters by %s', async (_name, filter, pred) => {
    const want = expected(pred);
    expect(want.length).toBeGreaterThan(0);
    expect(await allPages(filter, 11)).toEqual(want);
    const first = await listDeadLetterPage(db.pool, { filter, limit: 5 });
    const cap = filter.q ? TEXT_COUNT_CAP : COUNT_CAP; // a text filter's count stops early
    expect(first.count).toBe(Math.min(want.length, cap));
    expect(first.countCapped).toBe(want.length > cap);
  });

  it('reports bad filters and cursors field by field', async () => {
    for (const [input, path] of [
      [{ filter: { group: 'acme' } }, 'filter.group'],
      [{ filter: { task: 'Not A Task' } }, 'filter.task'],
      [{ cursor: '12' }, 'cursor'],
      [{ limit: 0 }, 'limit'],
    ] as const) {
      const e = await listDeadLetterPage(db.pool, input as never).catch((x: unknown) => x);
      expect(isCoreError(e)).toBe(true);
      expect((e as { fieldErrors: { path: string }[] }).fieldErrors.map((f) => f.path)).toContain(path);
    }
  });
});

describe('fingerprint groups', () => {
  it('counts, first/last seen, tasks and pending per fingerprint, under the filter', async () => {
    const { groups, sampledNewest } = await listFingerprintGroups(db.pool, { filter: deadLetterFilterSchema.parse({ task: 'billing' }) });
    expect(sampledNewest).toBeNull();
    const rows = seeded.map((s, i) => ({ s, i })).filter(({ s }) => s.task === 'billing');
    const fps = [...new Set(rows.map((r) => r.s.fingerprint!))];
    expect(groups.map((g) => g.fingerprint).sort()).toEqual(fps.sort());
    for (const g of groups) {
      const mine = rows.filter((r) => r.s.fingerprint === g.fingerprint);
      expect(g.count).toBe(mine.length);
      expect(g.pending).toBe(mine.filter((r) => r.i % 9 !== 0).length);
      expect(g.tasks).toEqual(['billing']);
      expect(g.firstSeen!.getTime()).toBe(Math.min(...mine.map((r) => r.s.deadAtMs)));
      expect(g.lastSeen!.getTime()).toBe(Math.max(...mine.map((r) => r.s.deadAtMs)));
      expect(g.sampleError.length).toBeGreaterThan(0);
    }
    // biggest first
    expect(groups.map((g) => g.count)).toEqual([...groups.map((g) => g.count)].sort((a, b) => b - a));
  });
});

describe('fingerprint stats (trigger-maintained)', () => {
  const truth = async () =>
    (
      await db.pool.query(
        `SELECT task, fingerprint, count(*)::int AS count, count(*) FILTER (WHERE replayed_at IS NULL)::int AS pending,
                min(dead_at) AS first_seen, max(dead_at) AS last_seen
           FROM dead_letters GROUP BY 1, 2 ORDER BY 1, 2`,
      )
    ).rows;
  const stats = async () =>
    (await db.pool.query(`SELECT task, fingerprint, count::int, pending::int, first_seen, last_seen FROM dlq_fingerprint_stats ORDER BY 1, 2`)).rows;

  it('stay equal to an aggregate over dead_letters through inserts, replay marks and deletes', async () => {
    expect(await stats()).toEqual(await truth());
    await db.pool.query(`UPDATE dead_letters SET replayed_at = now(), replay_execution_id = 1 WHERE fingerprint = 'ccc3' AND replayed_at IS NULL AND id % 2 = 0`);
    expect(await stats()).toEqual(await truth());
    // delete the oldest and the newest of one key: first/last seen move
    await db.pool.query(`DELETE FROM dead_letters WHERE id IN (
      (SELECT id FROM dead_letters WHERE task = 'emails' AND fingerprint = 'bbb2' ORDER BY dead_at, id LIMIT 3)
      UNION ALL (SELECT id FROM dead_letters WHERE task = 'emails' AND fingerprint = 'bbb2' ORDER BY dead_at DESC, id DESC LIMIT 2))`);
    expect(await stats()).toEqual(await truth());
    // a whole key goes: its stats row goes
    await insertDeadLetters(db.pool, [{ task: 'tmp', fingerprint: 'gone' }, { task: 'tmp', fingerprint: 'gone' }]);
    expect(await stats()).toEqual(await truth());
    await db.pool.query(`DELETE FROM dead_letters WHERE task = 'tmp'`);
    expect((await stats()).some((r) => r.task === 'tmp')).toBe(false);
    expect(await stats()).toEqual(await truth());
  });

  it('answer unfiltered and task-only groups; other filters aggregate the matching rows', async () => {
    const all = await listFingerprintGroups(db.pool, { filter: deadLetterFilterSchema.parse({}) });
    const t = await truth();
    for (const g of all.groups) {
      const rows = t.filter((r) => r.fingerprint === g.fingerprint);
      expect(g.count).toBe(rows.reduce((a, r) => a + r.count, 0));
      expect(g.tasks).toEqual(rows.map((r) => r.task).sort());
    }
    const narrowed = await listFingerprintGroups(db.pool, { filter: deadLetterFilterSchema.parse({ group: 'tenant=acme' }) });
    expect(narrowed.sampledNewest).toBeNull();
    const acme = await db.pool.query(`SELECT fingerprint, count(*)::int AS n FROM dead_letters WHERE groups @> '{"tenant":"acme"}' GROUP BY 1 ORDER BY 2 DESC, 1`);
    expect(narrowed.groups.map((g) => [g.fingerprint, g.count]).sort()).toEqual(acme.rows.map((r) => [r.fingerprint, r.n]).sort());
  });
});

describe('detail', () => {
  it('shows payload, groups, stream, every attempt and the last stack', async () => {
    const [row] = await insertDeadLetters(db.pool, [
      {
        task: 'billing',
        payload: { invoice: 'inv_1', lines: [1, 2] },
        groups: { tenant: 'acme' },
        streamKey: 'inv_1',
        attempts: 3,
        error: 'Error: card declined',
        stack: 'Error: card declined\n    at charge (billing.ts:10:5)',
        withExecution: true,
      },
    ]);
    const d = await deadLetterDetail(db.pool, { id: row!.id });
    expect(d.payload).toEqual({ invoice: 'inv_1', lines: [1, 2] });
    expect(d.groups).toEqual({ tenant: 'acme' });
    expect(d.streamKey).toBe('inv_1');
    expect(d.stack).toContain('at charge');
    expect(d.attemptsLog.map((a) => [a.attempt, a.outcome])).toEqual([[1, 'retry'], [2, 'retry'], [3, 'dead']]);
    expect(d.attemptsLog.every((a) => a.error.startsWith('Error: card declined'))).toBe(true);
    expect(d.replays).toEqual([]);
  });

  it('is NOT_FOUND for an unknown id', async () => {
    const e = await deadLetterDetail(db.pool, { id: 999_999_999 }).catch((x: unknown) => x);
    expect(isCoreError(e) && e.code).toBe('NOT_FOUND');
  });
});
