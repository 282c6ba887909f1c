// The Keys view of one task group: each key's running / limit (override marked) / queued,
// how long its oldest due execution has waited and how many of its executions finished in
// the last complete minute, most queued first, one keyset page at a time. Counts come from
// group_slots, waits from bounded index probes, rates from group_key_finishes; nothing
// counts executions (db/read-group-key-page.ts, read-key-oldest-waits.ts,
// read-key-finish-rates.ts say how each stays bounded at 10,000 keys).
import type { z } from 'zod';
import { CoreError } from '../core/errors';
import {
  decodeKeyCursor,
  encodeKeyCursor,
  executionsOfKeyHref,
  groupRateOf,
  groupsOf,
  keyFairView,
  keyLimit,
  keyRateView,
  type KeyFairView,
  type KeyRateView,
  taskKeysInput,
} from '../core/key-views';
import type { Db } from '../db/pool';
import { readActiveTasks } from '../db/read-active-tasks';
import { readGroupKeyPage, type GroupKeyPageRow } from '../db/read-group-key-page';
import { readKeyOldestWaits } from '../db/read-key-oldest-waits';
import { readKeyFinishRates } from '../db/read-key-finish-rates';
import { readKeyRateStates } from '../db/read-key-rate-states';
import { formatRate } from '../core/rate-limit';

/** Due rows read per partition head when looking for a key's oldest claimable row. */
export const OLDEST_WAIT_HEAD_ROWS = 200;

export interface KeyRow {
  key: string;
  running: number;
  limit: number;
  override: boolean;
  queued: number;
  /** ms since the oldest due, queued execution of the key became due; null: none found. */
  oldestWaitMs: number | null;
  /** Executions of the key finished in the last complete minute; null before the first count. */
  finishedPerMinute: number | null;
  /** Its rate limit now (issue #19): limit, next slot, current rate; null when the group has no rate. */
  rate: KeyRateView | null;
  /** Its fair share (issue #19): weight and running ÷ weight; null unless the task shares this group fairly. */
  fair: KeyFairView | null;
  executionsHref: string;
}

export interface TaskKeysView {
  task: string;
  groups: { name: string; limit: number; overrides: number }[];
  /** The viewed group's rate ("50/s, burst 5") and whether the task shares it fairly (issue #19). */
  groupRate: string | null;
  fairShared: boolean;
  /** null when the task has no concurrency groups. */
  group: string | null;
  groupLimit: number | null;
  totals: { keys: number; running: number; queued: number };
  rows: KeyRow[];
  /** The key asked for, pinned above the page (null when not asked or unknown). */
  focus: KeyRow | null;
  focusKey: string | null;
  nextCursor: string | null;
  /** The minute finishedPerMinute counts (start), null before the first count. */
  finishedMinute: Date | null;
  at: Date;
}

export async function getTaskKeys(db: Db, raw: z.input<typeof taskKeysInput>, now = new Date()): Promise<TaskKeysView> {
  const input = taskKeysInput.parse(raw);
  const rt = (await readActiveTasks(db)).find((t) => t.task === input.task);
  if (!rt) throw CoreError.notFound(`task "${input.task}"`);
  const groups = groupsOf(rt.definition);
  const base = {
    task: input.task,
    groups: groups.map((g) => ({ name: g.name, limit: g.limit, overrides: Object.keys(g.overrides).length })),
    at: now,
    focusKey: input.key ?? null,
  };
  if (groups.length === 0) {
    return { ...base, group: null, groupLimit: null, groupRate: null, fairShared: false, totals: { keys: 0, running: 0, queued: 0 }, rows: [], focus: null, nextCursor: null, finishedMinute: null };
  }
  const group = input.group === undefined ? groups[0]! : groups.find((g) => g.name === input.group);
  if (!group) {
    throw CoreError.badRequest(`task "${input.task}" has no group "${input.group}"`, [{ path: 'group', message: `is not a group of ${input.task}` }]);
  }
  const page = await readGroupKeyPage(db, input.task, group.name, {
    after: input.after ? decodeKeyCursor(input.after) : null,
    limit: input.limit + 1,
    focus: input.key ?? null,
  });
  const more = page.rows.length > input.limit;
  const rows = page.rows.slice(0, input.limit);
  const keysAsked = [...rows, ...(page.focus ? [page.focus] : [])].map((r) => r.group_key);
  const hasRate = groupRateOf(rt.definition, group.name) !== null;
  const [waits, rates, tats] = await Promise.all([
    readKeyOldestWaits(db, input.task, rt.partitions, keysAsked.map((k) => `${group.name}=${k}`), OLDEST_WAIT_HEAD_ROWS),
    readKeyFinishRates(db, input.task, group.name, keysAsked),
    hasRate ? readKeyRateStates(db, input.task, group.name, keysAsked) : Promise.resolve(new Map<string, number>()),
  ]);
  const prefix = `${group.name}=`;
  const waitOf = new Map(waits.map((w) => [w.group_key.slice(prefix.length), now.getTime() - w.oldest_run_at.getTime()]));
  const rateOf = new Map(rates.rows.map((r) => [r.group_key, r.finished]));
  const shape = (r: GroupKeyPageRow): KeyRow => {
    const { limit, override } = keyLimit(group, r.group_key);
    const finishedPerMinute = rates.minute === null ? null : (rateOf.get(r.group_key) ?? 0);
    return {
      key: r.group_key,
      running: r.in_flight,
      limit,
      override,
      queued: r.queued,
      oldestWaitMs: waitOf.has(r.group_key) ? Math.max(0, waitOf.get(r.group_key)!) : null,
      finishedPerMinute,
      rate: keyRateView(rt.definition, group.name, r.group_key, tats.get(r.group_key) ?? null, now.getTime(), finishedPerMinute),
      fair: keyFairView(rt.definition, group.name, r.group_key, r.in_flight),
      executionsHref: executionsOfKeyHref(input.task, group.name, r.group_key),
    };
  };
  const last = rows[rows.length - 1];
  return {
    ...base,
    group: group.name,
    groupLimit: group.limit,
    groupRate: (() => {
      const r = groupRateOf(rt.definition, group.name);
      return r ? formatRate(r) : null;
    })(),
    fairShared: keyFairView(rt.definition, group.name, '', 0) !== null,
    totals: { keys: page.keys, running: page.inFlight, queued: page.queued },
    rows: rows.map(shape),
    focus: page.focus ? shape(page.focus) : null,
    nextCursor: more && last ? encodeKeyCursor({ queued: last.queued, key: last.group_key }) : null,
    finishedMinute: rates.minute,
  };
}
