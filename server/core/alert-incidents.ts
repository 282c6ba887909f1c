// Related alerts as one incident: the alerts of one task whose firing spans overlap
// (a hot partition drives the task's depth up and its partitions out of balance, and all
// three fire within a minute of each other) are one thing to read and act on. Spans are
// [firedAt, resolvedAt, or open while unresolved]; overlap is transitive (A overlaps B,
// B overlaps C: one incident), found by a sweep over each task's spans in firing order.
// The incident's id is its first alert's id, so it is stable while the incident grows.
// Pure: no I/O imports.

export interface IncidentMember {
  id: number;
  task: string;
  firedAt: number;
  /** null while the alert is open */
  resolvedAt: number | null;
}

/** alert id → incident id (the earliest-fired member's id; ties by id). */
export function groupIncidents(alerts: readonly IncidentMember[]): Map<number, number> {
  const out = new Map<number, number>();
  const byTask = new Map<string, IncidentMember[]>();
  for (const a of alerts) byTask.set(a.task, [...(byTask.get(a.task) ?? []), a]);
  for (const list of byTask.values()) {
    const sorted = [...list].sort((a, b) => a.firedAt - b.firedAt || a.id - b.id);
    let head: IncidentMember | null = null;
    let end = -Infinity;
    for (const a of sorted) {
      if (head === null || a.firedAt > end) {
        head = a;
        end = a.resolvedAt ?? Infinity;
      } else {
        end = Math.max(end, a.resolvedAt ?? Infinity);
      }
      out.set(a.id, head.id);
    }
  }
  return out;
}

/** True when two spans overlap (an open span runs to the end of time). */
export function spansOverlap(a: Pick<IncidentMember, 'firedAt' | 'resolvedAt'>, b: Pick<IncidentMember, 'firedAt' | 'resolvedAt'>): boolean {
  return a.firedAt <= (b.resolvedAt ?? Infinity) && b.firedAt <= (a.resolvedAt ?? Infinity);
}
