// Services and presenters validate their own input (the CLI and REST routes call them without tRPC's
// input parsing) and report problems field by field as a CoreError.
import type { z } from 'zod';
import { CoreError } from './errors';

export function parseInput<T extends z.ZodType>(schema: T, input: unknown): z.output<T> {
  const r = schema.safeParse(input);
  if (!r.success) {
    throw CoreError.validation(r.error.issues.map((i) => ({ path: i.path.map(String).join('.'), message: i.message })));
  }
  return r.data;
}
