import { describe, expect, it } from 'vitest';
import { tracingSettings } from './tracing-settings';

describe('tracingSettings: off by default, on with the standard OTEL_* variables', () => {
  it.each([
    { env: {}, want: { enabled: false } },
    { env: { OTEL_SERVICE_NAME: 'x' }, want: { enabled: false } },
    { env: { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }, want: { enabled: true, exporters: ['otlp'] } },
    { env: { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' }, want: { enabled: true, exporters: ['otlp'] } },
    { env: { OTEL_EXPORTER_OTLP_ENDPOINT: '  ' }, want: { enabled: false } },
    { env: { OTEL_TRACES_EXPORTER: 'otlp' }, want: { enabled: true, exporters: ['otlp'] } },
    { env: { OTEL_TRACES_EXPORTER: ' Console , otlp,console' }, want: { enabled: true, exporters: ['console', 'otlp'] } },
    { env: { OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' }, want: { enabled: false, reason: 'OTEL_TRACES_EXPORTER=none' } },
    { env: { OTEL_TRACES_EXPORTER: 'console', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' }, want: { enabled: true, exporters: ['console'] } },
    { env: { OTEL_SDK_DISABLED: 'TRUE', OTEL_TRACES_EXPORTER: 'otlp' }, want: { enabled: false, reason: 'OTEL_SDK_DISABLED=true' } },
    { env: { OTEL_SDK_DISABLED: 'false', OTEL_TRACES_EXPORTER: 'otlp' }, want: { enabled: true } },
    { env: { OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' }, want: { enabled: true } },
    { env: { OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf' }, want: { enabled: true } },
  ])('$env', ({ env, want }) => {
    expect(tracingSettings(env)).toMatchObject(want);
  });

  it.each([
    { env: { OTEL_TRACES_EXPORTER: 'jaeger' }, problem: /OTEL_TRACES_EXPORTER: jaeger is not supported/ },
    { env: { OTEL_TRACES_EXPORTER: 'otlp,zipkin' }, problem: /zipkin/ },
    { env: { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4317', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }, problem: /OTEL_EXPORTER_OTLP_PROTOCOL=grpc is not supported/ },
    { env: { OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'grpc' }, problem: /grpc/ },
  ])('a value Sluice cannot honour is a problem naming the variable: $env', ({ env, problem }) => {
    const s = tracingSettings(env);
    expect(s.enabled).toBe(false);
    expect('problem' in s ? s.problem : '').toMatch(problem);
  });
});
