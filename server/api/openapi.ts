// The OpenAPI 3.1 document for /api/v1, served at /api/v1/openapi.json. Request bodies
// and the query/path parameters come from the same zod schemas the handlers validate
// with, so the document cannot drift from what the server accepts; reply schemas are
// written from the presenters' and services' return types. Each operation names the
// token roles its route accepts (restRoute(roles, …)) in its description and in
// `x-sluice-roles`; test/integration/openapi-coverage.test.ts checks that every route
// file under app/api/v1 is documented here with those roles, and the other way round.
import { z } from 'zod';
import { enqueueRequestSchema } from './rest-enqueue';
import { FILTER_KEYS, deadLetterFilterSchema } from '../core/dead-letter-filter';
import { deadLetterIdInput, deadLetterListInput, fingerprintGroupsInput, replayJobIdInput, replayJobListInput } from '../presenters/dead-letters';
import { controlReplayInput, replayInput } from '../services/dead-letter-replay';
import { purgeInput, purgePreviewRequestInput } from '../services/dead-letter-purge';
import { CANCELABLE_STATES } from '../core/execution-cancel-filter';
import { cancelMatchingInput, cancelPreviewInput } from '../services/execution-cancel-matching';
import { EXECUTION_FILTER_KEYS, EXECUTION_ORDERS, EXECUTION_SCAN_WINDOW, EXECUTION_STATES, executionFilterSchema } from '../core/execution-filter';
import { executionListInput } from '../presenters/execution';
import { TOKEN_ACCESS, type TokenRole } from '../core/roles';
import { CORE_ERROR_CODES } from '../core/errors';

type JsonSchema = Record<string, unknown>;

/** A zod schema as the JSON Schema of what a client sends (dates, which query strings and JSON carry as ISO 8601 text, as date-time strings). */
function inputSchema(schema: z.ZodType): JsonSchema {
  return z.toJSONSchema(schema, {
    unrepresentable: 'any',
    io: 'input',
    override: (ctx) => {
      if (ctx.zodSchema._zod.def.type === 'date') Object.assign(ctx.jsonSchema, { type: 'string', format: 'date-time' });
    },
  }) as JsonSchema;
}

/** One property of an object schema's JSON Schema (a query or path parameter's schema). */
function propertyOf(schema: z.ZodType, key: string): JsonSchema {
  const s = (inputSchema(schema).properties as Record<string, JsonSchema> | undefined)?.[key];
  if (!s) throw new Error(`openapi: the schema has no property ${key}`);
  return s;
}

const errorBody = {
  type: 'object',
  required: ['error', 'code'],
  properties: {
    error: { type: 'string', description: 'What went wrong, for a person.' },
    code: { type: 'string', enum: [...CORE_ERROR_CODES] },
    fieldErrors: { type: 'array', items: { type: 'object', required: ['path', 'message'], properties: { path: { type: 'string' }, message: { type: 'string' } } } },
    retryAfterMs: { type: 'integer', description: 'With 429: how long to wait before retrying.' },
  },
} as const;

const errorResponse = (description: string) => ({ description, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } });
const jsonResponse = (description: string, schema: string) => ({ description, content: { 'application/json': { schema: { $ref: `#/components/schemas/${schema}` } } } });
const jsonBody = (schema: string) => ({ required: true, content: { 'application/json': { schema: { $ref: `#/components/schemas/${schema}` } } } });

const ALL_TOKEN_ROLES: readonly TokenRole[] = TOKEN_ACCESS.any;

/** The role part of an operation: the sentence in its description, `x-sluice-roles`, and the 401 / 403 replies. */
function access(roles: readonly TokenRole[], description?: string) {
  const line = `Token roles: ${roles.join(', ')}.`;
  return {
    description: description ? `${description}\n\n${line}` : line,
    'x-sluice-roles': [...roles],
  };
}
function authErrors(roles: readonly TokenRole[]) {
  return {
    '401': errorResponse('Missing or invalid token'),
    ...(ALL_TOKEN_ROLES.every((r) => roles.includes(r)) ? {} : { '403': errorResponse(`The token's role is not one of: ${roles.join(', ')}`) }),
  };
}

const READERS: readonly TokenRole[] = TOKEN_ACCESS.read;
const OPERATOR: readonly TokenRole[] = TOKEN_ACCESS.operate;

const FILTER_DESCRIPTIONS: Record<(typeof FILTER_KEYS)[number], string> = {
  task: 'Only this task\'s dead letters.',
  fingerprint: 'Only this error fingerprint (the id a fingerprint group shows).',
  group: 'Only dead letters with this group key, as `group=key` (e.g. `tenant=acme`).',
  stream: 'Only this stream key.',
  from: 'Dead at or after this time (ISO 8601).',
  to: 'Dead before this time (ISO 8601); must be after `from`.',
  q: 'Text in the last error, case-insensitive.',
  status: '`pending`: not replayed yet; `replayed`: replayed; `all` (default).',
};

/** The dead-letter filter as query parameters: the same fields as the browser's URL (core/dead-letter-filter.ts). */
function filterQueryParameters() {
  return FILTER_KEYS.map((k) => ({ name: k, in: 'query', required: false, description: FILTER_DESCRIPTIONS[k], schema: propertyOf(deadLetterFilterSchema, k) }));
}

const dateTime = { type: 'string', format: 'date-time' } as const;
const nullableDateTime = { type: ['string', 'null'], format: 'date-time' } as const;
const groupsSchema = { type: 'object', additionalProperties: { type: 'string' }, description: 'group name → key' } as const;
const taskCounts = { type: 'array', items: { $ref: '#/components/schemas/TaskCount' } } as const;
const REPLAY_JOB_STATES = ['pending', 'running', 'paused', 'cancelled', 'completed', 'failed'] as const;

const deadLetterPathId = { name: 'id', in: 'path', required: true, description: 'A dead-letter id', schema: propertyOf(deadLetterIdInput, 'id') };
const replayJobPathId = { name: 'id', in: 'path', required: true, description: 'A replay job id', schema: propertyOf(replayJobIdInput, 'id') };
const previewPathId = { name: 'id', in: 'path', required: true, description: 'A purge preview id (from POST /api/v1/dead-letters/purge-previews)', schema: propertyOf(purgeInput, 'previewId') };

