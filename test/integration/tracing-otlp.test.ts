// Tracing turned on the way an operator does it — OTEL_EXPORTER_OTLP_ENDPOINT and
// OTEL_SERVICE_NAME in the environment, nothing passed in code — exports OTLP/HTTP to that
// endpoint: a collector stand-in (node:http) receives POST /v1/traces with the span and
// the resource's service.name. (tracing.test.ts checks the spans themselves.)
import { describe, it, expect, afterAll } from 'vitest';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTracing, type Tracing } from '../../server/telemetry/tracing';

const received: { path: string; contentType: string; body: string }[] = [];
const collector = http.createServer(async (req, res) => {
  let body = '';
  for await (const c of req) body += c;
  received.push({ path: req.url ?? '', contentType: String(req.headers['content-type']), body });
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end('{}');
});
let tracing: Tracing | null = null;

afterAll(async () => {
  await tracing?.shutdown();
  await new Promise((r) => collector.close(r));
});

describe('OTLP export from the OTEL_* environment', () => {
  it('sends the spans to OTEL_EXPORTER_OTLP_ENDPOINT/v1/traces as OTLP JSON', async () => {
    await new Promise<void>((r) => collector.listen(0, '127.0.0.1', r));
    const endpoint = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`;
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = endpoint;
    process.env.OTEL_SERVICE_NAME = 'sluice-otlp-test';
    tracing = await startTracing({ serviceName: 'sluice-coordinator', log: () => {} });
    expect(tracing).not.toBeNull();
    expect(tracing!.owned).toBe(true);
    tracing!.tracer.startSpan('process otlp-task', { attributes: { 'sluice.task': 'otlp-task' } }).end();
    await tracing!.flush();
    expect(received).toHaveLength(1);
    expect(received[0]!.path).toBe('/v1/traces');
    expect(received[0]!.contentType).toMatch(/application\/json/);
    const body = JSON.parse(received[0]!.body);
    const rs = body.resourceSpans[0];
    expect(rs.resource.attributes).toContainEqual({ key: 'service.name', value: { stringValue: 'sluice-otlp-test' } });
    const span = rs.scopeSpans[0].spans[0];
    expect(span.name).toBe('process otlp-task');
    expect(span.attributes).toContainEqual({ key: 'sluice.task', value: { stringValue: 'otlp-task' } });
  });
});
