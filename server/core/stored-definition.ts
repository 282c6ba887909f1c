// Reading the parts of a stored task definition (task_runtime.definition) that the
// charts and the alert engine need, leniently: a definition written by an older version
// without thresholds still gets the defaults rather than breaking a page.
// Pure: no I/O imports (server/core rule).
import { keyPolicySchema, thresholdsSchema, type TaskDefinition } from './task-definition';
import type { TaskThresholds } from './thresholds';

const DEFAULT_THRESHOLDS = thresholdsSchema.parse(undefined);

/** The thresholds stored in a task's definition, or the defaults when absent/invalid. */
export function thresholdsOf(definition: unknown): TaskThresholds {
  const raw = (definition as { thresholds?: unknown } | null)?.thresholds;
  const r = thresholdsSchema.safeParse(raw);
  return r.success ? r.data : DEFAULT_THRESHOLDS;
}

export function routingOf(definition: unknown): TaskDefinition['routing'] {
  const r = (definition as { routing?: TaskDefinition['routing'] } | null)?.routing;
  return r && typeof r.strategy === 'string' ? r : { strategy: 'round-robin' };
}

/** The group keys of a stored definition that carry their own wait lines (a key policy's waitMs). */
export function keyWaitLinesOf(definition: unknown): { group: string; key: string; lines: { warning: number; critical: number } }[] {
  const groups = (definition as { groups?: unknown } | null)?.groups;
  if (!Array.isArray(groups)) return [];
  const out: { group: string; key: string; lines: { warning: number; critical: number } }[] = [];
  for (const g of groups as { name?: unknown; keyPolicies?: unknown }[]) {
    if (typeof g?.name !== 'string' || typeof g.keyPolicies !== 'object' || g.keyPolicies === null) continue;
    for (const [key, raw] of Object.entries(g.keyPolicies)) {
      const p = keyPolicySchema.safeParse(raw);
      if (p.success && p.data.waitMs) out.push({ group: g.name, key, lines: p.data.waitMs });
    }
  }
  return out;
}
