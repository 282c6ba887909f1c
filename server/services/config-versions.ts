// Config writes: validate with parseConfig, refuse a stale `basedOn`, store the new
// immutable version, sync the runtime rows, audit it and NOTIFY coordinators — all in
// one transaction, so a version either exists with everything it implies or not at all.
import type pg from 'pg';
import { parseConfig, type SluiceConfig } from '../core/task-definition';
import { CoreError } from '../core/errors';
import { textProblem } from '../core/input-text';
import { currentConfigOf, storedConfig, type CurrentConfig } from '../core/stored-config';
import { recordAudit, type Actor } from '../db/audit';
import {
  getConfigVersion,
  insertConfigVersion,
  latestConfigVersion,
  lockConfigWrites,
  notifyConfigVersion,
} from '../db/config-versions';
import { syncTaskRuntime, type SyncResult } from '../db/sync-task-runtime';
import { withTransaction, type Db } from '../db/pool';

export interface ApplyConfigOptions {
  message?: string;
  /** The version the editor started from; a newer stored version → CONFLICT. */
  basedOn?: number | null;
  /**
   * More writes that belong to this version, in its transaction (after the version and the
   * runtime rows, before the NOTIFY): if they fail, the version is not stored either.
   */
  inSameTransaction?: (client: pg.PoolClient, version: number) => Promise<void>;
}

export interface AppliedConfig {
  version: number;
  config: SluiceConfig;
  createdAt: Date;
  sync: SyncResult;
}

export type { CurrentConfig };

export async function applyConfig(db: Db, actor: Actor, input: unknown, opts: ApplyConfigOptions = {}): Promise<AppliedConfig> {
  const parsed = parseConfig(input);
  if (!parsed.ok) throw CoreError.validation(parsed.errors);
  const config = parsed.value;
  const messageProblem = opts.message === undefined ? null : textProblem(opts.message);
  if (messageProblem) throw CoreError.validation([{ path: 'message', message: messageProblem }]);
  return withTransaction(db, async (client) => {
    await lockConfigWrites(client);
    const latest = await latestConfigVersion(client);
    if (opts.basedOn !== undefined && opts.basedOn !== null && latest && latest.version !== opts.basedOn) {
      throw new CoreError(
        'CONFLICT',
        `config changed since version ${opts.basedOn}: the latest is version ${latest.version} (by ${latest.author}); reload and re-apply your change`,
      );
    }
    if (opts.basedOn !== undefined && opts.basedOn !== null && !latest) {
      throw new CoreError('CONFLICT', `config version ${opts.basedOn} does not exist; there is no config yet`);
    }
    const row = await insertConfigVersion(client, {
      config,
      author: actor.label,
      authorType: actor.type,
      authorId: actor.id,
      message: opts.message ?? '',
      basedOn: opts.basedOn ?? latest?.version ?? null,
    });
    const sync = await syncTaskRuntime(client, config.tasks, row.version);
    await recordAudit(client, actor, {
      action: 'config.apply',
      targetType: 'config',
      targetId: String(row.version),
      before: latest ? { version: latest.version } : null,
      after: { version: row.version, tasks: config.tasks.map((t) => t.name) },
      meta: { message: opts.message ?? '', basedOn: opts.basedOn ?? null, sync },
    });
    if (opts.inSameTransaction) await opts.inSameTransaction(client, row.version);
    await notifyConfigVersion(client, row.version);
    return { version: row.version, config, createdAt: row.createdAt, sync };
  });
}


export async function currentConfig(db: Db): Promise<CurrentConfig> {
  return currentConfigOf(await latestConfigVersion(db));
}

export async function configAtVersion(db: Db, version: number): Promise<SluiceConfig> {
  const row = await getConfigVersion(db, version);
  if (!row) throw CoreError.notFound(`config version ${version}`);
  return storedConfig(row);
}
