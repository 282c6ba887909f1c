import { describe, it, expect } from 'vitest';
import { formatAxisValue, formatDuration, formatTick, formatTooltipTime, formatValue, timeTicks } from './chart-format';

describe('formatValue', () => {
  it.each([
    [null, 'count', '—'],
    [NaN, 'ms', '—'],
    [1234, 'count', '1,234'],
    [123_456, 'count', '123.5K'],
    [2.345, 'ratio', '2.35×'],
    [0.1, 'percent', '10%'],
    [0.054, 'percent', '5.4%'],
    [0.0012, 'percent', '0.12%'],
    [0, 'percent', '0.0%'],
    [12.5, 'rate', '12.5/s'],
    [850, 'ms', '850 ms'],
  ] as const)('%s as %s → %s', (v, kind, want) => expect(formatValue(v, kind)).toBe(want));
});

describe('formatDuration', () => {
  it.each([
    [999, '999 ms'],
    [1500, '1.5 s'],
    [45_000, '45 s'],
    [125_000, '2 m 5 s'],
    [3 * 3600_000 + 20 * 60_000, '3 h 20 m'],
    [2 * 86_400_000 + 4 * 3600_000, '2 d 4 h'],
    [Infinity, '—'],
  ])('%i → %s', (ms, want) => expect(formatDuration(ms)).toBe(want));
});

describe('time axis', () => {
  const t = Date.UTC(2026, 2, 5, 14, 30);
  it('formats ticks by range', () => {
    expect(formatTick(t, 3600_000)).toBe('14:30');
    expect(formatTick(t, 7 * 86_400_000)).toBe('Mar 5 14:30');
    expect(formatTick(Date.UTC(2026, 2, 5), 7 * 86_400_000)).toBe('Mar 5');
  });
  it('tooltip shows the date, time and bucket size', () => {
    expect(formatTooltipTime(t + 10_000, 10)).toBe('2026-03-05 14:30:10 UTC · 10 s bucket');
    expect(formatTooltipTime(t, 300)).toBe('2026-03-05 14:30 UTC · 5 min bucket');
  });
  it('ticks are round and within the range', () => {
    const from = Date.UTC(2026, 0, 1, 10, 7);
    const ticks = timeTicks(from, from + 3600_000);
    expect(ticks.length).toBeGreaterThanOrEqual(4);
    expect(ticks.length).toBeLessThanOrEqual(7);
    expect(ticks.every((x) => x >= from && x <= from + 3600_000 && x % 600_000 === 0)).toBe(true);
    expect(timeTicks(from, from)).toEqual([]);
    const week = timeTicks(from, from + 7 * 86_400_000);
    expect(week.every((x) => x % 86_400_000 === 0)).toBe(true);
  });
});

describe('formatAxisValue', () => {
  const nb = (s: string) => s.replace(/ /g, '\u00a0');
  it.each([
    [0.05, 'percent', 0.05, '5%'],
    [0.025, 'percent', 0.005, '2.5%'],
    [0.3, 'percent', 0.1, '30%'],
    [1.5, 'ratio', 0.5, '1.5×'],
    [4, 'ratio', 1, '4×'],
    [1500, 'count', 500, '1,500'],
    [20_000, 'count', 10_000, '20K'],
    [0.2, 'rate', 0.1, '0.2/s'],
    [0, 'ms', 30_000, '0'],
    [90_000, 'ms', 30_000, nb('1 m 30 s')],
    [1_500, 'ms', 500, nb('1.5 s')],
  ] as const)('%s as %s (step %s) → %s', (v, kind, step, want) => expect(formatAxisValue(v, kind, step)).toBe(want));
  it('never breaks a duration across lines', () => expect(formatAxisValue(150_000, 'ms', 30_000)).not.toContain(' '));
});
