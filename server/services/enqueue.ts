// Enqueue: resolve keys and route with server/core, then one transaction that takes the
// locks in the engine's order, decides backpressure per partition on exact depths,
// inserts the batch in one statement (spilled ones into `overflow`) and moves the
// counters. A reject rolls the whole call back and throws TOO_MANY_REQUESTS with the
// Retry-After; a shed is reported per execution; a throttle delays the executions.
//
// Early insert (a batch without stream keys, the common case): the insert goes in BEFORE
// the partition counter rows are locked, and the counters and the +queued slot_deltas
// row go in one statement after the decision, so the counter rows are held for two
// round trips (lock + decide, write) and the commit instead of six with the insert, the
// batch's heaviest statement, inside. Every claim and finish waits for those rows while
// it holds the task lock (sluice_cycle locks them right after task_runtime), so an
// enqueue's time on them counted against every coordinator of the task: in bench:soak
// (2026-11-24, 3 coordinators, 400-row batches every 100 ms) the cycle waited 100 ms on
// average for them, the insert taking 280 ms under a load of 8–10 (docs/benchmarks.md).
// The uncommitted rows are invisible to claimers and hold no lock anyone waits for (no
// stream advisory lock is needed without streams; idempotency keys are locked before
// and looked up, so no other transaction inserts the same key meanwhile). The decision
// is still made on the exact depths under the lock; when it is anything but "accept
// every row, no throttle" the transaction is rolled back and the call runs again the
// locked way (partition_stats → a fair group's slot rows → stream locks → insert), so a throttle,
// spill, shed or reject behaves exactly as before. The early way is only tried when the
// depths read without a lock predict a clean accept, so a producer held back by
// backpressure does not insert and roll back every call.
import { CoreError, isCoreError } from '../core/errors';
import { DEFAULT_MAX_PAYLOAD_BYTES, jsonProblem, textProblem } from '../core/input-text';
import type { FieldError, TaskDefinition } from '../core/task-definition';
import { resolveGroupKeys, resolveRoutingKey, resolveStreamKey } from '../core/key-path';
import { routeBatch } from '../core/routing';
import { planEnqueue, type EnqueueRejection } from '../core/enqueue-plan';
import {
  addEnqueueCounters,
  claimFloorOffsets,
  addQueuedGroupKeys,
  addRejectedCounters,
  findByIdempotencyKeys,
  insertExecutions,
  insertOverflow,
  jitOffForLargeBatch,
  loadTaskForEnqueue,
  lockIdempotencyKeys,
  lockPartitions,
  lockStreams,
  streamsWithOverflow,
  type NewExecutionRow,
  type PartitionEnqueueDelta,
} from '../db/enqueue-executions';
import { roundRobinSequence } from '../db/sync-task-runtime';
import { withClient, withTransaction, type Db } from '../db/pool';
import { normalizeTraceparent, traceparentProblem } from '../core/trace-context';
import { executionPriority, PRIORITY_MAX, priorityLeadMs, taskPriority } from '../core/priority';

export interface EnqueueInput {
  payload: unknown;
  /** Explicit group keys; a group without one here reads its keyPath from the payload. */
  groups?: Record<string, string>;
  streamKey?: string;
  idempotencyKey?: string;
  delayMs?: number;
  /** Explicit hash-routing key (else routing.keyPath of the payload). */
  routingKey?: string;
  /** 0 (lowest) to PRIORITY_MAX, higher claimed first (with aging: server/core/priority.ts);
   *  absent: the task's priority.default. */
  priority?: number;
}

/** New executions are queued/blocked/spilled/shed; a deduplicated one reports its current state. */
export type EnqueueState = 'queued' | 'blocked' | 'spilled' | 'shed' | 'running' | 'succeeded' | 'dead' | 'canceled';

export interface EnqueuedExecution {
  /** null when shed (dropped by backpressure). */
  id: number | null;
  partition: number;
  state: EnqueueState;
  /** true when an execution with the same idempotency key already existed. */
  deduplicated: boolean;
}

export interface EnqueueResult {
  executions: EnqueuedExecution[];
  shed: number;
  spilled: number;
  /** throttle: how much the accepted executions were delayed. */
  throttledMs: number;
  /** Staged backpressure (issue 23): present when a partition is in the throttle stage —
   *  everything was accepted, but the producer should wait this long before the next call. */
  retryAfterMs?: number;
}

