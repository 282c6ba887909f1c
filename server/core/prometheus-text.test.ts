import { describe, it, expect } from 'vitest';
import { escapeLabelValue, formatValue, renderFamilies } from './prometheus-text';

describe('renderFamilies', () => {
  it('renders HELP, TYPE and samples with labels', () => {
    expect(
      renderFamilies([
        { name: 'sluice_alerts_firing', help: 'Firing alerts.', type: 'gauge', samples: [{ labels: { task: 'a', severity: 'critical' }, value: 2 }] },
        { name: 'sluice_up', help: 'Up.', type: 'gauge', samples: [{ labels: {}, value: 1 }] },
      ]),
    ).toBe(
      '# HELP sluice_alerts_firing Firing alerts.\n# TYPE sluice_alerts_firing gauge\nsluice_alerts_firing{task="a",severity="critical"} 2\n' +
        '# HELP sluice_up Up.\n# TYPE sluice_up gauge\nsluice_up 1\n',
    );
  });
  it('a family with no samples still declares itself', () => {
    expect(renderFamilies([{ name: 'x', help: 'h', type: 'counter', samples: [] }])).toBe('# HELP x h\n# TYPE x counter\n');
  });
  it.each([
    ['bad-name', {}],
    ['ok', { 'bad-label': 'v' }],
  ])('rejects invalid names (%s)', (name, labels) => {
    expect(() => renderFamilies([{ name, help: '', type: 'gauge', samples: [{ labels, value: 1 }] }])).toThrow(RangeError);
  });
});

describe('escaping and values', () => {
  it.each([
    ['plain', 'plain'],
    ['a"b', 'a\\"b'],
    ['a\\b', 'a\\\\b'],
    ['a\nb', 'a\\nb'],
  ])('escapeLabelValue(%j) = %j', (v, want) => expect(escapeLabelValue(v)).toBe(want));
  it.each([
    [1.5, '1.5'],
    [NaN, 'NaN'],
    [Infinity, '+Inf'],
    [-Infinity, '-Inf'],
    [0, '0'],
  ])('formatValue(%s) = %s', (v, want) => expect(formatValue(v)).toBe(want));
});
