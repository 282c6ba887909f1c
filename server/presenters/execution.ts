// Executions as the console, REST and the CLI read them.
//  * getExecution: one execution as GET /api/v1/executions/{id} shows it. A spilled
//    execution (parked in the overflow table, not yet drained back) reads as queued with
//    `spilled: true`; every failed attempt is listed (newest last). PK lookups only.
//  * executionDetail: that plus why it waits (sluice_why_waiting), its partition's owner,
//    its dead letter, its replay origin, its stream's neighbours and a timeline.
//  * listExecutionPage: the filtered, keyset-paginated list with counts from counters or
//    capped (server/db/list-executions.ts says how each page stays bounded).
// Inputs are parsed here so tRPC, REST and the CLI get the same field errors.
import { z } from 'zod';
import type { Db } from '../db/pool';
import { CoreError } from '../core/errors';
import {
  EXECUTION_FILTER_KEYS,
  EXECUTION_ORDERS,
  EXECUTION_SCAN_WINDOW,
  executionFilterSchema,
  filterIsIndexBounded,
  parseExecutionGroup,
  toExecutionQuery,
  type ExecutionFilter,
} from '../core/execution-filter';
import { whyWaitingFromRow, type WhyWaiting } from '../core/why-waiting';
import { replayedDeadLetterId } from '../core/replay-key';
import { timeoutOrigin, type TimeoutOrigin } from '../core/fleet-defaults';
import { storedTimeouts } from '../core/stored-definition';
import { countExecutionsCapped, executionIdBounds, listExecutions, scanWindow, type ExecutionListRow } from '../db/list-executions';

export type { ExecutionListRow };
import { readGroupKeyCounters, readTaskCounters, type ExecutionCounters } from '../db/read-execution-counters';
import { readWhyWaiting } from '../db/why-waiting';
import {
  readDeadLetterOf,
  readPartitionOwner,
  readReplayOrigin,
  readStreamNeighbours,
  type DeadLetterLinkRow,
  type PartitionOwnerRow,
  type ReplayOriginRow,
  type StreamNeighbourRow,
} from '../db/read-execution-links';
import { parseInput } from '../core/validate-input';
import { COORDINATOR_STALE_MS } from './coordinators';

export interface ExecutionAttemptView {
  attempt: number;
  outcome: 'retry' | 'dead';
  error: string;
  stack: string | null;
  fingerprint: string | null;
  coordinatorId: string | null;
  startedAt: Date | null;
  failedAt: Date;
}

export interface ExecutionView {
  id: number;
  task: string;
  state: 'queued' | 'running' | 'succeeded' | 'dead' | 'canceled';
  /** blocked: queued behind an unfinished execution of its stream. */
  blocked: boolean;
  /** Queued but set aside while one of its group keys is at its limit: that key,
   *  'group=key' (e.g. 'tenant=acme'); it becomes claimable as the key's slots free. */
  waitingOn: string | null;
  spilled: boolean;
  attempts: number;
  partition: number;
  groups: Record<string, string>;
  streamKey: string | null;
  idempotencyKey: string | null;
  /** W3C traceparent it was enqueued with (docs/tracing.md): its attempts' spans are children of it. */
  traceparent: string | null;
  /** Claim priority (higher first, with aging: server/core/priority.ts). */
  priority: number;
  lastError: string | null;
  payload: unknown;
  enqueuedAt: Date;
  runAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
  leaseOwner: string | null;
  /** running: when its lease runs out unless the coordinator renews it. */
  leaseExpiresAt: Date | null;
  /** An operator asked to cancel it (running: until its coordinator aborts and records it). */
  cancelRequestedAt: Date | null;
  attemptHistory: ExecutionAttemptView[];
}

