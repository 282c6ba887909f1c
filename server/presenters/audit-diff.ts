// Before/after of an audit entry as a list of changed leaves, for the Audit page:
// `role: operator → admin`, `active: true → false`, `limits.tenant: (absent) → 20`.
// Objects and arrays are walked; any other value is compared as JSON.

export type DiffKind = 'added' | 'removed' | 'changed';

export interface DiffLine {
  /** dotted path; "" when the whole value changed (e.g. a created record) */
  path: string;
  kind: DiffKind;
  before?: unknown;
  after?: unknown;
}

function isContainer(v: unknown): v is Record<string, unknown> | unknown[] {
  return typeof v === 'object' && v !== null;
}

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function join(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}

function walk(path: string, before: unknown, after: unknown, out: DiffLine[]): void {
  if (before === undefined && after === undefined) return;
  if (before === undefined || before === null) {
    if (after === null || after === undefined) return;
    if (isContainer(after) && !Array.isArray(after)) {
      for (const k of Object.keys(after)) walk(join(path, k), undefined, after[k], out);
      return;
    }
    out.push({ path, kind: 'added', after });
    return;
  }
  if (after === undefined || after === null) {
    if (isContainer(before) && !Array.isArray(before)) {
      for (const k of Object.keys(before)) walk(join(path, k), before[k], undefined, out);
      return;
    }
    out.push({ path, kind: 'removed', before });
    return;
  }
  if (isContainer(before) && isContainer(after) && Array.isArray(before) === Array.isArray(after)) {
    const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
    for (const k of keys) {
      walk(join(path, k), (before as Record<string, unknown>)[k], (after as Record<string, unknown>)[k], out);
    }
    return;
  }
  if (!same(before, after)) out.push({ path, kind: 'changed', before, after });
}

export function diffValues(before: unknown, after: unknown): DiffLine[] {
  const out: DiffLine[] = [];
  walk('', before ?? undefined, after ?? undefined, out);
  return out;
}
