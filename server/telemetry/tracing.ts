// OpenTelemetry for the two Sluice processes that trace: the control plane (the REST
// enqueue request's server span, instrumentation.ts) and the coordinator (a span per
// attempt, coordinator/attempt-tracing.ts). docs/tracing.md is the user's side.
//
// Off by default and then free: startTracing() returns null without importing anything
// from @opentelemetry (server/core/tracing-settings.ts decides from the OTEL_* variables),
// and callers hold a `Tracing | null` they test before doing any work. On, it loads the
// SDK with dynamic imports, builds a BasicTracerProvider (sdk-trace-base 2.x: processors
// are given to the constructor) with a BatchSpanProcessor over the OTLP/HTTP exporter
// and/or a console exporter, and registers it, the W3C trace-context propagator and an
// AsyncLocalStorage context manager globally, so a handler's own spans (made with
// @opentelemetry/api) nest under the attempt that runs them.
//
// If the process already has a tracer provider (a handlers module that started the
// OpenTelemetry Node SDK itself), Sluice uses that one and starts none of its own.
//
// The registered Tracing is kept on globalThis: Next.js bundles instrumentation.ts and
// the route handlers separately, so a module-level variable would not be shared.
import type * as OtelApi from '@opentelemetry/api';
import type { SpanExporter } from '@opentelemetry/sdk-trace-base';
import { tracingSettings } from '../core/tracing-settings';
import { formatTraceparent, parseTraceparent } from '../core/trace-context';

export type TracingApi = typeof OtelApi;

export interface Tracing {
  api: TracingApi;
  tracer: OtelApi.Tracer;
  /** true: Sluice started the provider (and shuts it down); false: the process had one. */
  owned: boolean;
  /** Export what has ended so far. */
  flush(): Promise<void>;
  /** Flush and stop exporting (owned providers only; a no-op otherwise). */
  shutdown(): Promise<void>;
}

export interface StartTracingOptions {
  /** service.name unless OTEL_SERVICE_NAME / OTEL_RESOURCE_ATTRIBUTES say otherwise */
  serviceName: string;
  env?: Record<string, string | undefined>;
  /** Tests: export every span to this (synchronously, SimpleSpanProcessor), whatever the env says. */
  exporter?: SpanExporter;
  log?: (m: string) => void;
}

const GLOBAL_KEY = Symbol.for('sluice.tracing');
type Holder = { [GLOBAL_KEY]?: Tracing | null };

/** The Tracing started in this process (by startTracing), or null. Costs a property read. */
export function currentTracing(): Tracing | null {
  return (globalThis as Holder)[GLOBAL_KEY] ?? null;
}

export const TRACER_NAME = 'sluice';

export async function startTracing(opts: StartTracingOptions): Promise<Tracing | null> {
  const existing = currentTracing();
  if (existing) return existing;
  const log = opts.log ?? ((m: string) => console.warn(`[sluice tracing] ${m}`));
  let exporters: ('otlp' | 'console')[] = [];
  if (!opts.exporter) {
    const s = tracingSettings(opts.env ?? process.env);
    if (!s.enabled) {
      if ('problem' in s) log(`${s.problem}; tracing stays off`);
      return null;
    }
    exporters = s.exporters;
  }

  const api = await import('@opentelemetry/api');
  const base = await import('@opentelemetry/sdk-trace-base');
  const { AsyncLocalStorageContextManager } = await import('@opentelemetry/context-async-hooks');
  const { W3CTraceContextPropagator } = await import('@opentelemetry/core');
  const resources = await import('@opentelemetry/resources');

  const processors: import('@opentelemetry/sdk-trace-base').SpanProcessor[] = [];
  if (opts.exporter) processors.push(new base.SimpleSpanProcessor(opts.exporter));
  if (exporters.includes('otlp')) {
    const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-http');
    processors.push(new base.BatchSpanProcessor(new OTLPTraceExporter()));
  }
  if (exporters.includes('console')) processors.push(new base.SimpleSpanProcessor(new base.ConsoleSpanExporter()));

  const resource = resources
    .defaultResource()
    .merge(resources.resourceFromAttributes({ 'service.name': opts.serviceName }))
    .merge(resources.detectResources({ detectors: [resources.envDetector] }));
  const provider = new base.BasicTracerProvider({ resource, spanProcessors: processors });

  const owned = api.trace.setGlobalTracerProvider(provider);
  if (!owned) {
    log('a tracer provider was already registered in this process: Sluice uses it');
    await provider.shutdown();
  }
  // Each returns false (and changes nothing) when one is already registered.
  api.context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  api.propagation.setGlobalPropagator(new W3CTraceContextPropagator());

  const tracing: Tracing = {
    api,
    tracer: api.trace.getTracer(TRACER_NAME),
    owned,
    flush: () => (owned ? provider.forceFlush() : Promise.resolve()),
    shutdown: async () => {
      if (!owned) return;
      await provider.shutdown();
      api.trace.disable();
      if (currentTracing() === tracing) (globalThis as Holder)[GLOBAL_KEY] = null;
    },
  };
  (globalThis as Holder)[GLOBAL_KEY] = tracing;
  return tracing;
}

/** The W3C traceparent of a span context (version 00), as stored with an execution. */
export function traceparentOf(ctx: OtelApi.SpanContext): string {
  return formatTraceparent({ traceId: ctx.traceId, spanId: ctx.spanId, flags: ctx.traceFlags });
}

/** A context whose remote parent is `traceparent`, or ROOT when there is none (or it is invalid). */
export function contextFromTraceparent(api: TracingApi, traceparent: string | null): OtelApi.Context {
  const tp = traceparent ? parseTraceparent(traceparent) : null;
  if (!tp) return api.ROOT_CONTEXT;
  return api.trace.setSpanContext(api.ROOT_CONTEXT, { traceId: tp.traceId, spanId: tp.spanId, traceFlags: tp.flags, isRemote: true });
}
