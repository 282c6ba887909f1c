// What a replay or a purge acts on: a selection of dead-letter ids, or everything that
// matches a filter (the same filter the browser shows). Shared by tRPC, REST and the CLI.
import { z } from 'zod';
import { deadLetterFilterSchema } from '../core/dead-letter-filter';

export const MAX_SELECTION = 10_000;

const idsSchema = z
  .array(z.number().int('must be a dead-letter id').positive('must be a dead-letter id'))
  .min(1, 'select at least one dead letter')
  .max(MAX_SELECTION, `at most ${MAX_SELECTION} ids; use a filter for more`);

const EITHER = 'give either ids (a selection) or filter (everything matching it)';

/**
 * `{ids}` or `{filter}`, exactly one. One strict object with both keys optional rather than
 * a union: a union whose branches both fail answers only "give either …", while this names
 * the field inside the one that was given (`scope.filter.q: expected string`).
 */
export const deadLetterScopeInput = z
  .strictObject({ ids: idsSchema.optional(), filter: deadLetterFilterSchema.optional() }, { error: EITHER })
  .superRefine((s, ctx) => {
    if ((s.ids === undefined) === (s.filter === undefined)) ctx.addIssue({ code: 'custom', message: EITHER });
  })
  .transform((s): { ids: number[] } | { filter: z.output<typeof deadLetterFilterSchema> } => (s.ids !== undefined ? { ids: s.ids } : { filter: s.filter! }));

export type DeadLetterScopeInput = { ids: number[] } | { filter: z.input<typeof deadLetterFilterSchema> };
export type DeadLetterScope = z.output<typeof deadLetterScopeInput>;

export function scopeKind(s: DeadLetterScope): { kind: 'ids'; ids: number[] } | { kind: 'filter'; filter: z.output<typeof deadLetterFilterSchema> } {
  return 'ids' in s ? { kind: 'ids', ids: [...new Set(s.ids)] } : { kind: 'filter', filter: s.filter };
}
