// Whether Sluice exports traces, read from the standard OpenTelemetry environment
// variables (https://opentelemetry.io/docs/specs/otel/configuration/sdk-environment-variables/).
// Off by default: unlike the OpenTelemetry SDK (whose OTEL_TRACES_EXPORTER defaults to
// otlp), Sluice starts no exporter unless asked, so a process that sets nothing loads no
// OpenTelemetry code at all. On when:
//   OTEL_TRACES_EXPORTER lists otlp and/or console, or
//   OTEL_TRACES_EXPORTER is unset and an OTLP endpoint is set (OTEL_EXPORTER_OTLP_ENDPOINT
//   or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT).
// OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none turns it off whatever else is set.
// The OTLP exporter is OTLP/HTTP (JSON); the other OTEL_EXPORTER_OTLP_* variables (headers,
// timeout, endpoint) and OTEL_TRACES_SAMPLER*, OTEL_BSP_*, OTEL_SERVICE_NAME,
// OTEL_RESOURCE_ATTRIBUTES are read by the OpenTelemetry SDK itself.

export type TraceExporterName = 'otlp' | 'console';

export type TracingSettings =
  | { enabled: false; reason: string }
  | { enabled: true; exporters: TraceExporterName[] }
  | { enabled: false; problem: string };

type Env = Record<string, string | undefined>;

const set = (v: string | undefined) => v !== undefined && v.trim() !== '';

export function tracingSettings(env: Env): TracingSettings {
  if ((env.OTEL_SDK_DISABLED ?? '').trim().toLowerCase() === 'true') return { enabled: false, reason: 'OTEL_SDK_DISABLED=true' };
  const endpoint = set(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) || set(env.OTEL_EXPORTER_OTLP_ENDPOINT);
  let exporters: string[];
  if (set(env.OTEL_TRACES_EXPORTER)) {
    exporters = [...new Set(env.OTEL_TRACES_EXPORTER!.split(',').map((s) => s.trim().toLowerCase()).filter(Boolean))];
    if (exporters.includes('none')) return { enabled: false, reason: 'OTEL_TRACES_EXPORTER=none' };
    const unknown = exporters.filter((e) => e !== 'otlp' && e !== 'console');
    if (unknown.length > 0) {
      return { enabled: false, problem: `OTEL_TRACES_EXPORTER: ${unknown.join(', ')} is not supported by Sluice (use otlp, console or none)` };
    }
  } else if (endpoint) {
    exporters = ['otlp'];
  } else {
    return { enabled: false, reason: 'no OTEL_TRACES_EXPORTER or OTLP endpoint set' };
  }
  if (exporters.includes('otlp')) {
    const protocol = (env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL ?? '').trim();
    if (protocol !== '' && protocol !== 'http/json' && protocol !== 'http/protobuf') {
      return {
        enabled: false,
        problem: `OTEL_EXPORTER_OTLP_PROTOCOL=${protocol} is not supported by Sluice: it exports OTLP over HTTP (JSON) to port 4318; set http/json or leave it unset`,
      };
    }
  }
  return { enabled: true, exporters: exporters as TraceExporterName[] };
}