export async function getExecution(db: Db, id: number | string): Promise<ExecutionView | null> {
  const n = typeof id === 'number' ? id : /^\d{1,18}$/.test(id) ? Number(id) : NaN;
  if (!Number.isSafeInteger(n) || n <= 0) return null;
  const r = await db.query(
    `SELECT id, task, state, attempts, partition, groups, stream_key, idempotency_key, last_error, payload,
            enqueued_at, run_at, started_at, finished_at, lease_owner, false AS spilled,
            CASE WHEN state = 'queued' THEN waiting_on END AS waiting_on, lease_expires_at, cancel_requested_at, traceparent, priority
     FROM executions WHERE id = $1
     UNION ALL
     SELECT id, task, 'queued', 0, partition, groups, stream_key, idempotency_key, NULL, payload,
            enqueued_at, run_at, NULL, NULL, NULL, true, NULL, NULL, NULL, traceparent, priority
     FROM overflow WHERE id = $1
     LIMIT 1`,
    [n],
  );
  const row = r.rows[0];
  if (!row) return null;
  const attempts = await db.query<ExecutionAttemptView>(
    `SELECT attempt, outcome, error, stack, fingerprint, coordinator_id AS "coordinatorId", started_at AS "startedAt", failed_at AS "failedAt"
     FROM execution_attempts WHERE execution_id = $1 ORDER BY attempt, id`,
    [n],
  );
  return {
    id: row.id,
    task: row.task,
    state: row.state === 'blocked' ? 'queued' : row.state,
    blocked: row.state === 'blocked',
    waitingOn: row.waiting_on,
    spilled: row.spilled,
    attempts: row.attempts,
    partition: row.partition,
    groups: row.groups,
    streamKey: row.stream_key,
    idempotencyKey: row.idempotency_key,
    traceparent: row.traceparent,
    priority: row.priority,
    lastError: row.last_error,
    payload: row.payload,
    enqueuedAt: row.enqueued_at,
    runAt: row.run_at,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
    leaseOwner: row.lease_owner,
    leaseExpiresAt: row.lease_expires_at,
    cancelRequestedAt: row.cancel_requested_at,
    attemptHistory: attempts.rows,
  };
}

// ---------------------------------------------------------------------------------
// The list
// ---------------------------------------------------------------------------------

export const EXECUTION_COUNT_CAP = 10_000;

export const executionListInput = z
  .object({
    filter: executionFilterSchema.default({}),
    order: z.enum(EXECUTION_ORDERS, { error: 'must be newest or oldest' }).default('newest'),
    /** Exclusive: the page continues after this id (in the page's order). */
    cursor: z.coerce
      .number({ error: 'is not a valid page cursor' })
      .int('is not a valid page cursor')
      .nonnegative('is not a valid page cursor')
      .max(Number.MAX_SAFE_INTEGER, 'is not a valid page cursor')
      .optional(),
    limit: z.coerce.number().int('must be a whole number').min(1, 'must be at least 1').max(200, 'must be at most 200').default(50),
  })
  .strict();
export type ExecutionListInput = z.input<typeof executionListInput>;

export interface ExecutionCount {
  value: number;
  /** more than `value` match ("10,000+") */
  capped: boolean;
  /** counter: from partition_stats / group_slots; all: every match counted (up to the cap);
   *  window: only matches among the ids `searched` spans were counted */
  source: 'counter' | 'all' | 'window';
}

export interface ExecutionListPage {
  items: ExecutionListRow[];
  nextCursor: number | null;
  /** The id range this page searched, when the filter has no index of its own to bound it. */
  searched: { from: number; to: number; reachedEnd: boolean; window: number } | null;
  /** First page only (later pages keep the one they were shown). */
  count: ExecutionCount | null;
  /** The live counters of the filter's task (or all tasks), and of its group key. */
  counters: { task: string | null; totals: ExecutionCounters; group: { key: string; queued: number; running: number } | null } | null;
}

/** Filters whose count is a counter: nothing but a task (and a group key) and a state the counters keep. */
function counterFor(f: ExecutionFilter): 'running' | 'spilled' | 'group-running' | null {
  const keys = Object.keys(f).filter((k) => f[k as keyof ExecutionFilter] !== undefined);
  const only = (...allowed: string[]) => keys.every((k) => allowed.includes(k));
  if (f.state === 'running' && only('task', 'state')) return 'running';
  if (f.state === 'spilled' && only('task', 'state')) return 'spilled';
  if (f.state === 'running' && only('task', 'state', 'group')) return 'group-running';
  return null;
}

export async function listExecutionPage(db: Db, input: ExecutionListInput): Promise<ExecutionListPage> {
  const v = parseInput(executionListInput, input);
  const cursor = v.cursor ?? null;
  const bounds = await executionIdBounds(db);
  const window = filterIsIndexBounded(v.filter) ? null : EXECUTION_SCAN_WINDOW;
  const win = bounds && window !== null ? scanWindow(bounds, v.order, cursor, window) : null;
  const query = toExecutionQuery(v.filter);
  const first = v.cursor === undefined;
  const g = first && v.filter.group ? parseExecutionGroup(v.filter.group) : null;
  const counter = counterFor(v.filter);
  // The page, and on a first page its counters and its capped count, are independent
  // reads: side by side on the pool, so a page costs the slowest of them, not their sum.
  const [page, totals, group, capped] = await Promise.all([
    listExecutions(db, query, { limit: v.limit, order: v.order, cursor, bounds, window }),
    first ? readTaskCounters(db, v.filter.task ?? null) : Promise.resolve(null),
    g ? readGroupKeyCounters(db, v.filter.task ?? null, g.name, g.key) : Promise.resolve(null),
    first && counter === null && bounds ? countExecutionsCapped(db, query, win, EXECUTION_COUNT_CAP) : Promise.resolve(null),
  ]);
  let count: ExecutionCount | null = null;
  let counters: ExecutionListPage['counters'] = null;
  if (first && totals) {
    counters = { task: v.filter.task ?? null, totals, group: g && group ? { key: `${g.name}=${g.key}`, ...group } : null };
    // A first page's window starts at an end of the id range: it spans every id when it
    // also reached the other end.
    const source = win && !win.reachedEnd ? 'window' : 'all';
    if (counter === 'running') count = { value: totals.running, capped: false, source: 'counter' };
    else if (counter === 'spilled') count = { value: totals.spilled, capped: false, source: 'counter' };
    else if (counter === 'group-running' && group) count = { value: group.running, capped: false, source: 'counter' };
    else if (capped) count = { value: capped.count, capped: capped.capped, source };
    else count = { value: 0, capped: false, source };
  }
  return {
    items: page.rows,
    nextCursor: page.nextCursor,
    searched: page.searched ? { ...page.searched, window: EXECUTION_SCAN_WINDOW } : null,
    count,
    counters,
  };
}

