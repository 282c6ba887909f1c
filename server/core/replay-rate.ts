// A replay's rate (executions per second): its bound, and the check the replay dialog runs
// as the operator types (the server's zod schema in services/dlq-replay.ts says the same
// words, so the dialog and a refused request read alike). Pure: no I/O imports.
export const MAX_RATE_PER_S = 100_000;

/** What is wrong with a typed rate ("must be …", the field-message style), or null; empty = unlimited. */
export function replayRateProblem(typed: string): string | null {
  if (typed.trim() === '') return null;
  const n = Number(typed);
  if (!Number.isFinite(n)) return 'must be a number of executions per second';
  if (n <= 0) return 'must be above 0 (leave it empty for unlimited)';
  if (n > MAX_RATE_PER_S) return `must be at most ${MAX_RATE_PER_S}`;
  return null;
}
