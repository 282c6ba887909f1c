// In-process counters and histograms for /metrics (Prometheus text exposition). The
// cluster-wide numbers (depth, latency percentiles) live in partition_stats and
// metric_samples; these describe what this process did.
export class Histogram {
  readonly counts: number[];
  sum = 0;
  count = 0;
  constructor(readonly bounds: readonly number[]) {
    this.counts = new Array(bounds.length + 1).fill(0);
  }
  observe(v: number): void {
    const b = this.bounds;
    let i = 0;
    while (i < b.length && !(v <= b[i]!)) i++; // NaN: the last bucket, as before
    this.counts[i]!++;
    this.sum += v;
    this.count++;
  }
}

const SECONDS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

type Labels = Record<string, string>;
const key = (l: Labels) => JSON.stringify(Object.entries(l).sort());

export class CoordinatorMetrics {
  private counters = new Map<string, Map<string, { labels: Labels; value: number }>>();
  private histograms = new Map<string, Map<string, { labels: Labels; h: Histogram }>>();
  private gauges = new Map<string, () => { labels: Labels; value: number }[]>();
  private help = new Map<string, string>();

  /** Declares a counter before its first increment, so /metrics names the family from the
   *  start (dashboards and alert rules then find it even while nothing has been counted). */
  declareCounter(name: string, help: string): void {
    this.help.set(name, help);
    if (!this.counters.has(name)) this.counters.set(name, new Map());
  }

  /** Declares a histogram before its first observation (see declareCounter). */
  declareHistogram(name: string, help: string): void {
    this.help.set(name, help);
    if (!this.histograms.has(name)) this.histograms.set(name, new Map());
  }

  inc(name: string, labels: Labels, by = 1, help = ''): void {
    if (help) this.help.set(name, help);
    let m = this.counters.get(name);
    if (!m) this.counters.set(name, (m = new Map()));
    const k = key(labels);
    const e = m.get(k) ?? { labels, value: 0 };
    e.value += by;
    m.set(k, e);
  }

  observe(name: string, labels: Labels, seconds: number, help = ''): void {
    this.histogram(name, labels, help).observe(seconds);
  }

  /** The series' histogram, to observe into directly: a caller observing once per execution
   *  keeps it, instead of building the label key every time (observe). */
  histogram(name: string, labels: Labels, help = ''): Histogram {
    if (help) this.help.set(name, help);
    let m = this.histograms.get(name);
    if (!m) this.histograms.set(name, (m = new Map()));
    const k = key(labels);
    let e = m.get(k);
    if (!e) m.set(k, (e = { labels, h: new Histogram(SECONDS) }));
    return e.h;
  }

  gauge(name: string, help: string, read: () => { labels: Labels; value: number }[]): void {
    this.help.set(name, help);
    this.gauges.set(name, read);
  }

  counterValue(name: string, labels: Labels): number {
    return this.counters.get(name)?.get(key(labels))?.value ?? 0;
  }

  render(): string {
    const lines: string[] = [];
    const fmt = (l: Labels) => {
      const parts = Object.entries(l).map(([k, v]) => `${k}="${String(v).replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`);
      return parts.length ? `{${parts.join(',')}}` : '';
    };
    for (const [name, read] of this.gauges) {
      lines.push(`# HELP ${name} ${this.help.get(name) ?? name}`, `# TYPE ${name} gauge`);
      for (const g of read()) lines.push(`${name}${fmt(g.labels)} ${g.value}`);
    }
    for (const [name, m] of this.counters) {
      lines.push(`# HELP ${name} ${this.help.get(name) ?? name}`, `# TYPE ${name} counter`);
      for (const e of m.values()) lines.push(`${name}${fmt(e.labels)} ${e.value}`);
    }
    for (const [name, m] of this.histograms) {
      lines.push(`# HELP ${name} ${this.help.get(name) ?? name}`, `# TYPE ${name} histogram`);
      for (const { labels, h } of m.values()) {
        let cum = 0;
        h.bounds.forEach((b, i) => {
          cum += h.counts[i]!;
          lines.push(`${name}_bucket${fmt({ ...labels, le: String(b) })} ${cum}`);
        });
        cum += h.counts[h.bounds.length]!;
        lines.push(`${name}_bucket${fmt({ ...labels, le: '+Inf' })} ${cum}`);
        lines.push(`${name}_sum${fmt(labels)} ${h.sum}`, `${name}_count${fmt(labels)} ${h.count}`);
      }
    }
    return lines.join('\n') + '\n';
  }
}

/** The coordinator's series, declared at start so /metrics shows them before the first
 *  job (counters and histograms at zero; gauges read live). */
export function declareCoordinatorMetrics(
  metrics: CoordinatorMetrics,
  read: { inFlight: () => number; slots: number; appliedVersion: () => number | null; servedTasks: readonly string[]; ownedPartitions: (task: string) => number },
): void {
  metrics.declareCounter('sluice_executions_claimed_total', 'Executions claimed by this coordinator');
  metrics.declareCounter('sluice_executions_finished_total', 'Executions finished by this coordinator, by outcome');
  metrics.declareCounter('sluice_executions_fenced_total', 'Completions that matched no live lease (fenced)');
  metrics.declareHistogram('sluice_claim_duration_seconds', 'Round trip of one sluice_claim call');
  metrics.declareHistogram('sluice_handler_duration_seconds', 'Handler run time');
  metrics.gauge('sluice_coordinator_in_flight', 'Executions running in this coordinator', () => [{ labels: {}, value: read.inFlight() }]);
  metrics.gauge('sluice_coordinator_slots', 'Slots of this coordinator', () => [{ labels: {}, value: read.slots }]);
  metrics.gauge('sluice_config_applied_version', 'Config version this coordinator applied', () => [{ labels: {}, value: read.appliedVersion() ?? 0 }]);
  metrics.gauge('sluice_owned_partitions', 'Partitions this coordinator owns, per task', () =>
    read.servedTasks.map((t) => ({ labels: { task: t }, value: read.ownedPartitions(t) })),
  );
}
