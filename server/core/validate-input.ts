// Services and presenters validate their own input (the CLI and REST routes call them without tRPC's
// input parsing) and report problems field by field as a CoreError.
import type { z } from 'zod';
import { CoreError, issueFieldErrors } from './errors';

export function parseInput<T extends z.ZodType>(schema: T, input: unknown): z.output<T> {
  const r = schema.safeParse(input);
  if (!r.success) {
    throw CoreError.validation(issueFieldErrors(r.error.issues));
  }
  return r.data;
}
