// REST query strings → DLQ inputs: `GET /api/v1/dead-letters?task=billing&group=tenant%3Dacme
// &cursor=…&limit=50` reads the same filter fields as the browser's URL
// (core/dead-letter-filter.ts), and numbers are converted here so the presenters' schemas report
// bad values field by field.
import { searchParamsToFilterInput } from '../core/dead-letter-filter';
import type { DeadLetterListInput } from '../presenters/dead-letters';

function num(v: string | null): number | undefined {
  if (v === null || v === '') return undefined;
  return /^-?\d+(\.\d+)?$/.test(v) ? Number(v) : Number.NaN;
}

export function listInputFromQuery(p: URLSearchParams): DeadLetterListInput {
  const cursor = p.get('cursor');
  const limit = num(p.get('limit'));
  return {
    filter: searchParamsToFilterInput(p) as DeadLetterListInput['filter'],
    ...(cursor ? { cursor } : {}),
    ...(limit !== undefined ? { limit } : {}),
  };
}

export function fingerprintInputFromQuery(p: URLSearchParams): { filter: DeadLetterListInput['filter']; limit?: number } {
  const limit = num(p.get('limit'));
  return { filter: searchParamsToFilterInput(p) as DeadLetterListInput['filter'], ...(limit !== undefined ? { limit } : {}) };
}

/** A path segment that must be a positive integer id (else the schema's BAD_REQUEST). */
export function idFromPath(s: string): number {
  return /^\d{1,15}$/.test(s) ? Number(s) : Number.NaN;
}
