import { describe, it, expect } from 'vitest';
import { inBatches } from './batches';

describe('inBatches', () => {
  it('repeats full batches until a short one', async () => {
    const sizes = [10, 10, 3, 10];
    let calls = 0;
    const r = await inBatches(async () => sizes[calls++]!, 10, Number.POSITIVE_INFINITY);
    expect(r).toEqual({ done: 23, exhausted: true });
    expect(calls).toBe(3);
  });
  it('stops at the deadline after a full batch, leaving the rest', async () => {
    let t = 0;
    let calls = 0;
    const r = await inBatches(
      async () => {
        calls++;
        t += 40;
        return 5;
      },
      5,
      100,
      () => t,
    );
    expect(calls).toBe(3);
    expect(r).toEqual({ done: 15, exhausted: false });
  });
  it('an empty first batch is done', async () => {
    expect(await inBatches(async () => 0, 5, 0)).toEqual({ done: 0, exhausted: true });
  });
});
