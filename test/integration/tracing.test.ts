// OpenTelemetry end to end on real Postgres (docs/tracing.md): a REST enqueue with a
// producer's traceparent, through the real route handler, run by an in-process
// coordinator whose handler fails once and then succeeds — one trace: the producer's
// span → the request's server span → one `process <task>` span per attempt (claim wait,
// run, finish under each), the handler's own span under its run span. Spans go to an
// InMemorySpanExporter. Before tracing starts: the header is stored as received (valid)
// or ignored (invalid, never a 4xx/5xx), and the DB SDK refuses a bad one naming the field.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { trace, SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { testDatabase, type TestDatabase } from './db';
import { applyTasks, sleep } from '../support/engine-fixtures';
import { createToken } from '../../server/services/tokens';
import { SYSTEM_ACTOR } from '../../server/db/audit';
import { createDbClient } from '../../server/sdk/db';
import { drainOverflow } from '../../server/db/drain-overflow';
import { getExecution } from '../../server/presenters/execution';
import { startTracing, currentTracing, type Tracing } from '../../server/telemetry/tracing';
import { startCoordinator, type RunningCoordinator } from '../../server/coordinator/main';
import type { HandlerContext } from '../../server/coordinator/handler-runner';

const TRACE = '0af7651916cd43dd8448eb211c80319c';
const PRODUCER_SPAN = 'b7ad6b7169203331';
const HEADER = `00-${TRACE}-${PRODUCER_SPAN}-01`;

let db: TestDatabase;
let producer: string;
let route: typeof import('../../app/api/v1/tasks/[task]/executions/route');

function post(task: string, body: unknown, traceparent?: string) {
  const req = new Request(`http://127.0.0.1/api/v1/tasks/${task}/executions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${producer}`, ...(traceparent !== undefined ? { traceparent } : {}) },
    body: JSON.stringify(body),
  });
  return route.POST(req, { params: Promise.resolve({ task }) });
}

async function storedTraceparent(id: number): Promise<string | null> {
  return (await db.pool.query<{ traceparent: string | null }>('SELECT traceparent FROM executions WHERE id = $1', [id])).rows[0]!.traceparent;
}

beforeAll(async () => {
  db = await testDatabase();
  process.env.DATABASE_URL = db.url;
  route = await import('../../app/api/v1/tasks/[task]/executions/route');
  producer = (await createToken(db.pool, SYSTEM_ACTOR, { name: 'tracing', role: 'producer' })).token;
  await applyTasks(db.pool, [
    {
      name: 'traced',
      partitions: 2,
      groups: [{ name: 'tenant', limit: 2, keyPath: 'tenant' }],
      retry: { maxAttempts: 3, backoff: 'fixed', baseDelayMs: 50, maxDelayMs: 50, jitter: 0 },
    },
    { name: 'untraced', partitions: 1 },
    { name: 'spilling', partitions: 1, backpressure: { maxDepth: 1, policy: 'spill' } },
  ]);
});

