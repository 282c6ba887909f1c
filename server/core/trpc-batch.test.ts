import { describe, it, expect } from 'vitest';
import { TRPC_MAX_BATCH, trpcBatchProblem } from './trpc-batch';

describe('trpcBatchProblem', () => {
  const many = (n: number, p = 'tasks.list') => Array.from({ length: n }, () => p).join(',');
  it.each<[string, string, boolean, RegExp | null]>([
    ['a single call', 'auth.signIn', false, null],
    ['a batch of queries', 'tasks.list,auth.me', true, null],
    ['a batch at the cap', many(TRPC_MAX_BATCH), true, null],
    ['a batch over the cap', many(TRPC_MAX_BATCH + 1), true, /too many calls in one batch: 21, the limit is 20/],
    ['a batch of sign-ins', many(20, 'auth.signIn'), true, /auth\.signIn cannot be batched/],
    ['a sign-in inside a batch of one', 'auth.signIn', true, /auth\.signIn cannot be batched/],
    ['a sign-in hidden among queries', 'auth.me,auth.signIn,tasks.list', true, /auth\.signIn cannot be batched/],
  ])('%s', (_name, path, isBatch, problem) => {
    const got = trpcBatchProblem(path, isBatch);
    if (problem === null) expect(got).toBeNull();
    else expect(got).toMatch(problem);
  });
});
