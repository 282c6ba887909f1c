// What a replay or purge dialog acts on, and how to say it to the operator.
import type { DeadLetterFilter } from '@/server/core/dead-letter-filter';

export type UiScope = { ids: number[] } | { filter: DeadLetterFilter };

/** The props of a dialog acting on a scope (replay, purge); `done` is what onDone receives. */
export interface ScopeDialogProps<Done extends unknown[] = []> {
  scope: UiScope;
  count: number | null;
  countCapped?: boolean;
  onClose: () => void;
  onDone?: (...done: Done) => void;
}

export function describeScope(scope: UiScope, count: number | null, countCapped = false): string {
  if ('ids' in scope) return `${scope.ids.length} selected dead letter${scope.ids.length === 1 ? '' : 's'}`;
  const parts = Object.entries(scope.filter)
    .filter(([k, v]) => v !== undefined && !(k === 'status' && v === 'all'))
    .map(([k, v]) => `${k} = ${v instanceof Date ? v.toISOString().slice(0, 16).replace('T', ' ') : String(v)}`);
  const n = count === null ? 'all' : `${countCapped ? 'more than ' : 'all '}${count.toLocaleString('en-US')}`;
  return parts.length ? `${n} dead letters matching ${parts.join(', ')}` : `${n} dead letters (no filter: everything)`;
}