describe('tracing off (the default): the traceparent is stored, nothing else happens', () => {
  it('starts no tracing without OTEL_* variables', async () => {
    expect(await startTracing({ serviceName: 'x', env: {} })).toBeNull();
    expect(currentTracing()).toBeNull();
  });

  it('a valid header is stored in its version-00 form; an invalid one is ignored with a 202', async () => {
    const cases: [string | undefined, string | null][] = [
      [HEADER, HEADER],
      [`01-${TRACE}-${PRODUCER_SPAN}-01-later-fields`, HEADER],
      [undefined, null],
      ['garbage', null],
      [`00-${'0'.repeat(32)}-${PRODUCER_SPAN}-01`, null],
      [`${HEADER}, ${HEADER}`, null], // repeated header, folded by fetch
      ['x'.repeat(8000), null],
    ];
    for (const [header, stored] of cases) {
      const res = await post('untraced', { payload: { n: 1 } }, header);
      expect(res.status, String(header).slice(0, 40)).toBe(202);
      const id = (await res.json()).executions[0].id as number;
      expect(await storedTraceparent(id)).toBe(stored);
    }
  });

  it('the service (DB SDK) refuses an invalid traceparent naming the field, and writes nothing', async () => {
    const before = (await db.pool.query('SELECT count(*)::int AS n FROM executions')).rows[0].n;
    const client = createDbClient(db.pool);
    const err = await client.enqueue('untraced', { payload: {} }, { traceparent: 'nope' }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'BAD_REQUEST', fieldErrors: [{ path: 'traceparent' }] });
    expect((await db.pool.query('SELECT count(*)::int AS n FROM executions')).rows[0].n).toBe(before);
    const ok = await client.enqueue('untraced', { payload: {} }, { traceparent: HEADER });
    expect(await storedTraceparent(ok.id!)).toBe(HEADER);
    // The execution's view (GET /api/v1/executions/{id}, the console's detail) shows it.
    expect((await getExecution(db.pool, ok.id!))?.traceparent).toBe(HEADER);
  });

  it('a spilled execution keeps its traceparent in overflow and when drained back', async () => {
    const client = createDbClient(db.pool);
    const r = await client.enqueueMany('spilling', [{ payload: { n: 1 } }, { payload: { n: 2 } }], { traceparent: HEADER });
    const spilled = r.executions.find((e) => e.state === 'spilled')!;
    expect(spilled).toBeDefined();
    expect((await db.pool.query('SELECT traceparent FROM overflow WHERE id = $1', [spilled.id])).rows[0].traceparent).toBe(HEADER);
    expect((await getExecution(db.pool, spilled.id!))).toMatchObject({ spilled: true, traceparent: HEADER });
    await db.pool.query("UPDATE executions SET state = 'canceled', finished_at = now() WHERE task = 'spilling'");
    await db.pool.query("UPDATE partition_stats SET depth = 0 WHERE task = 'spilling'");
    expect((await drainOverflow(db.pool, 'spilling', 1)).drained).toBe(1);
    expect(await storedTraceparent(spilled.id!)).toBe(HEADER);
  });
});

