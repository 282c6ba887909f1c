// One OpenTelemetry span per attempt (docs/tracing.md), a child of the traceparent the
// execution was enqueued with, so the request that enqueued the work and the work are
// one trace:
//
//   process <task>            CONSUMER, from when the execution became claimable to when
//   │                         its finish was written; attributes below, status ERROR for
//   │                         a failed attempt (retry or dead)
//   ├─ sluice.claim_wait      claimable → claimed by this coordinator
//   ├─ sluice.run             the handler call; active while the handler runs, so the
//   │                         handler's own spans (@opentelemetry/api) are its children
//   └─ sluice.finish          handler returned → its outcome written (sluice_finish batch)
//
// Only built when tracing is on (main.ts gives the execution runner an AttemptTracer or
// null): with tracing off the coordinator neither imports @opentelemetry nor reads the
// traceparent column.
import type { Attributes, Context, Span } from '@opentelemetry/api';
import type pg from 'pg';
import type { TaskDefinition } from '../core/task-definition';
import type { ClaimedExecution } from '../db/claim-executions';
import { readTraceContexts, type TraceContextRow } from '../db/read-trace-contexts';
import { contextFromTraceparent, type Tracing } from '../telemetry/tracing';
import type { RunResult } from './handler-runner';

/** What the finish recorded (sluice_finish's outcome), or fenced when it matched no live lease. */
export type AttemptOutcome = 'succeeded' | 'retry' | 'dead' | 'release' | 'canceled' | 'fenced';

export class AttemptTracer {
  constructor(
    private readonly tracing: Tracing,
    private readonly pool: pg.Pool,
    private readonly coordinatorId: string,
    private readonly log: (m: string) => void,
  ) {}

  /** Trace context and claim wait of a claimed batch (one query). Never rejects: a failed
   *  read leaves those attempts as traces of their own, and the work runs anyway. */
  lookup(rows: readonly ClaimedExecution[]): Promise<Map<number, TraceContextRow>> {
    return readTraceContexts(this.pool, rows.map((r) => r.id)).catch((e: unknown) => {
      this.log(`trace context read failed (${rows.length} attempt(s) traced without their producer's parent): ${(e as Error).message}`);
      return new Map<number, TraceContextRow>();
    });
  }

  /** Starts the attempt's span; `claimedAt` (epoch ms) is when the claim returned. */
  begin(row: ClaimedExecution, def: TaskDefinition, found: TraceContextRow | undefined, claimedAt: number): AttemptTrace {
    const { api, tracer } = this.tracing;
    const waitMs = found?.waitMs ?? 0;
    const readyAt = claimedAt - waitMs;
    const attributes: Attributes = {
      'messaging.system': 'sluice',
      'messaging.operation.type': 'process',
      'messaging.destination.name': def.name,
      'messaging.message.id': String(row.id),
      'sluice.task': def.name,
      'sluice.execution.id': row.id,
      'sluice.partition': row.partition,
      'sluice.attempt': row.attempts,
      'sluice.coordinator.id': this.coordinatorId,
      'sluice.claim_wait_ms': Math.round(waitMs * 1000) / 1000,
    };
    for (const [group, key] of Object.entries(row.groups)) attributes[`sluice.group.${group}`] = key;
    if (row.streamKey !== null) attributes['sluice.stream_key'] = row.streamKey;
    const parent = contextFromTraceparent(api, found?.traceparent ?? null);
    const span = tracer.startSpan(`process ${def.name}`, { kind: api.SpanKind.CONSUMER, attributes, startTime: readyAt }, parent);
    const ctx = api.trace.setSpan(parent, span);
    tracer.startSpan('sluice.claim_wait', { startTime: readyAt }, ctx).end(claimedAt);
    return new AttemptTrace(this.tracing, span, ctx);
  }
}

export class AttemptTrace {
  private finish: Span | null = null;
  private failure: string | null = null;

  constructor(
    private readonly tracing: Tracing,
    private readonly span: Span,
    private readonly ctx: Context,
  ) {}

  /** Runs the handler call under a `sluice.run` span, which is active meanwhile. */
  async run(call: () => Promise<RunResult>): Promise<RunResult> {
    const { api, tracer } = this.tracing;
    const run = tracer.startSpan('sluice.run', {}, this.ctx);
    const res = await api.context.with(api.trace.setSpan(this.ctx, run), call);
    if (!res.ok) {
      this.failure = `${res.error.name}: ${res.error.message}`;
      run.recordException({ name: res.error.name, message: res.error.message, ...(res.error.stack ? { stack: res.error.stack } : {}) });
      run.setAttribute('sluice.timed_out', res.timedOut);
      run.setStatus({ code: api.SpanStatusCode.ERROR, message: this.failure });
    }
    run.end();
    this.finish = tracer.startSpan('sluice.finish', {}, this.ctx);
    return res;
  }

  /** The finish was written (or fenced): ends the attempt. */
  finished(outcome: AttemptOutcome): void {
    const { api } = this.tracing;
    this.finish?.setAttribute('sluice.outcome', outcome);
    this.finish?.end();
    this.span.setAttribute('sluice.outcome', outcome);
    if (outcome === 'retry' || outcome === 'dead') this.span.setStatus({ code: api.SpanStatusCode.ERROR, message: this.failure ?? outcome });
    this.span.end();
  }
}