const EXECUTION_FILTER_DESCRIPTIONS: Record<(typeof EXECUTION_FILTER_KEYS)[number], string> = {
  task: 'Only this task\'s executions.',
  state: `One of ${EXECUTION_STATES.join(', ')}. \`scheduled\` = queued with run_at in the future (a delay or a retry’s backoff), \`queued\` = due; \`spilled\` = parked in the overflow table by the spill policy.`,
  group: 'Only executions with this group key, as `group=key` (e.g. `tenant=acme`).',
  stream: 'Only this stream key.',
  idempotencyKey: 'Only the execution with this idempotency key (per task; without `task`, in every task).',
  id: 'Only this execution id.',
  enqueuedFrom: 'Enqueued at or after this time (ISO 8601).',
  enqueuedTo: 'Enqueued before this time (ISO 8601).',
  finishedFrom: 'Finished at or after this time (ISO 8601).',
  finishedTo: 'Finished before this time (ISO 8601).',
  payload: 'The payload\'s value at a dot path equals a value, as `path=value` (e.g. `customer.id=42`; numbers and booleans compare as text). Not for producer tokens (403).',
};

function executionQueryParameters() {
  return [
    ...EXECUTION_FILTER_KEYS.map((k) => ({ name: k, in: 'query', required: false, description: EXECUTION_FILTER_DESCRIPTIONS[k], schema: propertyOf(executionFilterSchema, k) })),
    { name: 'order', in: 'query', required: false, description: '`newest` (default) or `oldest` first.', schema: { type: 'string', enum: [...EXECUTION_ORDERS] } },
    { name: 'cursor', in: 'query', required: false, description: 'The previous page\'s `nextCursor` (an execution id, exclusive).', schema: propertyOf(executionListInput, 'cursor') },
    { name: 'limit', in: 'query', required: false, description: 'Rows per page (1–200, default 50).', schema: propertyOf(executionListInput, 'limit') },
  ];
}

const holdSchema = {
  type: 'object',
  required: ['reason'],
  description:
    'One constraint that holds the execution now. `reason` is one of: spilled (partition, depth, maxDepth, spilledAhead), task_inactive, task_paused (task), circuit_open (task, state, since, openedAt, why, probesAt), stream_head (stream, headId, headState, headAttempts, headRetryAt, headLeaseExpiresAt, headLastError), scheduled (until, kind: retry_backoff | delay, attempts), no_owner (partition, owner, ownerName, lastHeartbeatAt, ownerStopped, ownerDraining), group_full (key, group, groupKey, inFlight, limit, override), fair_share (key, group, groupKey, inFlight, weight, share, times: with `order: fair`, the key runs at or over its weighted share while the task is full), task_full (task, inFlight, concurrency), rate_limited (key, group, groupKey, limit, per, burst, override, nextInMs), task_rate_limited (task, limit, per, burst, nextInMs).',
  properties: {
    reason: { type: 'string', enum: ['spilled', 'task_inactive', 'task_paused', 'circuit_open', 'stream_head', 'scheduled', 'no_owner', 'group_full', 'fair_share', 'task_full', 'rate_limited', 'task_rate_limited'] },
  },
  additionalProperties: true,
} as const;

const executionSchemas = {
  WhyWaiting: {
    type: 'object',
    required: ['reason', 'holds', 'text'],
    description: 'Why the execution is not running now, from the same predicates the claim uses (server/db/sql/functions/sluice_why_waiting.sql).',
    properties: {
      reason: {
        type: 'string',
        enum: ['spilled', 'task_inactive', 'task_paused', 'circuit_open', 'stream_head', 'scheduled', 'no_owner', 'group_full', 'fair_share', 'task_full', 'rate_limited', 'task_rate_limited', 'claimable', 'set_aside', 'not_waiting'],
        description: 'The first constraint that holds (`holds[0]`); `claimable` = the next claim of its partition\'s owner takes it; `set_aside` = claimable once the claim releases it from a key that has room again; `not_waiting` = running or finished.',
      },
      holds: { type: 'array', items: { $ref: '#/components/schemas/WaitingHold' }, description: 'Every constraint that holds now.' },
      text: { type: 'string', description: 'The first hold (or the claimable / not-waiting state) in words, e.g. "group key tenant=acme is full: 8/8".' },
      ahead: { type: 'integer', description: 'claimable: rows of its partition taken before it (counted up to 1,000)' },
      aheadCapped: { type: 'boolean' },
      priority: { type: 'integer', description: 'claimable / set_aside: the execution\'s priority' },
      aheadHigherPriority: { type: 'integer', description: 'claimable / set_aside: how many of `ahead` have a higher priority (claim order is priority with aging, see docs)' },
      state: { type: 'string', description: 'not_waiting: the execution\'s state' },
    },
    additionalProperties: true,
  },
  WaitingHold: holdSchema,
  ExecutionListItem: {
    type: 'object',
    description: 'An execution as the list shows it: no payload; the error\'s first 200 characters.',
    required: ['id', 'task', 'state', 'partition', 'attempts', 'groups', 'streamKey', 'idempotencyKey', 'enqueuedAt', 'runAt', 'startedAt', 'finishedAt', 'error', 'waitingOn'],
    properties: {
      id: { type: 'integer' },
      task: { type: 'string' },
      state: { type: 'string', enum: [...EXECUTION_STATES] },
      partition: { type: 'integer' },
      attempts: { type: 'integer' },
      groups: groupsSchema,
      streamKey: { type: ['string', 'null'] },
      idempotencyKey: { type: ['string', 'null'] },
      enqueuedAt: dateTime,
      runAt: dateTime,
      startedAt: nullableDateTime,
      finishedAt: nullableDateTime,
      error: { type: ['string', 'null'] },
      waitingOn: { type: ['string', 'null'], description: "the group key ('group=key') the claim set it aside on" },
    },
  },
  ExecutionListPage: {
    type: 'object',
    required: ['items', 'nextCursor', 'searched', 'count', 'counters'],
    properties: {
      items: { type: 'array', items: { $ref: '#/components/schemas/ExecutionListItem' } },
      nextCursor: { type: ['integer', 'null'], description: 'Pass as `cursor` for the next page; null at the end.' },
      searched: {
        type: ['object', 'null'],
        description: `Filters without an index of their own (anything but id, idempotencyKey, state=running) read at most ${EXECUTION_SCAN_WINDOW.toLocaleString('en-US')} ids per page: the id range [from, to) this page searched. A page can hold fewer rows than \`limit\` (even none) and still have a \`nextCursor\`: the search continues there.`,
        properties: { from: { type: 'integer' }, to: { type: 'integer' }, reachedEnd: { type: 'boolean' }, window: { type: 'integer' } },
      },
      count: {
        type: ['object', 'null'],
        description: 'First page only. source `counter`: a live counter; `all`: every match counted (up to 10,000, `capped` beyond); `window`: the matches among the ids `searched` spans.',
        properties: { value: { type: 'integer' }, capped: { type: 'boolean' }, source: { type: 'string', enum: ['counter', 'all', 'window'] } },
      },
      counters: {
        type: ['object', 'null'],
        description: 'First page only: the live counters of the task (or all tasks) and of the group key.',
        additionalProperties: true,
      },
    },
  },
};

