// The engine bench's workloads as a library, so a workload means one thing in every bench:
// bench/engine.ts runs them all (W1, W2, W2 skew, W3, W4, claim), bench/executions.ts runs
// W2 beside its list/detail read load (w2_drop_pct). Everything here works on one bench
// database (pool + url) and coordinators started in this process.
import type pg from 'pg';
import { applyConfig } from '../../server/services/config-versions';
import { SYSTEM_ACTOR } from '../../server/db/audit';
import { enqueue, type EnqueueInput } from '../../server/services/enqueue';
import { startCoordinator, type RunningCoordinator } from '../../server/coordinator/main';
import type { TaskDefinitionInput } from '../../server/core/task-definition';
import { waitForSettledOwnership } from './settled-ownership';

export const BENCH_TIMINGS = { heartbeatMs: 500, staleMs: 5000, pollMs: 5, configPollMs: 2000, flushMs: 2 };

export interface BurnDown {
  perS: number;
  commitsPerJob: number;
}

type FunctionTimes = Map<string, { calls: number; total: number; self: number }>;

/** W2: 10 tenants × 100 keys, at most 20 running per tenant and 1 per key (bench, bench:executions, bench:soak). */
export const w2Definition = (name: string, extra: Partial<TaskDefinitionInput> = {}): TaskDefinitionInput => ({
  name,
  partitions: 4,
  concurrency: 200,
  groups: [
    { name: 'tenant', limit: 20, keyPath: 't' },
    { name: 'key', limit: 1, keyPath: 'k' },
  ],
  backpressure: { maxDepth: 10_000_000 },
  ...extra,
});

/** W7 (seed 001's prototype): `groups` groups g0…g{n-1}, each key at most `limit` running. */
export const manyGroupsDefinition = (name: string, groups: number, limit = 5, extra: Partial<TaskDefinitionInput> = {}): TaskDefinitionInput => ({
  name,
  partitions: 4,
  concurrency: 200,
  groups: Array.from({ length: groups }, (_, j) => ({ name: `g${j}`, limit, keyPath: `g${j}` })),
  backpressure: { maxDepth: 10_000_000 },
  ...extra,
});

/** W7's payloads: one key of `keys` per group, uniform and independent across groups. */
export function manyGroupsInputs(n: number, rnd: () => number, groups: number, keys: number): EnqueueInput[] {
  return Array.from({ length: n }, () => ({
    payload: Object.fromEntries(Array.from({ length: groups }, (_, j) => [`g${j}`, `k${Math.floor(rnd() * keys)}`])),
  }));
}

