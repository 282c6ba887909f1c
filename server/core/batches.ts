// Repeats one bounded step (a delete of at most `limit` rows) until a step does less than a
// full batch or the deadline passes. Each step is its own short transaction, so a long
// backlog is worked through without holding anything for long; what is left waits for the
// next run.
export async function inBatches(step: () => Promise<number>, limit: number, deadline: number, now: () => number = Date.now): Promise<{ done: number; exhausted: boolean }> {
  let done = 0;
  for (;;) {
    const n = await step();
    done += n;
    if (n < limit) return { done, exhausted: true };
    if (now() >= deadline) return { done, exhausted: false };
  }
}
