// Reading the parts of a stored task definition (task_runtime.definition) that the
// charts and the alert engine need, leniently: a definition written by an older version
// without thresholds still gets the defaults rather than breaking a page.
// Pure: no I/O imports (server/core rule).
import { keyPolicySchema, thresholdsSchema, type KeyPolicy, type TaskDefinition } from './task-definition';
import type { TaskThresholds } from './thresholds';
import { BUILT_IN_DEFAULTS } from './fleet-defaults';

const DEFAULT_THRESHOLDS = thresholdsSchema.parse(undefined);

/** The thresholds stored in a task's definition, or the defaults when absent/invalid. */
export function thresholdsOf(definition: unknown): TaskThresholds {
  const raw = (definition as { thresholds?: unknown } | null)?.thresholds;
  const r = thresholdsSchema.safeParse(raw);
  return r.success ? r.data : DEFAULT_THRESHOLDS;
}

/**
 * Limits (issue #19): the task has a rate limit, its own (`rate`) or a group's (`groups[].rate`).
 * The charts show the rate-held chart, and /metrics the rate families, for these tasks only.
 */
export function hasRateLimit(definition: unknown): boolean {
  const d = definition as { rate?: unknown; groups?: unknown } | null;
  if (d === null || typeof d !== 'object') return false;
  if (d.rate !== undefined && d.rate !== null) return true;
  return Array.isArray(d.groups) && d.groups.some((g: { rate?: unknown } | null) => g !== null && typeof g === 'object' && g.rate !== undefined && g.rate !== null);
}

export function routingOf(definition: unknown): TaskDefinition['routing'] {
  const r = (definition as { routing?: TaskDefinition['routing'] } | null)?.routing;
  return r && typeof r.strategy === 'string' ? r : { strategy: 'round-robin' };
}

/**
 * The key policies of a stored definition, by 'group=key' (an invalid one is left out
 * rather than breaking the alert engine).
 */
export function keyPoliciesOf(definition: unknown): Map<string, KeyPolicy> {
  const out = new Map<string, KeyPolicy>();
  const groups = (definition as { groups?: unknown } | null)?.groups;
  if (!Array.isArray(groups)) return out;
  for (const g of groups as { name?: unknown; keyPolicies?: unknown }[]) {
    if (typeof g?.name !== 'string' || typeof g.keyPolicies !== 'object' || g.keyPolicies === null) continue;
    for (const [key, raw] of Object.entries(g.keyPolicies)) {
      const p = keyPolicySchema.safeParse(raw);
      if (p.success) out.set(`${g.name}=${key}`, p.data);
    }
  }
  return out;
}

/** The group keys of a stored definition that carry their own wait lines (a key policy's waitMs). */
export function keyWaitLinesOf(definition: unknown): { group: string; key: string; lines: { warning: number; critical: number } }[] {
  const out: { group: string; key: string; lines: { warning: number; critical: number } }[] = [];
  for (const [gk, p] of keyPoliciesOf(definition)) {
    if (!p.waitMs) continue;
    const i = gk.indexOf('=');
    out.push({ group: gk.slice(0, i), key: gk.slice(i + 1), lines: p.waitMs });
  }
  return out;
}

/**
 * The timeout fields of a stored definition (the task's timeoutMs and each key's own), for
 * timeoutOrigin; an invalid key policy is left out, a missing timeoutMs is the built-in.
 */
export function storedTimeouts(definition: unknown): Pick<TaskDefinition, 'timeoutMs' | 'groups'> {
  const raw = (definition as { timeoutMs?: unknown } | null)?.timeoutMs;
  const timeoutMs = typeof raw === 'number' && Number.isFinite(raw) && raw > 0 ? raw : BUILT_IN_DEFAULTS.timeoutMs;
  const groups = new Map<string, Record<string, KeyPolicy>>();
  const names = (definition as { groups?: { name?: unknown }[] } | null)?.groups;
  if (Array.isArray(names)) for (const g of names) if (typeof g?.name === 'string') groups.set(g.name, {});
  for (const [gk, p] of keyPoliciesOf(definition)) {
    const i = gk.indexOf('=');
    groups.get(gk.slice(0, i))![gk.slice(i + 1)] = p;
  }
  return { timeoutMs, groups: [...groups].map(([name, keyPolicies]) => ({ name, keyPolicies }) as TaskDefinition['groups'][number]) };
}
