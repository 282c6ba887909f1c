import { describe, expect, it } from 'vitest';
import { MAX_RATE_PER_S, replayRateProblem } from './replay-rate';

describe('replayRateProblem', () => {
  it.each([
    ['', null],
    ['  ', null],
    ['2', null],
    ['0.5', null],
    [String(MAX_RATE_PER_S), null],
    ['0', 'must be above 0 (leave it empty for unlimited)'],
    ['-3', 'must be above 0 (leave it empty for unlimited)'],
    [String(MAX_RATE_PER_S + 1), `must be at most ${MAX_RATE_PER_S}`],
    ['fast', 'must be a number of executions per second'],
  ])('%j → %j', (typed, want) => {
    expect(replayRateProblem(typed)).toBe(want);
  });
});