/** Reply schemas of the dead-letter routes, from the presenters' and services' return types (server/presenters/dead-letters.ts, server/services/dlq-*.ts). */
const deadLetterSchemas = {
  TaskCount: {
    type: 'object',
    required: ['task', 'count'],
    properties: { task: { type: 'string' }, count: { type: 'integer' } },
  },
  DeadLetterListItem: {
    type: 'object',
    description: 'A dead letter as the list shows it: the error\'s first 300 characters, no payload or stack.',
    required: ['id', 'executionId', 'task', 'fingerprint', 'error', 'attempts', 'partition', 'streamKey', 'groups', 'enqueuedAt', 'deadAt', 'deadAtKey', 'replayedAt', 'replayExecutionId'],
    properties: {
      id: { type: 'integer' },
      executionId: { type: 'integer' },
      task: { type: 'string' },
      fingerprint: { type: 'string' },
      error: { type: 'string', description: 'the first 300 characters of the last error' },
      attempts: { type: 'integer' },
      partition: { type: 'integer' },
      streamKey: { type: ['string', 'null'] },
      groups: groupsSchema,
      enqueuedAt: dateTime,
      deadAt: dateTime,
      deadAtKey: { type: 'string', description: 'deadAt in UTC with microseconds (the page cursor\'s time part)' },
      replayedAt: nullableDateTime,
      replayExecutionId: { type: ['integer', 'null'] },
    },
  },
  DeadLetterPage: {
    type: 'object',
    required: ['items', 'nextCursor', 'count', 'countCapped'],
    properties: {
      items: { type: 'array', items: { $ref: '#/components/schemas/DeadLetterListItem' } },
      nextCursor: { type: ['string', 'null'], description: 'pass back as `cursor` for the next page; null on the last page' },
      count: {
        type: ['integer', 'null'],
        description: 'matching dead letters, counted up to 10,000 (200 with a `q` text filter); null on later pages (not recounted)',
      },
      countCapped: { type: 'boolean', description: 'true when `count` stopped at its cap (there are more)' },
    },
  },
  DeadLetter: {
    type: 'object',
    description: 'A dead letter in full: payload and stack included. One line of a purge preview\'s export.',
    required: [
      'id', 'executionId', 'task', 'payload', 'groups', 'streamKey', 'idempotencyKey', 'partition', 'attempts', 'lastError', 'stack',
      'fingerprint', 'enqueuedAt', 'deadAt', 'replayedAt', 'replayExecutionId',
    ],
    properties: {
      id: { type: 'integer' },
      executionId: { type: 'integer' },
      task: { type: 'string' },
      payload: { description: 'the execution\'s payload, as enqueued' },
      groups: groupsSchema,
      streamKey: { type: ['string', 'null'] },
      idempotencyKey: { type: ['string', 'null'] },
      partition: { type: 'integer' },
      attempts: { type: 'integer' },
      lastError: { type: 'string' },
      stack: { type: ['string', 'null'] },
      fingerprint: { type: 'string' },
      enqueuedAt: dateTime,
      deadAt: dateTime,
      replayedAt: nullableDateTime,
      replayExecutionId: { type: ['integer', 'null'] },
    },
  },
  DeadLetterAttempt: {
    type: 'object',
    required: ['attempt', 'startedAt', 'failedAt', 'outcome', 'error', 'stack', 'fingerprint', 'coordinatorId'],
    properties: {
      attempt: { type: 'integer' },
      startedAt: nullableDateTime,
      failedAt: dateTime,
      outcome: { type: 'string', enum: ['retry', 'dead'] },
      error: { type: 'string' },
      stack: { type: ['string', 'null'] },
      fingerprint: { type: ['string', 'null'] },
      coordinatorId: { type: ['string', 'null'] },
    },
  },
  DeadLetterReplay: {
    type: 'object',
    description: 'This dead letter\'s item in a replay job.',
    required: ['jobId', 'jobState', 'itemState', 'executionId', 'doneAt', 'error', 'byLabel', 'byType', 'requestedAt'],
    properties: {
      jobId: { type: 'integer' },
      jobState: { type: 'string', enum: [...REPLAY_JOB_STATES] },
      itemState: { type: 'string', enum: ['pending', 'replayed', 'skipped', 'failed'] },
      executionId: { type: ['integer', 'null'], description: 'the new execution, once replayed' },
      doneAt: nullableDateTime,
      error: { type: ['string', 'null'] },
      byLabel: { type: 'string', description: 'who requested the replay' },
      byType: { type: 'string' },
      requestedAt: dateTime,
    },
  },
  DeadLetterDetail: {
    allOf: [
      { $ref: '#/components/schemas/DeadLetter' },
      {
        type: 'object',
        required: ['replayExecutionState', 'attemptsLog', 'replays'],
        properties: {
          replayExecutionState: { type: ['string', 'null'], description: 'state of the replayed execution, when it still exists' },
          attemptsLog: { type: 'array', items: { $ref: '#/components/schemas/DeadLetterAttempt' }, description: 'every failed attempt, in order' },
          replays: { type: 'array', items: { $ref: '#/components/schemas/DeadLetterReplay' } },
        },
      },
    ],
  },
  FingerprintGroups: {
    type: 'object',
    required: ['groups', 'sampledNewest'],
    properties: {
      groups: {
        type: 'array',
        description: 'biggest groups first',
        items: {
          type: 'object',
          required: ['fingerprint', 'count', 'pending', 'firstSeen', 'lastSeen', 'tasks', 'sampleError'],
          properties: {
            fingerprint: { type: 'string' },
            count: { type: 'integer' },
            pending: { type: 'integer', description: 'not replayed yet' },
            firstSeen: nullableDateTime,
            lastSeen: nullableDateTime,
            tasks: { type: 'array', items: { type: 'string' } },
            sampleError: { type: 'string', description: 'the newest error text (first 300 characters)' },
          },
        },
      },
      sampledNewest: {
        type: ['integer', 'null'],
        description: 'null: exact over every matching dead letter; else the counts cover only the newest this many',
      },
    },
  },
  ReplayJob: {
    type: 'object',
    required: [
      'id', 'state', 'scope', 'filter', 'resetAttempts', 'ratePerS', 'total', 'replayed', 'skipped', 'failed', 'createdByType', 'createdByLabel',
      'createdAt', 'startedAt', 'finishedAt', 'updatedAt', 'leaseOwner', 'leaseExpiresAt', 'lastError', 'requestId',
    ],
    properties: {
      id: { type: 'integer' },
      state: { type: 'string', enum: [...REPLAY_JOB_STATES] },
      scope: { type: 'string', enum: ['ids', 'filter'] },
      filter: { type: 'object', description: 'the filter (scope `filter`) or `{ids: [...]}` (scope `ids`), as given' },
      resetAttempts: { type: 'boolean' },
      ratePerS: { type: ['number', 'null'], description: 'executions per second; null = as fast as enqueue goes' },
      total: { type: 'integer', description: 'dead letters frozen into the job' },
      replayed: { type: 'integer' },
      skipped: { type: 'integer' },
      failed: { type: 'integer' },
      createdByType: { type: 'string' },
      createdByLabel: { type: 'string' },
      createdAt: dateTime,
      startedAt: nullableDateTime,
      finishedAt: nullableDateTime,
      updatedAt: dateTime,
      leaseOwner: { type: ['string', 'null'] },
      leaseExpiresAt: nullableDateTime,
      lastError: { type: ['string', 'null'] },
      requestId: { type: ['string', 'null'] },
    },
  },
  ReplayJobProgress: {
    allOf: [
      { $ref: '#/components/schemas/ReplayJob' },
      {
        type: 'object',
        required: ['processed', 'progress', 'outcomes'],
        properties: {
          processed: { type: 'integer', description: 'replayed + skipped + failed' },
          progress: { type: 'number', minimum: 0, maximum: 1 },
          outcomes: {
            type: 'object',
            description:
              'What became of the new executions: succeeded, failed again (dead), canceled, still running (queued, blocked, scheduled, spilled or running), or removed by retention (outcome unknown). Counts cover at most the first 10,000 replayed items (`capped`).',
            required: ['succeeded', 'failedAgain', 'canceled', 'running', 'removed', 'checked', 'capped'],
            properties: {
              succeeded: { type: 'integer' },
              failedAgain: { type: 'integer' },
              canceled: { type: 'integer' },
              running: { type: 'integer' },
              removed: { type: 'integer' },
              checked: { type: 'integer' },
              capped: { type: 'boolean' },
            },
          },
        },
      },
    ],
  },
  ReplayJobList: {
    type: 'object',
    required: ['jobs'],
    properties: { jobs: { type: 'array', description: 'newest first', items: { $ref: '#/components/schemas/ReplayJobProgress' } } },
  },
  ReplayRequest: inputSchema(replayInput.extend({ dryRun: z.boolean().optional() })),
  ReplayJobCreated: {
    type: 'object',
    required: ['job', 'total', 'alreadyReplayed', 'byTask', 'existing', 'dryRun'],
    properties: {
      job: { anyOf: [{ $ref: '#/components/schemas/ReplayJob' }, { type: 'null' }], description: 'null for a dry run' },
      total: { type: 'integer', description: 'dead letters frozen into the job (would be, for a dry run)' },
      alreadyReplayed: { type: 'integer', description: 'matched but already replayed, left out' },
      byTask: taskCounts,
      existing: { type: 'boolean', description: 'true when the request id matched an existing job (nothing new was created; counts are the job\'s)' },
      dryRun: { type: 'boolean' },
    },
  },
  PurgePreviewRequest: inputSchema(purgePreviewRequestInput),
  PurgePreview: {
    type: 'object',
    required: ['id', 'total', 'expiresAt', 'byTask', 'oldestDeadAt', 'newestDeadAt', 'confirmation'],
    properties: {
      id: { type: ['string', 'null'], format: 'uuid', description: 'the frozen set (send it as `previewId`); null for a dry run' },
      total: { type: 'integer', description: 'dead letters in the frozen set' },
      expiresAt: { ...dateTime, description: 'purge before this (30 minutes after the preview)' },
      byTask: taskCounts,
      oldestDeadAt: nullableDateTime,
      newestDeadAt: nullableDateTime,
      confirmation: { type: 'string', description: 'what to send as `confirm`, e.g. "purge 5"' },
      dryRun: { type: 'boolean', description: 'present (true) only on a dry run' },
    },
  },
  PurgeRequest: inputSchema(purgeInput),
  PurgeResult: {
    type: 'object',
    required: ['previewId', 'frozen', 'deleted', 'byTask'],
    properties: {
      previewId: { type: 'string', format: 'uuid' },
      frozen: { type: 'integer', description: 'dead letters in the frozen set' },
      deleted: { type: 'integer', description: 'deleted now (rows of the set already gone are not counted)' },
      byTask: taskCounts,
    },
  },
};

