// Reading the parts of a stored task definition (task_runtime.definition) that the
// charts and the alert engine need, leniently: a definition written by an older version
// without thresholds still gets the defaults rather than breaking a page.
// Pure: no I/O imports (server/core rule).
import { thresholdsSchema, type TaskDefinition } from './task-definition';
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
