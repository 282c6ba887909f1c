import { describe, expect, it } from 'vitest';
import { compareWhatIf } from './whatif-compare';
import { simulate, type WhatIfArrival, type WhatIfTaskConfig } from './whatif-simulator';
import { thresholdsSchema } from './task-definition';

const base: WhatIfTaskConfig = {
  name: 't',
  partitions: 1,
  concurrency: 10,
  routing: { strategy: 'round-robin' },
  groups: [{ name: 'tenant', limit: 4, overrides: {} }],
  thresholds: { ...thresholdsSchema.parse(undefined), depth: { warning: 2, critical: 3 }, alertAfterMs: 0 },
};
// globex: 8 at 0 s, 10 s each; acme: 1 at 0 s.
const arrivals: WhatIfArrival[] = [
  ...Array.from({ length: 8 }, () => ({ at: 0, runMs: 10_000, keys: { tenant: 'globex' } })),
  { at: 0, runMs: 10_000, keys: { tenant: 'acme' } },
];
const sim = (task: WhatIfTaskConfig) => simulate({ task, arrivals, coordinators: [10], seed: 1, durationMs: 30_000 });

describe('compareWhatIf', () => {
  it('ranks keys by the change of their p99 and splits new and cleared alerts', () => {
    const today = sim(base); // globex: 4 at 0 s, 4 at 10 s → p99 10 s; no depth over 3
    const proposed = sim({ ...base, groups: [{ name: 'tenant', limit: 4, overrides: { globex: 1 } }] }); // globex one at a time: waits 0…70 s
    const cmp = compareWhatIf(today, proposed);
    expect(cmp.keys.map((k) => [k.key, k.today?.p99WaitMs, k.proposed?.p99WaitMs, k.deltaP99Ms])).toEqual([
      ['globex', 10_000, 70_000, 60_000],
      ['acme', 0, 0, 0],
    ]);
    expect(cmp.newAlerts.map((a) => a.rule)).toContain('depth');
    expect(cmp.clearedAlerts).toEqual([]);
    expect(compareWhatIf(proposed, today).clearedAlerts.map((a) => a.rule)).toContain('depth');
  });

  it('keeps the top N', () => {
    const r = sim(base);
    expect(compareWhatIf(r, r, 1).keys).toHaveLength(1);
  });
});
