// The Defaults page and the task editor's "effective value and where it comes from":
// the latest version's fleet `defaults:` as set, the values in effect (built-in with the
// fleet's on top), each inheritable path's source, and how many tasks inherit each.
import { currentConfigOf } from '../core/stored-config';
import { BUILT_IN_DEFAULTS, defaultSource, effectiveDefaults, tasksInheriting, type EffectiveDefaults } from '../core/fleet-defaults';
import { INHERITABLE_PATHS, type FleetDefaults } from '../core/task-definition';
import { latestConfigVersion } from '../db/config-versions';
import type { Db } from '../db/pool';

/** Every leaf an operator can set fleet-wide (threshold pairs as one path). */
export const DEFAULT_PATHS = [
  ...INHERITABLE_PATHS,
  'alertPolicy.forMs',
  'alertPolicy.clearForMs',
  'alertPolicy.hysteresis',
  'alertPolicy.waitP99Ms',
  'alertPolicy.keyWaitMs',
  'alertPolicy.hotPartition.factor',
  'alertPolicy.hotPartition.floorDepth',
  'alertPolicy.hotKey.dominantShare',
  'alertPolicy.hotKey.floor',
] as const;

export interface FleetDefaultsView {
  version: number | null;
  /** What the config sets (absent leaves: built-in). */
  defaults: FleetDefaults;
  effective: EffectiveDefaults;
  builtIn: EffectiveDefaults;
  sources: Record<string, 'built-in' | 'default'>;
  /** Per inheritable path: the tasks that take it from the defaults. */
  inheriting: Record<string, string[]>;
  taskCount: number;
}

export async function getFleetDefaults(db: Db): Promise<FleetDefaultsView> {
  const cur = currentConfigOf(await latestConfigVersion(db));
  const defaults = cur.config.defaults ?? {};
  return {
    version: cur.version,
    defaults,
    effective: effectiveDefaults(defaults),
    builtIn: BUILT_IN_DEFAULTS,
    sources: Object.fromEntries(DEFAULT_PATHS.map((p) => [p, defaultSource(defaults, p)])),
    inheriting: Object.fromEntries(INHERITABLE_PATHS.map((p) => [p, tasksInheriting(cur.config, p)])),
    taskCount: cur.config.tasks.length,
  };
}
