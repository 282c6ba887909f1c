// A stored config version (config_versions row) as the config it holds. Stored versions
// were validated on the way in, so a failure here means the schema moved. Core, so the
// writes (services/config-versions.ts) and the reads (presenters/tasks.ts) read a version
// the same way.
import { CoreError } from './errors';
import { parseConfig, type SluiceConfig } from './task-definition';

export interface StoredConfigVersion {
  version: number;
  config: unknown;
  author: string;
  message: string;
  createdAt: Date;
}

export interface CurrentConfig {
  version: number | null;
  config: SluiceConfig;
  author: string | null;
  message: string | null;
  createdAt: Date | null;
}

export function storedConfig(row: Pick<StoredConfigVersion, 'version' | 'config'>): SluiceConfig {
  const parsed = parseConfig(row.config);
  if (!parsed.ok) throw CoreError.validation(parsed.errors, `stored config version ${row.version} no longer validates`);
  return parsed.value;
}

/** The latest stored version as the current config; none stored yet = no tasks. */
export function currentConfigOf(latest: StoredConfigVersion | null): CurrentConfig {
  if (!latest) return { version: null, config: { tasks: [] }, author: null, message: null, createdAt: null };
  return { version: latest.version, config: storedConfig(latest), author: latest.author, message: latest.message, createdAt: latest.createdAt };
}
