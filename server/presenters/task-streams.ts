// The Streams view of one task: its blocked streams, longest blocked first (blocked for =
// the wait of the oldest execution held behind the head; db/read-blocked-streams.ts
// defines it), with the head's execution, age, attempt, status (running, waiting for its
// retry, due) and how much waits behind it. Bounded reads through the stream indexes.
import type { z } from 'zod';
import { CoreError } from '../core/errors';
import { executionHref, streamHeadStatus, taskStreamsInput, type StreamHeadStatus } from '../core/key-views';
import type { Db } from '../db/pool';
import { readActiveTasks } from '../db/read-active-tasks';
import { readBlockedStreams } from '../db/read-blocked-streams';

/** Heads read per page at most; executions counted behind one head at most. */
export const STREAM_HEAD_SCAN = 2000;
export const STREAM_BEHIND_CAP = 1000;

export interface StreamRow {
  stream: string;
  headId: number;
  headHref: string;
  status: StreamHeadStatus;
  /** ms since the head was enqueued. */
  headAgeMs: number;
  /** Attempts started so far (the running one included). */
  attempt: number;
  /** When a scheduled head becomes due (its retry, or its delay); null otherwise. */
  nextRetryAt: Date | null;
  lastError: string | null;
  leaseExpiresAt: Date | null;
  /** Executions behind the head, counted up to STREAM_BEHIND_CAP. */
  behind: number;
  behindCapped: boolean;
  /** ms the first execution behind the head has waited since it was enqueued. */
  blockedForMs: number;
  firstBehindId: number;
}

export interface TaskStreamsView {
  task: string;
  streamKeyPath: string | null;
  rows: StreamRow[];
  /** Heads read for this page. */
  scanned: number;
  /** More live streams than the heads read: the ranking covers the oldest `scanned` heads. */
  truncated: boolean;
  /** The first-behind id the next page starts after. */
  nextCursor: number | null;
  at: Date;
}

export async function getTaskStreams(db: Db, raw: z.input<typeof taskStreamsInput>, now = new Date()): Promise<TaskStreamsView> {
  const input = taskStreamsInput.parse(raw);
  const rt = (await readActiveTasks(db)).find((t) => t.task === input.task);
  if (!rt) throw CoreError.notFound(`task "${input.task}"`);
  const page = await readBlockedStreams(db, input.task, { afterFirstBehindId: input.after ?? null, limit: input.limit + 1, scan: STREAM_HEAD_SCAN, countCap: STREAM_BEHIND_CAP });
  const more = page.rows.length > input.limit;
  const rows: StreamRow[] = page.rows.slice(0, input.limit).map((r) => {
    const status = streamHeadStatus({ state: r.head_state, attempts: r.attempts, runAt: r.run_at }, now);
    return {
      stream: r.stream_key,
      headId: r.head_id,
      headHref: executionHref(r.head_id),
      status,
      headAgeMs: Math.max(0, now.getTime() - r.enqueued_at.getTime()),
      attempt: r.attempts,
      nextRetryAt: status === 'retry-scheduled' || status === 'scheduled' ? r.run_at : null,
      lastError: r.last_error,
      leaseExpiresAt: r.head_state === 'running' ? r.lease_expires_at : null,
      behind: r.behind,
      behindCapped: r.behind >= STREAM_BEHIND_CAP,
      blockedForMs: Math.max(0, now.getTime() - r.first_behind_enqueued_at.getTime()),
      firstBehindId: r.first_behind_id,
    };
  });
  const last = rows[rows.length - 1];
  const nextCursor = more && last ? last.firstBehindId : null;
  const streamKeyPath = (rt.definition as { stream?: { keyPath?: unknown } } | null)?.stream?.keyPath;
  return { task: input.task, streamKeyPath: typeof streamKeyPath === 'string' ? streamKeyPath : null, rows, scanned: page.scanned, truncated: page.truncated, nextCursor, at: now };
}
