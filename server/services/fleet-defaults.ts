// Fleet defaults edits (admins): the `defaults:` of the config document, stored as a new
// config version through the editor's plan/store (services/task-config.ts) — stale base
// refused, a no-op refused, the version, runtime rows (tasks that inherit a changed field
// get their new effective definition), audit and NOTIFY in one transaction. The preview
// lists the changed defaults and what they change in each task that inherits them.
import { z } from 'zod';
import { inputRecord, inputText } from '../core/input-text';
import { CoreError } from '../core/errors';
import { diffDefaults, parseFleetDefaults, type DefaultsChange } from '../core/fleet-defaults';
import { diffConfigs } from '../core/config-diff';
import { groupChangesByTask, type TaskChangeGroup } from '../core/config-change-view';
import type { FleetDefaults, SluiceConfig } from '../core/task-definition';
import type { Actor } from '../db/audit';
import type { Db } from '../db/pool';
import { plan, store, type Planned } from './task-config';

const version = z.number().int('must be a whole number').min(1, 'must be at least 1');

export const previewDefaultsInput = z.strictObject({
  /** The whole defaults document as the form holds it; validated field by field below. */
  defaults: inputRecord(z.string(), z.unknown()),
  basedOn: version.nullable(),
});
export const saveDefaultsInput = previewDefaultsInput.extend({
  message: inputText.trim().min(1, 'describe the change (it is shown in the history)').max(500, 'must be at most 500 characters'),
});

export interface DefaultsPreview {
  basedOn: number | null;
  defaults: DefaultsChange[];
  /** What the new defaults change in the tasks that inherit them. */
  changes: TaskChangeGroup[];
}

function defaultsEdit(raw: Record<string, unknown>): (c: SluiceConfig) => SluiceConfig {
  const parsed = parseFleetDefaults(raw);
  if (!parsed.ok) throw CoreError.validation(parsed.errors.map((e) => ({ path: e.path ? `defaults.${e.path}` : 'defaults', message: e.message })));
  const defaults: FleetDefaults = parsed.value;
  return (c) => {
    const { defaults: _, ...rest } = c;
    return Object.keys(defaults).length ? { ...rest, defaults } : rest;
  };
}

const previewOf = (p: Planned): DefaultsPreview => ({
  basedOn: p.basedOn,
  defaults: diffDefaults(p.before.defaults, p.after.defaults),
  changes: groupChangesByTask(diffConfigs(p.before, p.after)),
});

export async function previewFleetDefaults(db: Db, input: z.output<typeof previewDefaultsInput>): Promise<DefaultsPreview> {
  return previewOf(await plan(db, input.basedOn, defaultsEdit(input.defaults)));
}

export async function saveFleetDefaults(db: Db, actor: Actor, input: z.output<typeof saveDefaultsInput>): Promise<DefaultsPreview & { version: number }> {
  const p = await plan(db, input.basedOn, defaultsEdit(input.defaults));
  const applied = await store(db, actor, p, input.message);
  return { ...previewOf(p), version: applied.version };
}
