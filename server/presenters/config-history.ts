// Config history: versions newest first, each with author, message, time and its diff
// to the previous version (grouped by task, before → after). Filtered by task, only the
// versions that changed that task are listed, with that task's part of the diff.
// Versions are gapless (max+1 under a lock), so "the previous one" is version − 1, a
// primary-key read. The task filter compares the task's stored definition with the
// previous version's in SQL (jsonb_path_query_first + lag over the version order), a
// scan of config_versions that stays small: one row per applied change.
import type pg from 'pg';
import { stringify } from 'yaml';
import { z } from 'zod';
import { CoreError } from '../core/errors';
import { canonicalConfig, diffConfigs } from '../core/config-diff';
import { groupChangesByTask, type TaskChangeGroup } from '../core/config-change-view';
import { guardsOfVersions, type GuardView } from './config-guards';
import { parseConfig, sluiceConfigSchema, taskNameSchema, type SluiceConfig } from '../core/task-definition';

type Db = pg.Pool | pg.PoolClient;

export const historyInput = z.strictObject({
  task: taskNameSchema.optional(),
  /** Show versions older than this one (the previous page's last version). */
  before: z.number().int().min(1).optional(),
  limit: z.number().int().min(1).max(100).default(20),
});

export interface VersionView {
  version: number;
  author: string;
  authorType: string;
  message: string;
  createdAt: Date;
  basedOn: number | null;
  changes: TaskChangeGroup[];
  /** number of changed fields over all tasks */
  changedFields: number;
  /** This version was applied with guard: the guard's state. */
  guard: GuardView | null;
  /** This version is the rollback a guard made (automatically, or on abort). */
  rollbackOf: GuardView | null;
}

export interface HistoryPage {
  latest: number | null;
  versions: VersionView[];
  /** pass as `before` for the next (older) page; null on the last page */
  nextBefore: number | null;
}

interface Row {
  version: number;
  author: string;
  author_type: string;
  message: string;
  created_at: Date;
  based_on: number | null;
  config: unknown;
  prev: unknown;
}

const EMPTY: SluiceConfig = sluiceConfigSchema.parse({});

function asConfig(raw: unknown, version: number): SluiceConfig {
  if (raw === null || raw === undefined) return EMPTY;
  const parsed = parseConfig(raw);
  if (!parsed.ok) throw CoreError.validation(parsed.errors, `stored config version ${version} no longer validates`);
  return parsed.value;
}

function view(r: Row): VersionView {
  const changes = groupChangesByTask(diffConfigs(asConfig(r.prev, r.version - 1), asConfig(r.config, r.version)));
  return {
    version: r.version,
    author: r.author,
    authorType: r.author_type,
    message: r.message,
    createdAt: r.created_at,
    basedOn: r.based_on,
    changes,
    changedFields: changes.reduce((s, g) => s + g.rows.length, 0),
    guard: null,
    rollbackOf: null,
  };
}

const COLUMNS = `v.version, v.author, v.author_type, v.message, v.created_at, v.based_on`;

export async function listConfigHistory(db: Db, input: z.output<typeof historyInput>): Promise<HistoryPage> {
  const latest = await db.query<{ v: number | null }>('SELECT max(version) AS v FROM config_versions');
  let rows: Row[];
  if (!input.task) {
    const r = await db.query<Row>(
      `SELECT ${COLUMNS}, v.config, p.config AS prev
       FROM config_versions v LEFT JOIN config_versions p ON p.version = v.version - 1
       WHERE $1::bigint IS NULL OR v.version < $1
       ORDER BY v.version DESC LIMIT $2`,
      [input.before ?? null, input.limit + 1],
    );
    rows = r.rows;
  } else {
    // Only that task's definition on each side, so the diff shows only its changes.
    const r = await db.query<Row>(
      `WITH d AS (
         SELECT ${COLUMNS},
                jsonb_path_query_first(v.config, '$.tasks[*] ? (@.name == $n)', jsonb_build_object('n', $1::text)) AS def
         FROM config_versions v
       ),
       l AS (SELECT d.*, lag(d.def) OVER (ORDER BY d.version) AS prev_def FROM d)
       SELECT l.version, l.author, l.author_type, l.message, l.created_at, l.based_on,
              CASE WHEN l.def IS NULL THEN '{"tasks": []}'::jsonb ELSE jsonb_build_object('tasks', jsonb_build_array(l.def)) END AS config,
              CASE WHEN l.prev_def IS NULL THEN '{"tasks": []}'::jsonb ELSE jsonb_build_object('tasks', jsonb_build_array(l.prev_def)) END AS prev
       FROM l
       WHERE l.def IS DISTINCT FROM l.prev_def AND ($2::bigint IS NULL OR l.version < $2)
       ORDER BY l.version DESC LIMIT $3`,
      [input.task, input.before ?? null, input.limit + 1],
    );
    rows = r.rows;
  }
  // A group reordered in the stored JSON differs in jsonb but is no change: drop those.
  const versions = rows.slice(0, input.limit).map(view).filter((v) => !input.task || v.changedFields > 0);
  const guards = await guardsOfVersions(db, versions.map((v) => v.version));
  for (const v of versions) {
    v.guard = guards.guarded.get(v.version) ?? null;
    v.rollbackOf = guards.rollbacks.get(v.version) ?? null;
  }
  return {
    latest: latest.rows[0]?.v ?? null,
    versions,
    nextBefore: rows.length > input.limit ? rows[input.limit - 1]!.version : null,
  };
}

export async function getConfigVersionView(db: Db, version: number): Promise<VersionView> {
  const r = await db.query<Row>(
    `SELECT ${COLUMNS}, v.config, p.config AS prev
     FROM config_versions v LEFT JOIN config_versions p ON p.version = v.version - 1
     WHERE v.version = $1`,
    [version],
  );
  if (!r.rows[0]) throw CoreError.notFound(`config version ${version}`);
  const guards = await guardsOfVersions(db, [version]);
  return { ...view(r.rows[0]), guard: guards.guarded.get(version) ?? null, rollbackOf: guards.rollbacks.get(version) ?? null };
}

export interface ConfigExport {
  version: number | null;
  filename: string;
  yaml: string;
}

/**
 * The config as YAML for `sluice config apply`: the canonical form (tasks and groups by
 * name, keys sorted, every default spelled out), so export → apply → export is the same
 * text and applying it unchanged is "no changes".
 */
export async function exportConfigYaml(db: Db, version?: number): Promise<ConfigExport> {
  const r = version
    ? await db.query<{ version: number; config: unknown; created_at: Date; author: string }>(
        'SELECT version, config, created_at, author FROM config_versions WHERE version = $1',
        [version],
      )
    : await db.query<{ version: number; config: unknown; created_at: Date; author: string }>(
        'SELECT version, config, created_at, author FROM config_versions ORDER BY version DESC LIMIT 1',
      );
  const row = r.rows[0];
  if (version && !row) throw CoreError.notFound(`config version ${version}`);
  const config = row ? asConfig(row.config, row.version) : EMPTY;
  const header = row
    ? `# Sluice config version ${row.version}, applied ${row.created_at.toISOString()} by ${row.author}\n`
    : '# Sluice config: no version applied yet\n';
  return {
    version: row?.version ?? null,
    filename: row ? `sluice-config-v${row.version}.yaml` : 'sluice-config.yaml',
    yaml: header + stringify(canonicalConfig(config), { lineWidth: 0 }),
  };
}
