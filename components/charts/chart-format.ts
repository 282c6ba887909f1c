// Number and time formatting for charts, tooltips and cards. Times are UTC, like every
// timestamp in the console (components/ui/timestamp.tsx), so server and browser agree.

export type ValueKind = 'count' | 'ratio' | 'percent' | 'ms' | 'rate';

const compact = new Intl.NumberFormat('en-US', { notation: 'compact', maximumFractionDigits: 1 });
const plain = new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 });

/** A value for an axis tick or a card: short (1.2k, 45%, 1.5 s, 12/s). */
export function formatValue(v: number | null | undefined, kind: ValueKind): string {
  if (v === null || v === undefined || Number.isNaN(v)) return '—';
  switch (kind) {
    case 'count':
      return Math.abs(v) >= 10_000 ? compact.format(v) : plain.format(Math.round(v * 100) / 100);
    case 'ratio':
      return `${plain.format(Math.round(v * 100) / 100)}×`;
    case 'percent': {
      const p = v * 100;
      return `${p !== 0 && Math.abs(p) < 1 ? p.toFixed(2) : p < 10 ? p.toFixed(1) : Math.round(p)}%`;
    }
    case 'ms':
      return formatDuration(v);
    case 'rate':
      return `${Math.abs(v) >= 10_000 ? compact.format(v) : plain.format(Math.round(v * 100) / 100)}/s`;
  }
}

/**
 * A y-axis tick at a scale step (core/chart-scale yScale): as many decimals as the step
 * needs and no more (5%, 2.5%, 0.5×), durations in clock units, and no breaking spaces —
 * an SVG tick wraps at a space, and "2 m" over "30 s" read as two ticks.
 */
export function formatAxisValue(v: number, kind: ValueKind, step: number): string {
  const decimals = (x: number) => Math.min(6, Math.max(0, -Math.floor(Math.log10(x) + 1e-9)));
  let out: string;
  switch (kind) {
    case 'percent':
      out = `${(v * 100).toFixed(step > 0 ? decimals(step * 100) : 0)}%`;
      break;
    case 'ratio':
      out = `${v.toFixed(step > 0 ? decimals(step) : 0)}×`;
      break;
    case 'count':
      out = Math.abs(v) >= 10_000 ? compact.format(v) : plain.format(v);
      break;
    case 'rate':
      out = `${Math.abs(v) >= 10_000 ? compact.format(v) : v.toFixed(step > 0 ? decimals(step) : 0)}/s`;
      break;
    case 'ms':
      out = v === 0 ? '0' : formatDuration(v);
      break;
  }
  return out.replace(/ /g, '\u00a0');
}

/** 850 ms, 1.5 s, 2 m 5 s, 3 h 20 m, 2 d 4 h. */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms)) return '—';
  const a = Math.abs(ms);
  if (a < 1000) return `${Math.round(ms)} ms`;
  if (a < 60_000) return `${(ms / 1000).toFixed(a < 10_000 ? 1 : 0)} s`;
  const s = Math.round(a / 1000);
  const [d, h, m, sec] = [Math.floor(s / 86_400), Math.floor((s % 86_400) / 3600), Math.floor((s % 3600) / 60), s % 60];
  const sign = ms < 0 ? '−' : '';
  if (d > 0) return `${sign}${d} d${h ? ` ${h} h` : ''}`;
  if (h > 0) return `${sign}${h} h${m ? ` ${m} m` : ''}`;
  return `${sign}${m} m${sec ? ` ${sec} s` : ''}`;
}

const pad = (n: number) => String(n).padStart(2, '0');
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** An x-axis tick: HH:MM for ranges up to a day, "Mon D HH:MM"-ish for longer. */
export function formatTick(t: number, rangeMs: number): string {
  const d = new Date(t);
  const hm = `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}`;
  if (rangeMs <= 86_400_000) return hm;
  return `${MONTHS[d.getUTCMonth()]} ${d.getUTCDate()}${d.getUTCHours() || d.getUTCMinutes() ? ` ${hm}` : ''}`;
}

/** The tooltip's time line: full UTC date and time, plus the bucket size. */
export function formatTooltipTime(t: number, resolutionS: number): string {
  const d = new Date(t);
  const date = `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
  const time = `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}${resolutionS < 60 ? `:${pad(d.getUTCSeconds())}` : ''}`;
  return `${date} ${time} UTC · ${resolutionS >= 60 ? `${resolutionS / 60} min` : `${resolutionS} s`} bucket`;
}

/** Evenly spaced tick positions aligned to round times, about `count` of them. */
export function timeTicks(from: number, to: number, count = 6): number[] {
  const span = to - from;
  if (!(span > 0)) return [];
  const steps = [60_000, 120_000, 300_000, 600_000, 900_000, 1_800_000, 3_600_000, 7_200_000, 10_800_000, 21_600_000, 43_200_000, 86_400_000];
  const step = steps.find((s) => span / s <= count) ?? Math.ceil(span / count / 86_400_000) * 86_400_000;
  const out: number[] = [];
  for (let t = Math.ceil(from / step) * step; t <= to; t += step) out.push(t);
  return out;
}

/** Partition line colours: distinct hues, readable on light and dark surfaces. */
const PALETTE = ['#4f8ff7', '#22b8a7', '#a877f2', '#f2a23a', '#e66aa5', '#6cc24a', '#5ab0e8', '#d98b5f', '#8f9cf7', '#c9b037', '#4fd1c5', '#f07178'];
export function seriesColor(i: number): string {
  return PALETTE[i % PALETTE.length]!;
}