// ---------------------------------------------------------------------------------
// The detail
// ---------------------------------------------------------------------------------

export const executionIdInput = z.object({
  id: z.coerce
    .number({ error: 'must be an execution id' })
    .int('must be an execution id')
    .positive('must be an execution id')
    .max(Number.MAX_SAFE_INTEGER, 'must be an execution id'),
});

/** Payloads bigger than this (as JSON text) come back as a text preview, not as a value. */
export const PAYLOAD_INLINE_BYTES = 1 << 20;
export const PAYLOAD_PREVIEW_CHARS = 64 * 1024;
/** How far (in ids) the detail looks for a finished stream neighbour. */
export const NEIGHBOUR_WINDOW = 10_000;

export interface TimelineEvent {
  at: Date;
  kind: 'enqueued' | 'claimed' | 'failed' | 'succeeded' | 'dead' | 'retry_at' | 'runs_at';
  attempt: number | null;
  coordinatorId: string | null;
  detail: string | null;
}

export interface ExecutionDetail extends Omit<ExecutionView, 'payload'> {
  /** The payload, or undefined when this reader may not see payloads (producer tokens). */
  payload?: unknown;
  payloadHidden: boolean;
  payloadBytes: number | null;
  /** Set instead of `payload` when the payload is over PAYLOAD_INLINE_BYTES. */
  payloadPreview: string | null;
  /** queued / scheduled / blocked / running / succeeded / dead / spilled */
  displayState: string;
  whyWaiting: WhyWaiting | null;
  owner: PartitionOwnerRow | null;
  ownerLive: boolean;
  deadLetter: DeadLetterLinkRow | null;
  replayOrigin: ReplayOriginRow | null;
  neighbours: { previous: StreamNeighbourRow | null; next: StreamNeighbourRow | null; window: number } | null;
  timeline: TimelineEvent[];
  /** The handler timeout of its attempts: its key's own (keyPolicies[key].timeoutMs) or the
   *  task's, from the task's current definition (core/fleet-defaults.ts timeoutOrigin); null
   *  when the task is no longer configured. */
  timeout: TimeoutOrigin | null;
}

export function buildTimeline(e: ExecutionView, displayState: string): TimelineEvent[] {
  const ev: TimelineEvent[] = [{ at: e.enqueuedAt, kind: 'enqueued', attempt: null, coordinatorId: null, detail: null }];
  for (const a of e.attemptHistory) {
    if (a.startedAt) ev.push({ at: a.startedAt, kind: 'claimed', attempt: a.attempt, coordinatorId: a.coordinatorId, detail: null });
    ev.push({ at: a.failedAt, kind: a.outcome === 'dead' ? 'dead' : 'failed', attempt: a.attempt, coordinatorId: a.coordinatorId, detail: a.error.slice(0, 200) });
  }
  const recorded = new Set(e.attemptHistory.map((a) => a.attempt));
  if ((e.state === 'running' || e.state === 'succeeded') && e.startedAt && !recorded.has(e.attempts)) {
    ev.push({ at: e.startedAt, kind: 'claimed', attempt: e.attempts, coordinatorId: e.leaseOwner, detail: null });
  }
  if (e.state === 'succeeded' && e.finishedAt) ev.push({ at: e.finishedAt, kind: 'succeeded', attempt: e.attempts, coordinatorId: null, detail: null });
  if (displayState === 'scheduled') {
    ev.push({ at: e.runAt, kind: e.attempts > 0 ? 'retry_at' : 'runs_at', attempt: e.attempts + 1, coordinatorId: null, detail: null });
  }
  return ev.sort((a, b) => a.at.getTime() - b.at.getTime());
}