const deadLetterPaths = {
  '/api/v1/dead-letters': {
    get: {
      operationId: 'listDeadLetters',
      tags: ['Dead letters'],
      summary: 'Dead letters matching a filter, newest first, a page at a time',
      ...access(READERS, 'Keyset pages: pass `nextCursor` back as `cursor` (with the same filter) for the next page. The filter fields are the browser\'s.'),
      parameters: [
        ...filterQueryParameters(),
        { name: 'cursor', in: 'query', required: false, description: '`nextCursor` of the previous page', schema: propertyOf(deadLetterListInput, 'cursor') },
        { name: 'limit', in: 'query', required: false, description: 'page size', schema: propertyOf(deadLetterListInput, 'limit') },
      ],
      responses: {
        '200': jsonResponse('A page of dead letters', 'DeadLetterPage'),
        '400': errorResponse('Invalid filter, cursor or limit, with errors field by field'),
        ...authErrors(READERS),
      },
    },
  },
  '/api/v1/dead-letters/{id}': {
    get: {
      operationId: 'getDeadLetter',
      tags: ['Dead letters'],
      summary: 'One dead letter: payload, groups, stream, every attempt, last stack and its replays',
      ...access(READERS),
      parameters: [deadLetterPathId],
      responses: {
        '200': jsonResponse('The dead letter', 'DeadLetterDetail'),
        '400': errorResponse('Malformed id'),
        ...authErrors(READERS),
        '404': errorResponse('No such dead letter'),
      },
    },
  },
  '/api/v1/dead-letters/fingerprints': {
    get: {
      operationId: 'listDeadLetterFingerprints',
      tags: ['Dead letters'],
      summary: 'Dead letters matching a filter, grouped by error fingerprint, biggest groups first',
      ...access(
        READERS,
        'Exact with no filter or only `task` / `fingerprint`; with any other filter the counts cover the newest 50,000 matching dead letters and `sampledNewest` says so.',
      ),
      parameters: [...filterQueryParameters(), { name: 'limit', in: 'query', required: false, description: 'how many groups', schema: propertyOf(fingerprintGroupsInput, 'limit') }],
      responses: {
        '200': jsonResponse('The fingerprint groups', 'FingerprintGroups'),
        '400': errorResponse('Invalid filter or limit, with errors field by field'),
        ...authErrors(READERS),
      },
    },
  },
  '/api/v1/dead-letters/replay': {
    post: {
      operationId: 'replayDeadLetters',
      tags: ['Dead letters'],
      summary: 'Replay a selection of dead letters, or all matching a filter, as a tracked background job',
      ...access(
        OPERATOR,
        'Freezes the set (minus dead letters already replayed) into a job and returns it; watch it at `/api/v1/dead-letters/replay-jobs/{id}`. ' +
          '`requestId` (or the `Idempotency-Key` header, when the body has none) makes the call idempotent: a repeat returns the same job with `existing: true`. ' +
          '`dryRun: true` reports the counts and creates nothing. Audited.',
      ),
      parameters: [
        { name: 'Idempotency-Key', in: 'header', required: false, description: 'stands in for `requestId` when the body has none', schema: propertyOf(replayInput, 'requestId') },
      ],
      requestBody: jsonBody('ReplayRequest'),
      responses: {
        '200': jsonResponse('Dry run: what would be replayed (`job` is null)', 'ReplayJobCreated'),
        '202': jsonResponse('The job was created, or already existed for this request id (`existing: true`)', 'ReplayJobCreated'),
        '400': errorResponse('Invalid body, with errors field by field'),
        ...authErrors(OPERATOR),
        '409': errorResponse('Nothing to replay (no dead letters match, or all were already replayed), or a replay with this request id is still being created'),
      },
    },
  },
  '/api/v1/dead-letters/replay-jobs': {
    get: {
      operationId: 'listReplayJobs',
      tags: ['Dead letters'],
      summary: 'Recent replay jobs with their progress, newest first',
      ...access(READERS, 'For older jobs pass the last id shown as `beforeId`.'),
      parameters: [
        { name: 'limit', in: 'query', required: false, schema: propertyOf(replayJobListInput, 'limit') },
        { name: 'beforeId', in: 'query', required: false, description: 'only jobs with a smaller id', schema: propertyOf(replayJobListInput, 'beforeId') },
      ],
      responses: {
        '200': jsonResponse('The jobs', 'ReplayJobList'),
        '400': errorResponse('Invalid limit or beforeId'),
        ...authErrors(READERS),
      },
    },
  },
  '/api/v1/dead-letters/replay-jobs/{id}': {
    get: {
      operationId: 'getReplayJob',
      tags: ['Dead letters'],
      summary: 'A replay job: state, counters and progress (0…1)',
      ...access(READERS),
      parameters: [replayJobPathId],
      responses: {
        '200': jsonResponse('The job', 'ReplayJobProgress'),
        '400': errorResponse('Malformed id'),
        ...authErrors(READERS),
        '404': errorResponse('No such replay job'),
      },
    },
  },
  '/api/v1/dead-letters/replay-jobs/{id}/{action}': {
    post: {
      operationId: 'controlReplayJob',
      tags: ['Dead letters'],
      summary: 'Pause, resume or cancel a replay job',
      ...access(OPERATOR, 'pause: pending or running → paused; resume: paused → pending; cancel: pending, running or paused → cancelled. No body. Audited.'),
      parameters: [replayJobPathId, { name: 'action', in: 'path', required: true, schema: propertyOf(controlReplayInput, 'action') }],
      responses: {
        '200': jsonResponse('The job in its new state', 'ReplayJob'),
        '400': errorResponse('Malformed id or unknown action'),
        ...authErrors(OPERATOR),
        '404': errorResponse('No such replay job'),
        '409': errorResponse('The job\'s state does not allow this action'),
      },
    },
  },
  '/api/v1/dead-letters/purge-previews': {
    post: {
      operationId: 'previewDeadLetterPurge',
      tags: ['Dead letters'],
      summary: 'Step 1 of a purge: freeze the exact set (a selection, or all matching a filter) and count it',
      ...access(
        OPERATOR,
        'Nothing is deleted. Dead letters that arrive later are never in the set. The reply\'s `confirmation` is what to send as `confirm` to `POST /api/v1/dead-letters/purge`, within 30 minutes. `dryRun: true` reports the same counts and stores nothing.',
      ),
      requestBody: jsonBody('PurgePreviewRequest'),
      responses: {
        '200': jsonResponse('Dry run: the counts (`id` is null, `dryRun` is true)', 'PurgePreview'),
        '201': jsonResponse('The frozen set', 'PurgePreview'),
        '400': errorResponse('Invalid scope, with errors field by field'),
        ...authErrors(OPERATOR),
      },
    },
  },
  '/api/v1/dead-letters/purge-previews/{id}/export': {
    get: {
      operationId: 'exportDeadLetterPurgePreview',
      tags: ['Dead letters'],
      summary: 'Download a purge preview\'s frozen set as JSON lines, before purging it',
      ...access(
        OPERATOR,
        'One `DeadLetter` per line, in id order, streamed page by page as an attachment. The preview is checked and the first page read before the reply starts, so an unknown preview is a 404 and an already purged set a 409.',
      ),
      parameters: [previewPathId],
      responses: {
        '200': {
          description: 'The frozen dead letters, one JSON object (a DeadLetter) per line',
          headers: { 'Content-Disposition': { schema: { type: 'string' }, description: 'attachment; filename="dead-letters-<id>.jsonl"' } },
          content: {
            'application/x-ndjson': {
              schema: { type: 'string', description: 'newline-delimited JSON: one DeadLetter object per line (x-sluice-line-schema)' },
              'x-sluice-line-schema': { $ref: '#/components/schemas/DeadLetter' },
            },
          },
        },
        '400': errorResponse('Malformed preview id'),
        ...authErrors(OPERATOR),
        '404': errorResponse('No such purge preview'),
        '409': errorResponse('The set was already purged: nothing left to export'),
      },
    },
  },
  '/api/v1/dead-letters/purge': {
    post: {
      operationId: 'purgeDeadLetters',
      tags: ['Dead letters'],
      summary: 'Step 2 of a purge: delete exactly a preview\'s frozen set, once',
      ...access(OPERATOR, 'Send the preview\'s id and its `confirmation` phrase (`purge <count>`) as `confirm`. Audited with the filter and the counts.'),
      requestBody: jsonBody('PurgeRequest'),
      responses: {
        '200': jsonResponse('Purged', 'PurgeResult'),
        '400': errorResponse('Invalid body, or `confirm` is not the preview\'s confirmation phrase'),
        ...authErrors(OPERATOR),
        '404': errorResponse('No such purge preview'),
        '409': errorResponse('This set was already purged'),
        '412': errorResponse('The preview has expired; preview the purge again'),
      },
    },
  },
};

