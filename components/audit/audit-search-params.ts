// The Audit page's filters live in the URL (shareable, back-button friendly). Times are
// UTC, written as `YYYY-MM-DDTHH:MM` (what a datetime-local input gives).
import type { AuditListInput } from '@/server/presenters/audit';

export type AuditSearchParams = Record<string, string | string[] | undefined>;

export const AUDIT_FILTER_KEYS = ['actor', 'action', 'targetType', 'targetId', 'from', 'to'] as const;

function one(v: string | string[] | undefined): string | undefined {
  const s = Array.isArray(v) ? v[0] : v;
  return s === undefined || s.trim() === '' ? undefined : s.trim();
}

/** Parses a UTC `YYYY-MM-DDTHH:MM[:SS]` (or full ISO) into a Date; invalid → a Date that is NaN. */
export function parseUtc(s: string): Date {
  return new Date(/[zZ]|[+-]\d\d:?\d\d$/.test(s) ? s : `${s}Z`);
}

export function auditInputFromSearchParams(sp: AuditSearchParams, limit = 50): { input: AuditListInput; invalid: string[] } {
  const input: AuditListInput = { limit };
  const invalid: string[] = [];
  for (const key of ['actor', 'action', 'targetType', 'targetId', 'cursor'] as const) {
    const v = one(sp[key]);
    if (v !== undefined) input[key] = v;
  }
  for (const key of ['from', 'to'] as const) {
    const v = one(sp[key]);
    if (v === undefined) continue;
    const d = parseUtc(v);
    if (Number.isNaN(d.getTime())) invalid.push(`${key}: "${v}" is not a date`);
    else input[key] = d;
  }
  return { input, invalid };
}

/** The URL for the same filters with a different cursor (undefined: first page). */
export function auditHref(sp: AuditSearchParams, cursor?: string): string {
  const q = new URLSearchParams();
  for (const key of AUDIT_FILTER_KEYS) {
    const v = one(sp[key]);
    if (v !== undefined) q.set(key, v);
  }
  if (cursor) q.set('cursor', cursor);
  const s = q.toString();
  return s ? `/audit?${s}` : '/audit';
}
