// Prometheus text exposition (format 0.0.4) for gauge families: HELP/TYPE lines, label
// values escaped (backslash, quote, newline), non-finite values spelled the way
// Prometheus reads them. The control plane's /metrics renders with this.
// Pure: no I/O imports (server/core rule).

export interface Sample {
  labels: Record<string, string>;
  value: number;
}

export interface MetricFamily {
  name: string;
  help: string;
  type: 'gauge' | 'counter';
  samples: Sample[];
}

const NAME_RE = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_RE = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

export function escapeLabelValue(v: string): string {
  return v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

function escapeHelp(v: string): string {
  return v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
}

export function formatValue(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return '+Inf';
  if (v === -Infinity) return '-Inf';
  return String(v);
}

export function renderFamilies(families: readonly MetricFamily[]): string {
  const lines: string[] = [];
  for (const f of families) {
    if (!NAME_RE.test(f.name)) throw new RangeError(`invalid metric name "${f.name}"`);
    lines.push(`# HELP ${f.name} ${escapeHelp(f.help)}`, `# TYPE ${f.name} ${f.type}`);
    for (const s of f.samples) {
      const labels = Object.entries(s.labels);
      for (const [k] of labels) if (!LABEL_RE.test(k)) throw new RangeError(`invalid label name "${k}" on ${f.name}`);
      const l = labels.length ? `{${labels.map(([k, v]) => `${k}="${escapeLabelValue(v)}"`).join(',')}}` : '';
      lines.push(`${f.name}${l} ${formatValue(s.value)}`);
    }
  }
  return lines.join('\n') + '\n';
}