export interface EnqueueOptions {
  rand?: () => number;
  /** Per-execution payload limit (serialized JSON bytes); default DEFAULT_MAX_PAYLOAD_BYTES. */
  maxPayloadBytes?: number;
  /** W3C traceparent every execution of this call carries (docs/tracing.md): each
   *  attempt's span is its child. Invalid → BAD_REQUEST naming `traceparent` (the REST
   *  endpoint drops an invalid header before it gets here, as W3C asks of a receiver). */
  traceparent?: string | null;
}

const MAX_BATCH = 10_000;
const MAX_DELAY_MS = 7 * 86_400_000;

function prefixed(e: unknown, prefix: string): never {
  if (isCoreError(e)) {
    const errs: FieldError[] = (e.fieldErrors ?? []).map((f) => ({ path: prefix + f.path, message: f.message }));
    throw CoreError.badRequest(prefix ? `${prefix.slice(0, -1)}: ${e.message}` : e.message, errs.length ? errs : undefined);
  }
  throw e;
}

interface Prepared {
  input: EnqueueInput;
  groups: Record<string, string>;
  streamKey: string | null;
  routingKey: string | undefined;
  delayMs: number;
  priority: number;
  priorityLeadMs: number;
}

/**
 * What Postgres could not store, refused before any query (the REST schema already checks
 * this; the SDK and replays come through here only): NUL or unpaired surrogates in the
 * keys, a payload nested too deeply or over the size limit.
 */
function checkStorable(input: EnqueueInput, maxPayloadBytes: number): void {
  const p = jsonProblem(input.payload, { maxBytes: maxPayloadBytes });
  if (p) {
    const path = ['payload', ...p.path].join('.');
    throw CoreError.validation([{ path, message: p.message }]); // a size limit: PAYLOAD_TOO_LARGE
  }
  const texts: [string, unknown][] = [
    ['idempotencyKey', input.idempotencyKey],
    ['streamKey', input.streamKey],
    ['routingKey', input.routingKey],
    ...Object.entries(input.groups ?? {}).flatMap(([k, v]): [string, unknown][] => [
      [`groups`, k],
      [`groups.${k}`, v],
    ]),
  ];
  for (const [path, v] of texts) {
    const problem = typeof v === 'string' ? textProblem(v) : null;
    if (problem) throw CoreError.badRequest(`${path}: ${problem}`, [{ path, message: problem }]);
  }
}

function prepare(def: TaskDefinition, inputs: readonly EnqueueInput[], batch: boolean, maxPayloadBytes: number): Prepared[] {
  return inputs.map((input, i) => {
    const prefix = batch ? `executions.${i}.` : '';
    try {
      checkStorable(input, maxPayloadBytes);
      const delayMs = input.delayMs ?? 0;
      if (!Number.isFinite(delayMs) || delayMs < 0 || delayMs > MAX_DELAY_MS) {
        throw CoreError.badRequest(`delayMs must be between 0 and ${MAX_DELAY_MS}`, [{ path: 'delayMs', message: `must be between 0 and ${MAX_DELAY_MS}` }]);
      }
      if (input.idempotencyKey !== undefined && (typeof input.idempotencyKey !== 'string' || input.idempotencyKey === '' || input.idempotencyKey.length > 200)) {
        throw CoreError.badRequest('idempotencyKey must be a non-empty string of at most 200 characters', [
          { path: 'idempotencyKey', message: 'must be a non-empty string of at most 200 characters' },
        ]);
      }
      if (input.priority !== undefined && (!Number.isInteger(input.priority) || input.priority < 0 || input.priority > PRIORITY_MAX)) {
        throw CoreError.badRequest(`priority must be a whole number from 0 to ${PRIORITY_MAX}`, [
          { path: 'priority', message: `must be a whole number from 0 to ${PRIORITY_MAX}` },
        ]);
      }
      const prio = taskPriority(def.priority);
      const priority = executionPriority(input.priority, prio);
      const groups = resolveGroupKeys(def, input.payload, input.groups);
      const streamKey = resolveStreamKey(def, input.payload, input.streamKey) ?? null;
      const routingKey = resolveRoutingKey(def, input.payload, input.routingKey);
      return { input, groups, streamKey, routingKey, delayMs, priority, priorityLeadMs: priorityLeadMs(priority, prio.agingMs) };
    } catch (e) {
      return prefixed(e, prefix);
    }
  });
}

