// What a replay or a purge acts on: a selection of dead-letter ids, or everything that
// matches a filter (the same filter the browser shows). Shared by tRPC, REST and the CLI.
import { z } from 'zod';
import { dlqFilterSchema } from '../core/dlq-filter';

export const MAX_SELECTION = 10_000;

export const dlqScopeInput = z.union(
  [
    z
      .object({
        ids: z
          .array(z.number().int('must be a dead-letter id').positive('must be a dead-letter id'))
          .min(1, 'select at least one dead letter')
          .max(MAX_SELECTION, `at most ${MAX_SELECTION} ids; use a filter for more`),
      })
      .strict(),
    z.object({ filter: dlqFilterSchema }).strict(),
  ],
  { error: 'give either ids (a selection) or filter (everything matching it)' },
);

export type DlqScopeInput = z.input<typeof dlqScopeInput>;
export type DlqScope = z.output<typeof dlqScopeInput>;

export function scopeKind(s: DlqScope): { kind: 'ids'; ids: number[] } | { kind: 'filter'; filter: z.output<typeof dlqFilterSchema> } {
  return 'ids' in s ? { kind: 'ids', ids: [...new Set(s.ids)] } : { kind: 'filter', filter: s.filter };
}
