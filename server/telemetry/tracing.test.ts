// "Off costs nothing": with no OTEL_* variables startTracing must not import any
// OpenTelemetry module. Each is mocked with a factory that throws, so importing one fails
// the call; the last case shows the mocks are in force (turned on, the import throws).
import { describe, expect, it, vi } from 'vitest';
import { currentTracing, startTracing } from './tracing';

const loaded: string[] = [];
for (const m of ['@opentelemetry/api', '@opentelemetry/sdk-trace-base', '@opentelemetry/context-async-hooks', '@opentelemetry/core', '@opentelemetry/resources', '@opentelemetry/exporter-trace-otlp-http']) {
  vi.doMock(m, () => {
    loaded.push(m);
    throw new Error(`${m} was imported`);
  });
}

describe('startTracing', () => {
  it.each([{}, { OTEL_SERVICE_NAME: 'x' }, { OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' }, { OTEL_SDK_DISABLED: 'true', OTEL_TRACES_EXPORTER: 'otlp' }])(
    'off (%o): returns null and imports no OpenTelemetry module',
    async (env) => {
      expect(await startTracing({ serviceName: 's', env, log: () => {} })).toBeNull();
      expect(loaded).toEqual([]);
      expect(currentTracing()).toBeNull();
    },
  );

  it('an unsupported setting is logged and leaves tracing off, loading nothing', async () => {
    const logs: string[] = [];
    expect(await startTracing({ serviceName: 's', env: { OTEL_TRACES_EXPORTER: 'jaeger' }, log: (m) => logs.push(m) })).toBeNull();
    expect(logs).toEqual([expect.stringMatching(/jaeger is not supported.*tracing stays off/)]);
    expect(loaded).toEqual([]);
  });

  it('on: it does import OpenTelemetry (so the mocks above would have caught an import)', async () => {
    await expect(startTracing({ serviceName: 's', env: { OTEL_TRACES_EXPORTER: 'console' }, log: () => {} })).rejects.toThrow(/mock/);
    expect(loaded.length).toBeGreaterThan(0);
  });
});