// Operator actions on executions (services/execution-actions.ts, execution-cancel-matching.ts).
const executionPathId = { name: 'id', in: 'path', required: true, description: 'An execution id', schema: { type: 'string', pattern: '^[0-9]{1,16}$' } };
const stateCounts = {
  type: 'array',
  items: { type: 'object', required: ['state', 'count'], properties: { state: { type: 'string', enum: [...CANCELABLE_STATES] }, count: { type: 'integer' } } },
} as const;

const executionActionSchemas = {
  CancelExecutionResult: {
    type: 'object',
    required: ['id', 'task', 'prior', 'result'],
    properties: {
      id: { type: 'integer' },
      task: { type: 'string' },
      prior: { type: 'string', enum: [...CANCELABLE_STATES], description: 'the state it was canceled from' },
      result: {
        type: 'string',
        enum: ['canceled', 'requested'],
        description: 'canceled: done now. requested: it was running; its coordinator aborts the handler\'s AbortSignal and records `canceled`, freeing its slots and stream then',
      },
    },
  },
  RetryNowResult: {
    type: 'object',
    required: ['id', 'task', 'previousRunAt', 'runAt'],
    properties: { id: { type: 'integer' }, task: { type: 'string' }, previousRunAt: dateTime, runAt: dateTime },
  },
  CancelPreviewRequest: inputSchema(cancelPreviewInput),
  CancelPreview: {
    type: 'object',
    required: ['id', 'task', 'total', 'expiresAt', 'byState', 'oldestEnqueuedAt', 'newestEnqueuedAt', 'confirmation'],
    properties: {
      id: { type: ['string', 'null'], format: 'uuid', description: 'the frozen set (send it as `previewId`); null for a dry run' },
      task: { type: 'string' },
      total: { type: 'integer', description: 'executions in the frozen set' },
      expiresAt: { ...dateTime, description: 'cancel before this (30 minutes after the preview)' },
      byState: stateCounts,
      oldestEnqueuedAt: nullableDateTime,
      newestEnqueuedAt: nullableDateTime,
      confirmation: { type: 'string', description: 'what to send as `confirm`, e.g. "cancel 1200"' },
      dryRun: { type: 'boolean', description: 'present (true) only on a dry run' },
    },
  },
  CancelPreviewStatus: {
    type: 'object',
    required: ['id', 'task', 'filter', 'total', 'createdByLabel', 'createdAt', 'expiresAt', 'appliedAt', 'appliedCount', 'appliedByLabel', 'expired'],
    properties: {
      id: { type: 'string', format: 'uuid' },
      task: { type: 'string' },
      filter: { type: 'object', description: 'the filter as frozen' },
      total: { type: 'integer' },
      createdByLabel: { type: 'string' },
      createdAt: dateTime,
      expiresAt: dateTime,
      appliedAt: nullableDateTime,
      appliedCount: { type: ['integer', 'null'] },
      appliedByLabel: { type: ['string', 'null'] },
      expired: { type: 'boolean' },
    },
  },
  CancelMatchingRequest: inputSchema(cancelMatchingInput),
  CancelMatchingResult: {
    type: 'object',
    required: ['previewId', 'task', 'frozen', 'canceled', 'requested', 'skipped', 'byPriorState'],
    properties: {
      previewId: { type: 'string', format: 'uuid' },
      task: { type: 'string' },
      frozen: { type: 'integer', description: 'executions in the frozen set' },
      canceled: { type: 'integer', description: 'canceled now (were queued, scheduled, blocked or spilled)' },
      requested: { type: 'integer', description: 'running (the filter named `running`): their coordinators abort and record them' },
      skipped: { type: 'integer', description: 'frozen ids that finished meanwhile (or started running when the filter did not name `running`)' },
      byPriorState: stateCounts,
    },
  },
};