describe('tracing on: one trace from the REST enqueue through each attempt', () => {
  let tracing: Tracing;
  const exporter = new InMemorySpanExporter();
  let coordinator: RunningCoordinator | null = null;
  const seen: HandlerContext[] = [];

  beforeAll(async () => {
    tracing = (await startTracing({ serviceName: 'sluice-test', exporter }))!;
  });
  afterAll(async () => {
    await coordinator?.stop();
    await tracing.shutdown();
  });

  it('server span → attempt 1 (fails) and attempt 2 (succeeds), same trace, parents and attributes right', async () => {
    const res = await post('traced', { payload: { tenant: 'acme', n: 1 } }, HEADER);
    expect(res.status).toBe(202);
    const { id, partition } = (await res.json()).executions[0] as { id: number; partition: number };

    coordinator = await startCoordinator({
      databaseUrl: db.url,
      handlers: {
        traced: async (_payload, ctx) => {
          seen.push(ctx);
          // The handler's own span: a child of the attempt's run span.
          await trace.getTracer('handler').startActiveSpan('handler.work', async (s) => {
            s.end();
          });
          if (ctx.attempt === 1) throw new Error('first attempt fails');
        },
        untraced: async () => {},
        spilling: async () => {},
      },
      tasks: ['traced'],
      slots: 4,
      tracing,
      metricsPort: null,
      maintenance: false,
      timings: { pollMs: 10, heartbeatMs: 200, staleMs: 2000, flushMs: 1 },
      log: () => {},
    });
    const deadline = Date.now() + 20_000;
    for (;;) {
      const state = (await db.pool.query('SELECT state FROM executions WHERE id = $1', [id])).rows[0].state;
      if (state === 'succeeded') break;
      if (Date.now() > deadline) throw new Error(`execution ${id} still ${state}`);
      await sleep(25);
    }
    const coordinatorId = coordinator.id;
    await coordinator.stop();
    coordinator = null;
    await tracing.flush();

    const spans = exporter.getFinishedSpans();
    const byName = (n: string) => spans.filter((s) => s.name === n);
    const parentOf = (s: ReadableSpan) => s.parentSpanContext?.spanId;

    // The request's server span: a child of the producer's span, in the producer's trace.
    const [server] = byName('POST /api/v1/tasks/{task}/executions');
    expect(server).toBeDefined();
    expect(server!.kind).toBe(SpanKind.SERVER);
    expect(server!.spanContext().traceId).toBe(TRACE);
    expect(parentOf(server!)).toBe(PRODUCER_SPAN);
    expect(server!.attributes).toMatchObject({ 'http.response.status_code': 202, 'sluice.task': 'traced', 'sluice.executions': 1 });
    // What the execution carries is the server span's context.
    expect(await storedTraceparent(id)).toBe(`00-${TRACE}-${server!.spanContext().spanId}-01`);

    // One span per attempt, both children of the server span.
    const attempts = byName('process traced').sort((a, b) => Number(a.attributes['sluice.attempt']) - Number(b.attributes['sluice.attempt']));
    expect(attempts).toHaveLength(2);
    for (const [i, a] of attempts.entries()) {
      expect(a.kind).toBe(SpanKind.CONSUMER);
      expect(a.spanContext().traceId).toBe(TRACE);
      expect(parentOf(a)).toBe(server!.spanContext().spanId);
      expect(a.attributes).toMatchObject({
        'sluice.task': 'traced',
        'sluice.execution.id': id,
        'sluice.partition': partition,
        'sluice.attempt': i + 1,
        'sluice.group.tenant': 'acme',
        'sluice.coordinator.id': coordinatorId,
        'messaging.system': 'sluice',
        'messaging.destination.name': 'traced',
      });
      expect(a.attributes['sluice.claim_wait_ms']).toEqual(expect.any(Number));
    }
    expect(attempts[0]!.attributes['sluice.outcome']).toBe('retry');
    expect(attempts[0]!.status).toMatchObject({ code: SpanStatusCode.ERROR, message: 'Error: first attempt fails' });
    expect(attempts[1]!.attributes['sluice.outcome']).toBe('succeeded');
    expect(attempts[1]!.status.code).not.toBe(SpanStatusCode.ERROR);
    // The retry waited its 50 ms backoff before it could be claimed: the attempt span
    // starts when it became claimable, after the first attempt's failure.
    expect(Number(attempts[1]!.attributes['sluice.claim_wait_ms'])).toBeGreaterThanOrEqual(0);
    expect(hrMs(attempts[1]!.startTime)).toBeGreaterThan(hrMs(attempts[0]!.startTime) + 40);

    // Under each attempt: claim wait, run, finish — in that order.
    for (const a of attempts) {
      const kids = spans.filter((s) => parentOf(s) === a.spanContext().spanId);
      expect(kids.map((k) => k.name).sort()).toEqual(['sluice.claim_wait', 'sluice.finish', 'sluice.run']);
      const [wait, run, finish] = ['sluice.claim_wait', 'sluice.run', 'sluice.finish'].map((n) => kids.find((k) => k.name === n)!);
      expect(hrMs(wait!.endTime)).toBeLessThanOrEqual(hrMs(run!.startTime) + 1);
      expect(hrMs(run!.endTime)).toBeLessThanOrEqual(hrMs(finish!.startTime) + 1);
      expect(finish!.attributes['sluice.outcome']).toBe(a.attributes['sluice.outcome']);
      // The handler's own span nests under the run span.
      const work = spans.filter((s) => s.name === 'handler.work' && parentOf(s) === run!.spanContext().spanId);
      expect(work).toHaveLength(1);
      expect(work[0]!.spanContext().traceId).toBe(TRACE);
    }
    const firstRun = spans.find((s) => s.name === 'sluice.run' && parentOf(s) === attempts[0]!.spanContext().spanId)!;
    expect(firstRun.status.code).toBe(SpanStatusCode.ERROR);
    expect(firstRun.events.map((e) => e.name)).toContain('exception');
    expect(seen.map((c) => c.attempt)).toEqual([1, 2]);
  });
});

function hrMs([s, ns]: [number, number]): number {
  return s * 1000 + ns / 1e6;
}
