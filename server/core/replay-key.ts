// The idempotency key a DLQ replay enqueues a dead letter's execution with, and the way
// back: an execution whose key is `sluice:dlq-replay:<id>` is the replay of dead letter
// <id> (the execution detail links its origin). Pure: no I/O imports.
const PREFIX = 'sluice:dlq-replay:';

export function replayIdempotencyKey(deadLetterId: number): string {
  return `${PREFIX}${deadLetterId}`;
}

/** The dead letter an execution replays, from its idempotency key; null when it is no replay. */
export function replayedDeadLetterId(idempotencyKey: string | null): number | null {
  if (!idempotencyKey?.startsWith(PREFIX)) return null;
  const rest = idempotencyKey.slice(PREFIX.length);
  if (!/^[1-9]\d{0,15}$/.test(rest)) return null;
  const n = Number(rest);
  return Number.isSafeInteger(n) ? n : null;
}