/** Thrown inside the transaction when the partition count changed under us; retried. */
class PartitionsChanged extends Error {}
/** Thrown inside an early-insert transaction when the decision under the lock is not
 *  "accept every row unthrottled": rolled back and run again with the insert after the locks. */
class EarlyInsertMissed extends Error {}

export async function enqueue(db: Db, taskName: string, inputs: readonly EnqueueInput[], opts: EnqueueOptions = {}): Promise<EnqueueResult> {
  if (inputs.length === 0) throw CoreError.badRequest('nothing to enqueue', [{ path: 'executions', message: 'must not be empty' }]);
  if (inputs.length > MAX_BATCH) {
    throw CoreError.badRequest(`at most ${MAX_BATCH} executions per call`, [{ path: 'executions', message: `at most ${MAX_BATCH} per call` }]);
  }
  let traceparent: string | null = null;
  if (opts.traceparent !== undefined && opts.traceparent !== null) {
    const problem = traceparentProblem(opts.traceparent);
    if (problem) throw CoreError.badRequest(`traceparent: ${problem}`, [{ path: 'traceparent', message: problem }]);
    traceparent = normalizeTraceparent(opts.traceparent);
  }
  let early = true;
  for (let attempt = 0; ; attempt++) {
    try {
      return await enqueueOnce(db, taskName, inputs, opts.rand ?? Math.random, opts.maxPayloadBytes ?? DEFAULT_MAX_PAYLOAD_BYTES, traceparent, early);
    } catch (e) {
      if (e instanceof EarlyInsertMissed && early) {
        early = false;
        continue;
      }
      if (e instanceof PartitionsChanged && attempt < 3) continue;
      throw e;
    }
  }
}

