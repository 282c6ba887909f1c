// Reads for the Dead letters pages (and the REST/CLI list): the keyset-paginated list
// with a capped count, the fingerprint groups, and one dead letter in full.
// Inputs are parsed here so tRPC, REST and the CLI get the same field errors.
import { z } from 'zod';
import { inputText } from '../core/input-text';
import { CoreError } from '../core/errors';
import { deadLetterFilterSchema, type DeadLetterFilter } from '../core/dead-letter-filter';
import type { Db } from '../db/pool';
import { countDeadLettersCapped, listDeadLetters, type DeadLetterCursor, type DeadLetterListRow } from '../db/list-dead-letters';
import { deadLetterFingerprints, type FingerprintGroupRow, type FingerprintGroups } from '../db/dead-letter-fingerprints';
import {
  deadLetterAttempts,
  deadLetterReplays,
  getDeadLetter,
  type AttemptRow,
  type DeadLetterRow,
  type ReplayRecordRow,
} from '../db/get-dead-letter';
import { getReplayJob, listReplayJobs, type ReplayJobRow } from '../db/replay-job-lease';
import { readReplayedExecutions, readReplayOutcomeCounts, type ReplayedExecutionRow, type ReplayOutcomeCounts } from '../db/read-replay-outcomes';
import { parseInput } from '../core/validate-input';

export const COUNT_CAP = 10_000;
/**
 * With an error-text filter each counted match costs the heap rows walked to find it and
 * an ILIKE on each: with 1M dead letters (table + indexes > shared_buffers) counting
 * 1,000 matches of a task's error text took 110–200 ms on the local PG15 under load, so a
 * text filter's count stops at 200 ("200+"); the purge preview and a replay job's total
 * are always exact.
 */
export const TEXT_COUNT_CAP = 200;

const CURSOR_RE = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z)~(\d{1,18})$/;

export const deadLetterListInput = z.strictObject({
  filter: deadLetterFilterSchema.default({ status: 'all' }),
  cursor: inputText.regex(CURSOR_RE, 'is not a valid page cursor').optional(),
  limit: z.number().int('must be a whole number').min(1, 'must be at least 1').max(500, 'must be at most 500').default(50),
});
export type DeadLetterListInput = z.input<typeof deadLetterListInput>;

export const fingerprintGroupsInput = z.strictObject({
  filter: deadLetterFilterSchema.default({ status: 'all' }),
  limit: z.number().int().min(1).max(200).default(20),
});

export const deadLetterIdInput = z.strictObject({ id: z.number().int('must be a dead-letter id').positive('must be a dead-letter id') });

export interface DeadLetterListPage {
  items: DeadLetterListRow[];
  nextCursor: string | null;
  /** matching dead letters, counted up to COUNT_CAP; null on later pages (not recounted) */
  count: number | null;
  countCapped: boolean;
}

export function encodeCursor(row: { deadAtKey: string; id: number }): string {
  return `${row.deadAtKey}~${row.id}`;
}

export function decodeCursor(cursor: string): DeadLetterCursor {
  const m = CURSOR_RE.exec(cursor);
  if (!m) throw CoreError.badRequest('cursor is not a valid page cursor', [{ path: 'cursor', message: 'is not a valid page cursor' }]);
  return { deadAt: m[1]!, id: Number(m[2]) };
}

export async function listDeadLetterPage(db: Db, input: DeadLetterListInput): Promise<DeadLetterListPage> {
  const v = parseInput(deadLetterListInput, input);
  const [page, count] = await Promise.all([
    listDeadLetters(db, v.filter, { limit: v.limit, cursor: v.cursor ? decodeCursor(v.cursor) : null }),
    // The count matters on the first page; later pages keep the one they were shown.
    v.cursor ? Promise.resolve(null) : countDeadLettersCapped(db, v.filter, v.filter.q ? TEXT_COUNT_CAP : COUNT_CAP),
  ]);
  const last = page.rows[page.rows.length - 1];
  return {
    items: page.rows,
    nextCursor: page.more && last ? encodeCursor(last) : null,
    count: count?.count ?? null,
    countCapped: count?.capped ?? false,
  };
}