const executionActionPaths = {
  '/api/v1/executions/{id}/cancel': {
    post: {
      operationId: 'cancelExecution',
      tags: ['Executions'],
      summary: 'Cancel one execution',
      ...access(
        OPERATOR,
        'Queued, scheduled, blocked or spilled: canceled now; its counters, group slots and stream (the next execution of its stream becomes claimable) are released in the same transaction (200). ' +
          'Running: the cancel is requested; its coordinator aborts the handler\'s AbortSignal and records `canceled`, which frees its slots and stream (202) — not before, so no new execution starts beside a handler still running. No body. Audited.',
      ),
      parameters: [executionPathId],
      responses: {
        '200': jsonResponse('Canceled', 'CancelExecutionResult'),
        '202': jsonResponse('Running: cancel requested', 'CancelExecutionResult'),
        '400': errorResponse('Malformed id'),
        ...authErrors(OPERATOR),
        '404': errorResponse('No such execution'),
        '409': errorResponse('Already finished (succeeded, dead or canceled): nothing to cancel'),
      },
    },
  },
  '/api/v1/executions/{id}/retry': {
    post: {
      operationId: 'retryExecutionNow',
      tags: ['Executions'],
      summary: 'Run a scheduled execution now',
      ...access(OPERATOR, 'A scheduled execution (a retry waiting out its backoff, or a delayed one) becomes due at once; idle coordinators are woken. No body. Audited.'),
      parameters: [executionPathId],
      responses: {
        '200': jsonResponse('Due now', 'RetryNowResult'),
        '400': errorResponse('Malformed id'),
        ...authErrors(OPERATOR),
        '404': errorResponse('No such execution'),
        '409': errorResponse('Not scheduled (already due, running or finished)'),
      },
    },
  },
  '/api/v1/executions/cancel-previews': {
    post: {
      operationId: 'previewExecutionCancel',
      tags: ['Executions'],
      summary: 'Step 1 of cancel-matching: freeze the exact set of one task\'s executions matching a filter and count it',
      ...access(
        OPERATOR,
        'Nothing changes. `filter.states` defaults to the backlog (queued, scheduled, blocked, spilled); add `running` to cancel running executions too. Executions enqueued later are never in the set. ' +
          'The reply\'s `confirmation` is what to send as `confirm` to `POST /api/v1/executions/cancel`, within 30 minutes. `dryRun: true` reports the same counts and stores nothing.',
      ),
      requestBody: jsonBody('CancelPreviewRequest'),
      responses: {
        '200': jsonResponse('Dry run: the counts (`id` is null, `dryRun` is true)', 'CancelPreview'),
        '201': jsonResponse('The frozen set', 'CancelPreview'),
        '400': errorResponse('Invalid filter, with errors field by field'),
        ...authErrors(OPERATOR),
      },
    },
  },
  '/api/v1/executions/cancel-previews/{id}': {
    get: {
      operationId: 'getExecutionCancelPreview',
      tags: ['Executions'],
      summary: 'A cancel preview: its filter, count, expiry and whether it was applied',
      ...access(OPERATOR),
      parameters: [{ name: 'id', in: 'path', required: true, description: 'A cancel preview id', schema: propertyOf(cancelMatchingInput, 'previewId') }],
      responses: {
        '200': jsonResponse('The preview', 'CancelPreviewStatus'),
        '400': errorResponse('Malformed preview id'),
        ...authErrors(OPERATOR),
        '404': errorResponse('No such cancel preview'),
      },
    },
  },
  '/api/v1/executions/cancel': {
    post: {
      operationId: 'cancelMatchingExecutions',
      tags: ['Executions'],
      summary: 'Step 2 of cancel-matching: cancel exactly a preview\'s frozen set, once',
      ...access(
        OPERATOR,
        'Send the preview\'s id and its `confirmation` phrase (`cancel <count>`) as `confirm`; `filter`, when sent, must be the preview\'s. Only the frozen ids change state. Audited with the filter and the counts.',
      ),
      requestBody: jsonBody('CancelMatchingRequest'),
      responses: {
        '200': jsonResponse('Canceled', 'CancelMatchingResult'),
        '400': errorResponse('Invalid body, or `confirm` is not the preview\'s confirmation phrase'),
        ...authErrors(OPERATOR),
        '404': errorResponse('No such cancel preview'),
        '409': errorResponse('This set was already canceled, or `filter` is not the preview\'s'),
        '412': errorResponse('The preview has expired; preview again'),
      },
    },
  },
};

