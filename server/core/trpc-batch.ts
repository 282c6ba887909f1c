// Which tRPC HTTP batches to refuse. Pure, shared by the endpoint and the browser's link.
//
// One batched request runs every call in it: unbounded, a batch is a way to make the
// server do any amount of work for one request, and a batch of sign-ins was a way to put
// many password guesses through one request. So batches are capped (the browser's link
// splits at the same size), and a sign-in is never batched: it goes alone.

/** Most calls one batched request may carry; the browser's httpBatchLink uses the same. */
export const TRPC_MAX_BATCH = 20;

/** Procedures that must be sent on their own, never inside a batch. */
export const UNBATCHED_PROCEDURES: ReadonlySet<string> = new Set(['auth.signIn']);

/** Why this call path must be refused (a message for a 400), or null. `path` is the part
 *  after /api/trpc/: one procedure, or several joined by commas in a batch. */
export function trpcBatchProblem(path: string, isBatch: boolean, max = TRPC_MAX_BATCH): string | null {
  if (!isBatch) return null;
  const calls = path.split(',');
  if (calls.length > max) return `too many calls in one batch: ${calls.length}, the limit is ${max}`;
  const alone = calls.find((c) => UNBATCHED_PROCEDURES.has(c));
  return alone ? `${alone} cannot be batched: send it as a request of its own` : null;
}