async function enqueueOnce(
  db: Db,
  taskName: string,
  inputs: readonly EnqueueInput[],
  rand: () => number,
  maxPayloadBytes: number,
  traceparent: string | null,
  earlyInsert: boolean,
): Promise<EnqueueResult> {
  const task = await loadTaskForEnqueue(db, taskName, roundRobinSequence(taskName));
  if (!task || !task.active) throw CoreError.notFound(`task "${taskName}"`);
  const def = task.definition as TaskDefinition;
  const prepared = prepare(def, inputs, inputs.length > 1, maxPayloadBytes);
  const partitions = routeBatch({
    strategy: def.routing.strategy,
    partitions: task.partitions,
    keys: prepared.map((p) => p.routingKey),
    ...(def.routing.keyPath !== undefined ? { keyPath: def.routing.keyPath } : {}),
    counterStart: task.counter,
    ...(def.routing.strategy === 'least-loaded' ? { depths: padDepths(task.depths, task.partitions) } : {}),
    rand,
  });

  const n = prepared.length;
  const results: (EnqueuedExecution | undefined)[] = new Array(n);
  let rejection: EnqueueRejection | null = null;
  return withClient(db, async (conn) => {
    try {
      return await withTransaction(conn, async (client) => {
        await jitOffForLargeBatch(client, n);
        // 1. Idempotency: existing executions (or an earlier row of this batch) win.
        const idemKeys = prepared.map((p) => p.input.idempotencyKey).filter((k): k is string => k !== undefined);
        const firstWithKey = new Map<string, number>();
        const live: number[] = [];
        if (idemKeys.length > 0) {
          await lockIdempotencyKeys(client, taskName, idemKeys);
          const existing = new Map((await findByIdempotencyKeys(client, taskName, idemKeys)).map((x) => [x.idempotencyKey, x]));
          prepared.forEach((p, i) => {
            const k = p.input.idempotencyKey;
            const ex = k !== undefined ? existing.get(k) : undefined;
            if (ex) {
              results[i] = { id: ex.id, partition: ex.partition, state: stateOf(ex.state), deduplicated: true };
            } else if (k !== undefined && firstWithKey.has(k)) {
              // resolved after insert from the first occurrence
            } else {
              if (k !== undefined) firstWithKey.set(k, i);
              live.push(i);
            }
          });
        } else {
          for (let i = 0; i < n; i++) live.push(i);
        }

        const row = (i: number, throttledMs: number): NewExecutionRow => ({
          partition: partitions[i]!,
          payload: prepared[i]!.input.payload,
          groups: prepared[i]!.groups,
          streamKey: prepared[i]!.streamKey,
          idempotencyKey: prepared[i]!.input.idempotencyKey ?? null,
          delayMs: prepared[i]!.delayMs + throttledMs,
          traceparent,
          priority: prepared[i]!.priority,
          priorityLeadMs: prepared[i]!.priorityLeadMs,
        });
        const resolveRepeats = () =>
          // Repeats of a key inside the batch point at its first occurrence.
          prepared.forEach((p, i) => {
            if (results[i] === undefined) {
              const first = results[firstWithKey.get(p.input.idempotencyKey!)!]!;
              results[i] = { ...first, deduplicated: true };
            }
          });

        // Early insert (see the header): no stream key in the batch, and the depths read
        // without a lock (loadTaskForEnqueue) predict "accept all, unthrottled" — so a
        // producer being refused or throttled does not insert and roll back each call.
        const predictedClean = () => {
          const predicted = planEnqueue({
            backpressure: def.backpressure,
            executions: live.map((i) => ({ index: i, partition: partitions[i]!, streamKey: null })),
            partitions: new Map(live.map((i) => [partitions[i]!, { depth: Math.max(0, task.depths[partitions[i]!] ?? 0), spilled: 0 }])),
            streamsWithSpilled: new Set(),
            rand: () => 0.5, // a prediction only: the caller's rand is kept for the decision
          });
          return !predicted.rejection && predicted.throttledMs === 0 && predicted.accepted.length === live.length;
        };
        if (earlyInsert && live.length > 0 && live.every((i) => prepared[i]!.streamKey === null) && predictedClean()) {
          const liveRows = live.map((i) => row(i, 0));
          const inserted = await insertExecutions(client, taskName, liveRows);
          const floors = claimFloorOffsets(liveRows);
          const locked = await lockPartitions(client, taskName, live.map((i) => partitions[i]!));
          const byPartition = new Map(locked.map((l) => [l.partition, l]));
          if (byPartition.size !== new Set(live.map((i) => partitions[i]!)).size) throw new PartitionsChanged();
          const plan = planEnqueue({
            backpressure: def.backpressure,
            executions: live.map((i) => ({ index: i, partition: partitions[i]!, streamKey: null })),
            partitions: byPartition,
            streamsWithSpilled: new Set(),
            rand,
          });
          if (plan.rejection || plan.throttledMs > 0 || plan.accepted.length !== live.length) throw new EarlyInsertMissed();
          const deltas = new Map<number, PartitionEnqueueDelta>();
          live.forEach((i, k) => {
            const r = inserted[k]!;
            results[i] = { id: r.id, partition: r.partition, state: r.state, deduplicated: false };
            const p = partitions[i]!;
            const stage = plan.stages.get(p);
            const d = deltas.get(p) ?? { partition: p, accepted: 0, spilled: 0, shed: 0, claimFloorMs: floors.get(p), ...(stage ? { stage } : {}) };
            d.accepted++;
            deltas.set(p, d);
          });
          const wake = live.some((i) => prepared[i]!.delayMs === 0);
          await addEnqueueCounters(client, taskName, [...deltas.values()], wake, false,
            live.flatMap((i) => Object.entries(prepared[i]!.groups) as [string, string][]));
          resolveRepeats();
          const out = results as EnqueuedExecution[];
          return { executions: out, shed: 0, spilled: 0, throttledMs: 0, ...(plan.retryAfterMs !== null ? { retryAfterMs: plan.retryAfterMs } : {}) };
        }

        // 2. Streams with spilled rows still waiting must spill again (keeps their order).
        const forcedSpillStreams = await streamsWithOverflow(
          client,
          taskName,
          live.map((i) => prepared[i]!.streamKey).filter((s): s is string => s !== null),
        );

        // 3. Partition counters, locked in order; exact depth for the backpressure decision,
        //    which is core's (core/enqueue-plan.ts): accept / spill / shed / reject, throttle.
        const locked = await lockPartitions(client, taskName, live.map((i) => partitions[i]!));
        const byPartition = new Map(locked.map((l) => [l.partition, l]));
        const wanted = new Set(live.map((i) => partitions[i]!));
        if (byPartition.size !== wanted.size) throw new PartitionsChanged();

        const plan = planEnqueue({
          backpressure: def.backpressure,
          executions: live.map((i) => ({ index: i, partition: partitions[i]!, streamKey: prepared[i]!.streamKey })),
          partitions: byPartition,
          streamsWithSpilled: forcedSpillStreams,
          rand,
        });
        if (plan.rejection) {
          rejection = plan.rejection;
          throw CoreError.tooManyRequests(
            `task "${taskName}" is over its backpressure limit (maxDepth ${def.backpressure.maxDepth} per partition): ${rejection.total} of ${n} execution(s) rejected; retry after ${rejection.retryAfterMs} ms`,
            rejection.retryAfterMs,
          );
        }
        const { accepted, spilled, shed, throttledMs } = plan;
        const stageOfPartition = plan.stages;

        // 4. The keys' +queued (a slot_deltas row, folded later), then 5. stream locks,
        //    then 6. the inserts.
        await addQueuedGroupKeys(
          client,
          taskName,
          accepted.flatMap((i) => Object.entries(prepared[i]!.groups) as [string, string][]),
        );
        await lockStreams(
          client,
          taskName,
          [...accepted, ...spilled].map((i) => prepared[i]!.streamKey).filter((s): s is string => s !== null),
        );
        const acceptedRows = accepted.map((i) => row(i, throttledMs));
        const inserted = await insertExecutions(client, taskName, acceptedRows);
        const floors = claimFloorOffsets(acceptedRows);
        accepted.forEach((i, k) => {
          const r = inserted[k]!;
          results[i] = { id: r.id, partition: r.partition, state: r.state, deduplicated: false };
        });
        const parked = await insertOverflow(client, taskName, spilled.map((i) => row(i, throttledMs)));
        spilled.forEach((i, k) => {
          const r = parked[k]!;
          results[i] = { id: r.id, partition: r.partition, state: 'spilled', deduplicated: false };
        });
        shed.forEach((i) => {
          results[i] = { id: null, partition: partitions[i]!, state: 'shed', deduplicated: false };
        });

        const deltas = new Map<number, PartitionEnqueueDelta>();
        const bump = (i: number, field: 'accepted' | 'spilled' | 'shed') => {
          const p = partitions[i]!;
          const stage = stageOfPartition.get(p);
          const d = deltas.get(p) ?? { partition: p, accepted: 0, spilled: 0, shed: 0, claimFloorMs: floors.get(p), ...(stage ? { stage } : {}) };
          d[field]++;
          deltas.set(p, d);
        };
        accepted.forEach((i) => bump(i, 'accepted'));
        spilled.forEach((i) => bump(i, 'spilled'));
        shed.forEach((i) => bump(i, 'shed'));
        // Wake idle coordinators when something is claimable now (not delayed, not blocked).
        const wake = accepted.some((i, k) => inserted[k]!.state === 'queued' && prepared[i]!.delayMs + throttledMs === 0);
        await addEnqueueCounters(client, taskName, [...deltas.values()], wake, throttledMs > 0);

        resolveRepeats();
        const out = results as EnqueuedExecution[];
        return { executions: out, shed: shed.length, spilled: spilled.length, throttledMs, ...(plan.retryAfterMs !== null ? { retryAfterMs: plan.retryAfterMs } : {}) };
      });
    } catch (e) {
      // After the rollback, on the same connection (not the pool): under load every pooled
      // client may be held by a producer in this very branch, and borrowing a second one
      // would starve the pool.
      if (rejection) await addRejectedCounters(conn, taskName, rejection.byPartition).catch(() => {});
      throw e;
    }
  });
}

function padDepths(depths: number[], partitions: number): number[] {
  return Array.from({ length: partitions }, (_, i) => Math.max(0, depths[i] ?? 0));
}

const STATES: readonly EnqueueState[] = ['queued', 'blocked', 'spilled', 'shed', 'running', 'succeeded', 'dead', 'canceled'];
function stateOf(s: string): EnqueueState {
  return (STATES as readonly string[]).includes(s) ? (s as EnqueueState) : 'queued';
}