export function openApiDocument(): Record<string, unknown> {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Sluice API',
      version: '1',
      description:
        'Enqueue executions of Sluice tasks and read their state; browse, replay and purge dead letters. Authenticate with an API token: `Authorization: Bearer slc_…` (create one in Settings → API tokens or with `npx sluice tokens create --name N --role producer`).\n\n' +
        'Each operation says which token roles it accepts (also as `x-sluice-roles`); any other role gets 403. Enqueue: producer or operator. List and read executions: any token (producer tokens without payloads). Cancel executions, run a scheduled one now: operator. Read dead letters and replay jobs: viewer or operator. Replay, control replay jobs, preview / export / purge: operator.',
    },
    servers: [{ url: '/' }],
    security: [{ bearer: [] }],
    tags: [
      { name: 'Executions', description: 'Enqueue, list and read executions, and why one waits' },
      { name: 'Dead letters', description: 'Browse, replay and purge dead letters (the same filters and services as the Dead letters pages and `npx sluice dlq`)' },
    ],
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'A Sluice API token (slc_…)' } },
      schemas: {
        Error: errorBody,
        EnqueueRequest: inputSchema(enqueueRequestSchema()),
        EnqueueReply: {
          type: 'object',
          required: ['executions', 'shed', 'spilled', 'throttledMs'],
          properties: {
            executions: {
              type: 'array',
              items: {
                type: 'object',
                required: ['id', 'partition', 'state', 'deduplicated'],
                properties: {
                  id: { type: ['integer', 'null'], description: 'null when the execution was shed by backpressure' },
                  partition: { type: 'integer' },
                  state: { type: 'string', enum: ['queued', 'blocked', 'spilled', 'shed', 'running', 'succeeded', 'dead', 'canceled'] },
                  deduplicated: { type: 'boolean', description: 'true when the idempotency key matched an existing execution' },
                },
              },
            },
            shed: { type: 'integer', description: 'executions dropped by the shed policy' },
            spilled: { type: 'integer', description: 'executions parked in the overflow table by the spill policy' },
            throttledMs: { type: 'integer', description: 'delay applied by the throttle policy or the throttle stage' },
            retryAfterMs: { type: 'integer', description: 'staged backpressure: a partition is in its throttle stage; everything was accepted, wait this long before the next call (also sent as Retry-After)' },
          },
        },
        Execution: {
          type: 'object',
          required: ['id', 'task', 'state', 'attempts', 'partition'],
          properties: {
            id: { type: 'integer' },
            task: { type: 'string' },
            state: { type: 'string', enum: ['blocked', 'queued', 'running', 'succeeded', 'dead', 'canceled'] },
            attempts: { type: 'integer' },
            partition: { type: 'integer' },
            groups: { type: 'object', additionalProperties: { type: 'string' } },
            streamKey: { type: ['string', 'null'] },
            lastError: { type: ['string', 'null'] },
            blocked: { type: 'boolean', description: 'queued behind an unfinished execution of its stream' },
            spilled: { type: 'boolean', description: 'parked in the overflow table by the spill policy' },
            waitingOn: {
              type: ['string', 'null'],
              description: "queued but set aside while this group key ('group=key') is at its limit; claimable again as the key's slots free",
            },
            whyWaiting: { oneOf: [{ $ref: '#/components/schemas/WhyWaiting' }, { type: 'null' }] },
            payload: { description: 'The payload; absent for producer tokens (`payloadHidden: true`) and for payloads over 1 MiB (`payloadPreview`).' },
            payloadHidden: { type: 'boolean', description: 'true for producer tokens: they never read payloads' },
            payloadPreview: { type: ['string', 'null'], description: 'the first 64 KiB of a payload over 1 MiB, as JSON text' },
            displayState: { type: 'string', enum: [...EXECUTION_STATES] },
            leaseExpiresAt: nullableDateTime,
            traceparent: { type: ['string', 'null'], description: 'the W3C traceparent it was enqueued with (version 00); its attempts are traced as children' },
            priority: { type: 'integer', description: 'claim priority, 0–1000, higher first; a waiting execution gains one level per the task\'s priority.agingMs' },
            timeline: { type: 'array', items: { type: 'object', additionalProperties: true } },
            timeout: {
              type: ['object', 'null'],
              description: "the handler timeout of its attempts: its group key's own (`source: 'key'`, with `group` and `key`) or the task's (`source: 'task'`); null when the task is no longer configured",
              properties: { ms: { type: 'integer' }, source: { type: 'string', enum: ['task', 'key'] }, group: { type: ['string', 'null'] }, key: { type: ['string', 'null'] } },
            },
          },
          additionalProperties: true,
        },
        ...executionSchemas,
        ...deadLetterSchemas,
        ...executionActionSchemas,
      },
    },
    paths: {
      '/api/v1/tasks/{task}/executions': {
        post: {
          operationId: 'enqueueExecutions',
          tags: ['Executions'],
          summary: 'Enqueue one execution, or a batch with {executions: [...]}',
          ...access(
            TOKEN_ACCESS.enqueue,
            'Routing, group keys (explicit `groups`, else each group\'s keyPath into the payload), streams and backpressure are applied per the task\'s current config. A batch is inserted in one statement. An `idempotencyKey` dedupes per task.',
          ),
          parameters: [
            { name: 'task', in: 'path', required: true, schema: { type: 'string' } },
            {
              name: 'traceparent',
              in: 'header',
              required: false,
              schema: { type: 'string' },
              description: 'W3C trace context; the executions\' attempts are traced as its children (docs/tracing.md). An invalid value is ignored, never refused.',
            },
          ],
          requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/EnqueueRequest' } } } },
          responses: {
            '202': { description: 'Accepted', content: { 'application/json': { schema: { $ref: '#/components/schemas/EnqueueReply' } } } },
            '400': errorResponse('Invalid body, with errors field by field'),
            '401': errorResponse('Missing or invalid token'),
            '403': errorResponse('The token\'s role may not enqueue'),
            '404': errorResponse('Unknown task'),
            '413': errorResponse(
              'The body is over the server\'s limit (SLUICE_MAX_BODY_BYTES, default 1 MB; refused unread), or a payload is over SLUICE_MAX_PAYLOAD_BYTES (default 256 KB) or the batch over 10,000 executions (fieldErrors name which)',
            ),
            '429': {
              ...errorResponse('Backpressure rejected the request (policy `reject`); retry after the Retry-After header (seconds)'),
              headers: { 'Retry-After': { schema: { type: 'integer' }, description: 'seconds' } },
            },
          },
        },
      },
      '/api/v1/executions': {
        get: {
          operationId: 'listExecutions',
          tags: ['Executions'],
          summary: 'List executions with filters, newest or oldest first, in keyset pages',
          ...access(
            ALL_TOKEN_ROLES,
            'The same filters as the Executions page and `npx sluice executions list`. Items carry no payload. An unknown or repeated query parameter is a 400 naming it. Producer tokens may not filter on `payload` (403): they never read payloads.',
          ),
          parameters: executionQueryParameters(),
          responses: {
            '200': jsonResponse('One page', 'ExecutionListPage'),
            '400': errorResponse('A bad filter, cursor or limit, field by field; or an unknown parameter'),
            ...authErrors(ALL_TOKEN_ROLES),
            '403': errorResponse('A producer token filtered on `payload`'),
          },
        },
      },
      '/api/v1/executions/{id}': {
        get: {
          operationId: 'getExecution',
          tags: ['Executions'],
          summary: 'An execution\'s state, attempts, last error and why it waits',
          ...access(
            ALL_TOKEN_ROLES,
            '`whyWaiting` says what holds a queued, scheduled, blocked or spilled execution right now (`waitingOn` keeps its meaning: the key the claim set it aside on). Producer tokens get everything but the payload (`payloadHidden: true`).',
          ),
          parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }],
          responses: {
            '200': { description: 'The execution', content: { 'application/json': { schema: { $ref: '#/components/schemas/Execution' } } } },
            '400': errorResponse('Malformed id'),
            '401': errorResponse('Missing or invalid token'),
            '404': errorResponse('No such execution'),
          },
        },
      },
      ...executionActionPaths,
      ...deadLetterPaths,
    },
  };
}