/** The engine bench's generator (an LCG, seed 42 unless told): W2's key draws are reproducible run to run. */
export function lcg(seed = 42): () => number {
  let s = seed;
  return () => (s = (s * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
}

/** W2's payloads: a tenant of 10 and a key of 100 per tenant, uniform (or 90% on tenant 0 with `skew`). */
export function w2Inputs(n: number, rnd: () => number, opts: { skew?: boolean } = {}): EnqueueInput[] {
  return Array.from({ length: n }, () => {
    const t = opts.skew ? (rnd() < 0.9 ? 0 : 1 + Math.floor(rnd() * 9)) : Math.floor(rnd() * 10);
    return { payload: { t: `t${t}`, k: `t${t}-k${Math.floor(rnd() * 100)}` } };
  });
}

export interface EngineBench {
  /** Adds (or replaces) a task in the bench's config, keeping every task added before. */
  addTask(t: TaskDefinitionInput): Promise<void>;
  enqueueAll(task: string, inputs: EnqueueInput[]): Promise<void>;
  coordinators(n: number, handlers: Record<string, (p: unknown) => Promise<void> | void>, slots: number, tasksServed: string[], timings?: typeof BENCH_TIMINGS): Promise<RunningCoordinator[]>;
  /** Runs `members` coordinators until `total` executions of `task` are processed; jobs/s over first claim → last finish. */
  burnDown(task: string, total: number, handlers: Record<string, () => void>, slots?: number, members?: number): Promise<BurnDown>;
  /** W2 on a fresh task `name`: n executions enqueued, then burned down by 2 coordinators. */
  runW2(name: string, n: number, rnd: () => number): Promise<BurnDown>;
}

export function engineBench(opts: {
  pool: pg.Pool;
  url: string;
  quick: boolean;
  /** Print per burn-down the database time per sluice_* function (needs track_functions = 'all'). */
  profile?: boolean;
  /** Tasks the database already serves: kept in every config this applies. */
  tasks?: TaskDefinitionInput[];
}): EngineBench {
  const { pool, url, quick } = opts;
  let tasks: TaskDefinitionInput[] = opts.tasks ?? [];

  async function commits(): Promise<number> {
    const r = await pool.query<{ n: number }>('SELECT xact_commit AS n FROM pg_stat_database WHERE datname = current_database()');
    return Number(r.rows[0]!.n);
  }

  async function functionTimes(): Promise<FunctionTimes> {
    await pool.query('SELECT pg_stat_clear_snapshot()');
    const r = await pool.query<{ f: string; calls: number; total: number; self: number }>(
      `SELECT funcname AS f, calls::int AS calls, total_time AS total, self_time AS self FROM pg_stat_user_functions WHERE funcname LIKE 'sluice_%'`,
    );
    return new Map(r.rows.map((x) => [x.f, { calls: Number(x.calls), total: Number(x.total), self: Number(x.self) }]));
  }

  function printProfile(label: string, before: FunctionTimes, after: FunctionTimes, jobs: number) {
    console.log(`  profile ${label}: function, calls, total ms, self ms, total µs per job`);
    for (const [f, a] of [...after].sort((x, y) => y[1].total - x[1].total)) {
      const b = before.get(f) ?? { calls: 0, total: 0, self: 0 };
      const calls = a.calls - b.calls;
      if (calls === 0) continue;
      const total = a.total - b.total;
      console.log(`    ${f.padEnd(28)} ${String(calls).padStart(7)} ${total.toFixed(0).padStart(8)} ${(a.self - b.self).toFixed(0).padStart(8)} ${((1000 * total) / jobs).toFixed(1).padStart(8)}`);
    }
  }

  async function processed(task: string): Promise<number> {
    const r = await pool.query<{ n: number }>('SELECT coalesce(sum(processed_total), 0)::bigint AS n FROM partition_outcomes WHERE task = $1', [task]);
    return Number(r.rows[0]!.n);
  }

  const bench: EngineBench = {
    async addTask(t) {
      tasks = [...tasks.filter((x) => x.name !== t.name), t];
      await applyConfig(pool, SYSTEM_ACTOR, { tasks }, { message: `bench ${t.name}` });
    },

    async enqueueAll(task, inputs) {
      for (let i = 0; i < inputs.length; i += 5000) await enqueue(pool, task, inputs.slice(i, i + 5000));
    },

    async coordinators(n, handlers, slots, tasksServed, timings = BENCH_TIMINGS) {
      const out = [];
      for (let i = 0; i < n; i++) {
        out.push(
          await startCoordinator({
            databaseUrl: url,
            handlers,
            name: `bench-${i}`,
            slots,
            tasks: tasksServed,
            timings,
            maintenance: false,
            log: () => {},
          }),
        );
      }
      // let ownership settle across members before timing
      await new Promise((r) => setTimeout(r, BENCH_TIMINGS.heartbeatMs * 3));
      return out;
    },

    async burnDown(task, total, handlers, slots = 100, members = 2) {
      // Each burn-down starts from a vacuumed, analyzed table: otherwise a workload pays for
      // the one before it (W2 right after W1's 200k finished rows ran at 4,400 jobs/s while
      // autovacuum worked through them, and at 7,300 alone), and the ratio says more about
      // the order than about the engine.
      await pool.query('VACUUM (ANALYZE) executions, group_slots, partition_stats, task_runtime');
      // ...and with every member already owning its partitions. The task is paused while the
      // members start and take their shares, and resumed once the owner rows are the
      // rendezvous assignment of all of them. Before (until 2026-11-24), members claimed from
      // the moment they started: the second started ~0.6 s after the first had claimed, so a
      // quick W1 (4,000 jobs, ~1 s) ran mostly on ONE member and then rebalanced (bench-0 took
      // 2,700–3,300 of 4,000), while a W7 (~3 s) ran mostly on two — the W7 ÷ W1 ratio
      // compared different set-ups, and W1's figure moved with how late the second member came.
      const def = tasks.find((t) => t.name === task);
      if (def) await bench.addTask({ ...def, paused: true });
      const f0 = opts.profile ? await functionTimes() : null;
      const c0 = await commits();
      const cs = await bench.coordinators(members, handlers, slots, [task]);
      if (def) {
        await waitForSettledOwnership(pool, [task], cs.map((c) => c.id));
        await bench.addTask(def);
      }
      const deadline = Date.now() + (quick ? 60_000 : 600_000);
      while ((await processed(task)) < total) {
        if (Date.now() > deadline) throw new Error(`${task}: burn-down did not finish in time`);
        await new Promise((r) => setTimeout(r, 50));
      }
      await Promise.all(cs.map((c) => c.stop()));
      // The burn-down window from the database: first claim → last finish of this task, so
      // neither member start-up nor this loop's polling granularity counts.
      const w = await pool.query<{ s: number }>(
        `SELECT extract(epoch FROM max(finished_at) - min(started_at)) AS s FROM executions WHERE task = $1`,
        [task],
      );
      const secs = Math.max(0.001, Number(w.rows[0]!.s));
      const c1 = await commits();
      if (f0) {
        await new Promise((r) => setTimeout(r, 1100)); // backends flush their statistics at most every second
        printProfile(task, f0, await functionTimes(), total);
      }
      return { perS: total / secs, commitsPerJob: (c1 - c0) / total };
    },

    async runW2(name, n, rnd) {
      await bench.addTask(w2Definition(name));
      await bench.enqueueAll(name, w2Inputs(n, rnd));
      return bench.burnDown(name, n, { [name]: () => {} });
    },
  };
  return bench;
}

export const median = (xs: number[]) => {
  const v = [...xs].sort((a, b) => a - b);
  const m = Math.floor(v.length / 2);
  return v.length % 2 ? v[m]! : (v[m - 1]! + v[m]!) / 2;
};