export async function executionDetail(db: Db, input: { id: number | string }, opts: { includePayload: boolean }): Promise<ExecutionDetail> {
  const { id } = parseInput(executionIdInput, input);
  const e = await getExecution(db, id);
  if (!e) throw CoreError.notFound(`execution ${id}`);
  const size = await db.query<{ bytes: number | null }>(
    `SELECT octet_length(payload::text) AS bytes FROM executions WHERE id = $1 UNION ALL SELECT octet_length(payload::text) FROM overflow WHERE id = $1 LIMIT 1`,
    [id],
  );
  const payloadBytes = size.rows[0]?.bytes ?? null;
  const displayState = e.spilled ? 'spilled' : e.blocked ? 'blocked' : e.state === 'queued' && e.runAt.getTime() > Date.now() ? 'scheduled' : e.state;
  const originId = replayedDeadLetterId(e.idempotencyKey);
  const [why, owner, deadLetter, replayOrigin, neighbours, definitionRow] = await Promise.all([
    readWhyWaiting(db, id, COORDINATOR_STALE_MS),
    readPartitionOwner(db, e.task, e.partition),
    e.state === 'dead' ? readDeadLetterOf(db, id) : Promise.resolve(null),
    originId !== null ? readReplayOrigin(db, originId, id) : Promise.resolve(null),
    e.streamKey !== null ? readStreamNeighbours(db, e.task, e.streamKey, id, NEIGHBOUR_WINDOW) : Promise.resolve(null),
    db.query<{ definition: unknown }>(`SELECT definition FROM task_runtime WHERE task = $1`, [e.task]),
  ]);
  const def = definitionRow.rows[0] ? storedTimeouts(definitionRow.rows[0].definition) : null;
  const { payload, ...rest } = e;
  const big = payloadBytes !== null && payloadBytes > PAYLOAD_INLINE_BYTES;
  const ownerLive = owner !== null && owner.owner !== null && !owner.stopped && !owner.draining && owner.ageMs !== null && owner.ageMs <= COORDINATOR_STALE_MS;
  return {
    ...rest,
    ...(opts.includePayload && !big ? { payload } : {}),
    payloadHidden: !opts.includePayload,
    payloadBytes: opts.includePayload ? payloadBytes : null,
    payloadPreview: opts.includePayload && big ? JSON.stringify(payload).slice(0, PAYLOAD_PREVIEW_CHARS) : null,
    displayState,
    whyWaiting: why ? whyWaitingFromRow(why) : null,
    owner,
    ownerLive,
    deadLetter,
    replayOrigin,
    neighbours: neighbours ? { ...neighbours, window: NEIGHBOUR_WINDOW } : null,
    timeline: buildTimeline(e, displayState),
    timeout: def ? timeoutOrigin(def, e.groups) : null,
  };
}

// ---------------------------------------------------------------------------------
// REST
// ---------------------------------------------------------------------------------

const QUERY_KEYS = new Set<string>([...EXECUTION_FILTER_KEYS, 'cursor', 'order', 'limit']);

/**
 * `GET /api/v1/executions?task=…&state=…&group=tenant%3Dacme&cursor=…` → the list input.
 * An unknown or repeated parameter is a 400 naming it (a typo must not widen the set).
 */
export function executionListInputFromQuery(p: URLSearchParams): ExecutionListInput {
  const seen = new Set<string>();
  for (const k of p.keys()) {
    if (!QUERY_KEYS.has(k)) throw CoreError.badRequest(`unknown query parameter "${k}"`, [{ path: k, message: 'is not a parameter of this endpoint' }]);
    if (seen.has(k)) throw CoreError.badRequest(`query parameter "${k}" is given twice`, [{ path: k, message: 'is given more than once' }]);
    seen.add(k);
  }
  const get = (k: string) => {
    const v = p.get(k);
    return v === null || v === '' ? undefined : v;
  };
  const filter: Record<string, string> = {};
  for (const k of EXECUTION_FILTER_KEYS) {
    const v = get(k);
    if (v !== undefined) filter[k] = v;
  }
  const [cursor, order, limit] = [get('cursor'), get('order'), get('limit')];
  return {
    filter: filter as ExecutionListInput['filter'],
    ...(cursor !== undefined ? { cursor: cursor as unknown as number } : {}),
    ...(order !== undefined ? { order: order as 'newest' } : {}),
    ...(limit !== undefined ? { limit: limit as unknown as number } : {}),
  };
}

/** Producer tokens read executions without payloads: they may not match on one either. */
export function refusePayloadFilter(input: ExecutionListInput): void {
  if (input.filter && (input.filter as { payload?: unknown }).payload !== undefined) {
    throw new CoreError('FORBIDDEN', 'a producer token cannot filter on payloads (producer tokens never read payloads)', {
      fieldErrors: [{ path: 'payload', message: 'not allowed for producer tokens' }],
    });
  }
}