export async function listFingerprintGroups(db: Db, input: z.input<typeof fingerprintGroupsInput>): Promise<FingerprintGroups> {
  const v = parseInput(fingerprintGroupsInput, input);
  return deadLetterFingerprints(db, v.filter, v.limit);
}

export interface DeadLetterDetail extends DeadLetterRow {
  attemptsLog: AttemptRow[];
  replays: ReplayRecordRow[];
}

export async function deadLetterDetail(db: Db, input: z.input<typeof deadLetterIdInput>): Promise<DeadLetterDetail> {
  const { id } = parseInput(deadLetterIdInput, input);
  const row = await getDeadLetter(db, id);
  if (!row) throw CoreError.notFound(`dead letter ${id}`);
  const [attemptsLog, replays] = await Promise.all([deadLetterAttempts(db, row.executionId), deadLetterReplays(db, id)]);
  return { ...row, attemptsLog, replays };
}

export type { ReplayedExecutionRow };
export type { DeadLetterListRow, FingerprintGroupRow, FingerprintGroups, DeadLetterFilter };

// ---- replay jobs (the progress bars) ----


export const replayJobIdInput = z.strictObject({ id: z.number().int().positive('must be a replay job id') });
export const replayJobListInput = z.strictObject({
  limit: z.number().int().min(1).max(100).default(20),
  beforeId: z.number().int().positive().optional(),
});

export interface ReplayJobView extends ReplayJobRow {
  /** replayed + skipped + failed */
  processed: number;
  /** 0…1 */
  progress: number;
  /** what became of the new executions (server/db/read-replay-outcomes.ts) */
  outcomes: Omit<ReplayOutcomeCounts, 'jobId'>;
}

async function jobViews(db: Db, jobs: ReplayJobRow[]): Promise<ReplayJobView[]> {
  const outcomes = await readReplayOutcomeCounts(
    db,
    jobs.map((j) => j.id),
  );
  return jobs.map((j, i) => {
    const processed = j.replayed + j.skipped + j.failed;
    const { jobId: _, ...o } = outcomes[i]!;
    return { ...j, processed, progress: j.total === 0 ? 1 : Math.min(1, processed / j.total), outcomes: o };
  });
}

export async function replayJob(db: Db, input: z.input<typeof replayJobIdInput>): Promise<ReplayJobView> {
  const { id } = parseInput(replayJobIdInput, input);
  const j = await getReplayJob(db, id);
  if (!j) throw CoreError.notFound(`replay job ${id}`);
  return (await jobViews(db, [j]))[0]!;
}

export async function recentReplayJobs(db: Db, input: z.input<typeof replayJobListInput>): Promise<ReplayJobView[]> {
  const v = parseInput(replayJobListInput, input);
  return jobViews(db, await listReplayJobs(db, v.limit, v.beforeId));
}

export const replayExecutionsInput = z.strictObject({
  jobId: z.number().int().positive('must be a replay job id'),
  after: z.number().int().min(0, 'is not a valid page cursor').default(0),
  limit: z.number().int().min(1, 'must be at least 1').max(200, 'must be at most 200').default(50),
});

/** A page of the job's new executions with their outcome; `next` = the cursor of the next page. */
export async function replayExecutions(
  db: Db,
  input: z.input<typeof replayExecutionsInput>,
): Promise<{ items: ReplayedExecutionRow[]; next: number | null }> {
  const v = parseInput(replayExecutionsInput, input);
  const rows = await readReplayedExecutions(db, v.jobId, v.limit + 1, v.after);
  const items = rows.slice(0, v.limit);
  return { items, next: rows.length > v.limit ? items.at(-1)!.deadLetterId : null };
}

/** Task names for the filter's picker: the configured tasks (task_runtime is small). */
export async function deadLetterTaskNames(db: Db): Promise<string[]> {
  const r = await db.query<{ task: string }>(`SELECT task FROM task_runtime ORDER BY task`);
  return r.rows.map((x) => x.task);
}
