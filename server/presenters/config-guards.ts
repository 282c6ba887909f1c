// Guarded rollouts as the Coordinators page, a task's history and the config history
// show them: the guard's rule in words, the bake and how much of it is left (by the
// server's clock; `serverNow` lets the browser count down without trusting its own clock).
import { z } from 'zod';
import { describeGuardRule, formatBake } from '../core/guarded-rollout';
import { taskNameSchema } from '../core/task-definition';
import { listGuards, type GuardRow } from '../db/config-guards';
import type { Db } from '../db/pool';

/** A guard row with its rule and bake in words and the bake left. */
export interface GuardView extends GuardRow {
  ruleText: string;
  bakeText: string;
  /** Bake left at serverNow; 0 once passed or ended. */
  remainingMs: number;
}

export function guardView(g: GuardRow, now: number): GuardView {
  return {
    ...g,
    ruleText: describeGuardRule(g.rule),
    bakeText: formatBake(g.bakeMs),
    remainingMs: g.status === 'baking' ? Math.max(0, g.bakeUntil.getTime() - now) : 0,
  };
}

export const guardsInput = z.strictObject({
  task: taskNameSchema.optional(),
  /** Only the guards still baking. */
  baking: z.boolean().default(false),
  limit: z.number().int('must be a whole number').min(1, 'must be at least 1').max(50, 'must be at most 50').default(10),
});

export interface GuardList {
  serverNow: Date;
  guards: GuardView[];
}

export async function listGuardViews(db: Db, input: z.output<typeof guardsInput>): Promise<GuardList> {
  const now = new Date();
  const rows = await listGuards(db, { ...(input.task ? { task: input.task } : {}), baking: input.baking, limit: input.limit });
  return { serverNow: now, guards: rows.map((g) => guardView(g, now.getTime())) };
}

/** The guards of these versions, by the guarded version and by the version a rollback made. */
export async function guardsOfVersions(db: Db, versions: number[]): Promise<{ guarded: Map<number, GuardView>; rollbacks: Map<number, GuardView> }> {
  const guarded = new Map<number, GuardView>();
  const rollbacks = new Map<number, GuardView>();
  if (versions.length === 0) return { guarded, rollbacks };
  const now = Date.now();
  for (const g of await listGuards(db, { versions, limit: versions.length * 2 })) {
    const v = guardView(g, now);
    if (versions.includes(g.version)) guarded.set(g.version, v);
    if (g.rollbackVersion !== null && versions.includes(g.rollbackVersion)) rollbacks.set(g.rollbackVersion, v);
  }
  return { guarded, rollbacks };
}
