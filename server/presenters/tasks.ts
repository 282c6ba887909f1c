// The Tasks list and the task editor: the definitions of the current config version
// next to what the runtime counters say now (running, queued, spilled) and how many of
// each task's partitions a live coordinator owns. Definitions come from the stored
// version (the source of truth), counters from task_runtime / partition_stats.
import type pg from 'pg';
import type { TaskDefinition } from '../core/task-definition';
import { findTask } from '../core/config-edits';
import { readTaskLoad, type TaskLoad } from '../db/task-load';
import { latestConfigVersion } from '../db/config-versions';
import { currentConfigOf } from '../core/stored-config';
import { coordinatorLive } from '../db/coordinator-liveness';

type Db = pg.Pool | pg.PoolClient;

export interface TaskLoadView {
  inFlight: number;
  depth: number;
  spilled: number;
  maxPartitionDepth: number;
  /** Partitions owned by a live coordinator (0 → nothing is claiming this task). */
  ownedPartitions: number;
  /** The config version task_runtime was last synced to (lags only if a sync failed). */
  runtimeVersion: number | null;
}

export interface TaskSummary {
  name: string;
  description: string | null;
  paused: boolean;
  concurrency: number;
  partitions: number;
  routing: { strategy: string; keyPath: string | null };
  streamKeyPath: string | null;
  groups: { name: string; limit: number; keyPath: string | null; overrides: number }[];
  backpressure: { policy: string; maxDepth: number };
  timeoutMs: number;
  maxAttempts: number;
  load: TaskLoadView;
}

export interface TaskList {
  version: number | null;
  author: string | null;
  createdAt: Date | null;
  tasks: TaskSummary[];
}

export interface TaskDetail {
  version: number | null;
  definition: TaskDefinition;
  load: TaskLoadView;
}

const EMPTY_LOAD: TaskLoadView = { inFlight: 0, depth: 0, spilled: 0, maxPartitionDepth: 0, ownedPartitions: 0, runtimeVersion: null };

async function ownedPartitionCounts(db: Db, tasks: readonly string[]): Promise<Map<string, number>> {
  const r = await db.query<{ task: string; n: number }>(
    `SELECT o.task, count(*)::int AS n
     FROM partition_owners o JOIN coordinators c ON c.id = o.owner
     WHERE o.task = ANY ($1::text[]) AND ${coordinatorLive('c')}
     GROUP BY o.task`,
    [[...tasks]],
  );
  return new Map(r.rows.map((x) => [x.task, x.n]));
}

function loadView(l: TaskLoad | undefined, owned: number): TaskLoadView {
  if (!l) return { ...EMPTY_LOAD, ownedPartitions: owned };
  return {
    inFlight: l.inFlight,
    depth: l.depth,
    spilled: l.spilled,
    maxPartitionDepth: l.maxPartitionDepth,
    ownedPartitions: owned,
    runtimeVersion: l.configVersion,
  };
}

function summary(t: TaskDefinition, load: TaskLoadView): TaskSummary {
  return {
    name: t.name,
    description: t.description ?? null,
    paused: t.paused,
    concurrency: t.concurrency,
    partitions: t.partitions,
    routing: { strategy: t.routing.strategy, keyPath: t.routing.keyPath ?? null },
    streamKeyPath: t.stream?.keyPath ?? null,
    groups: t.groups.map((g) => ({ name: g.name, limit: g.limit, keyPath: g.keyPath ?? null, overrides: Object.keys(g.overrides).length })),
    backpressure: { policy: t.backpressure.policy, maxDepth: t.backpressure.maxDepth },
    timeoutMs: t.timeoutMs,
    maxAttempts: t.retry.maxAttempts,
    load,
  };
}

export async function listTasks(db: Db): Promise<TaskList> {
  const cur = currentConfigOf(await latestConfigVersion(db));
  const names = cur.config.tasks.map((t) => t.name);
  const [loads, owned] = await Promise.all([readTaskLoad(db, names), ownedPartitionCounts(db, names)]);
  const byTask = new Map(loads.map((l) => [l.task, l]));
  const tasks = [...cur.config.tasks]
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map((t) => summary(t, loadView(byTask.get(t.name), owned.get(t.name) ?? 0)));
  return { version: cur.version, author: cur.author, createdAt: cur.createdAt, tasks };
}

/** null when the current version has no task of that name. */
export async function getTask(db: Db, name: string): Promise<TaskDetail | null> {
  const cur = currentConfigOf(await latestConfigVersion(db));
  const def = findTask(cur.config, name);
  if (!def) return null;
  const [[load], owned] = await Promise.all([readTaskLoad(db, [name]), ownedPartitionCounts(db, [name])]);
  return { version: cur.version, definition: def, load: loadView(load, owned.get(name) ?? 0) };
}
