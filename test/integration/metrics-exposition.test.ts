// The Prometheus expositions — the control plane's /metrics (app/api/metrics/route.ts)
// and a real coordinator process's — pass `promtool check metrics`, answer only the
// bearer token when SLUICE_METRICS_TOKEN is set, and export every metric family the
// Grafana dashboard in docs/grafana queries.
//
// promtool comes from Debian's `prometheus` package (.ci/run installs it); without it the
// promtool checks are skipped with a message saying how to get it.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { applyTasks } from '../support/engine-fixtures';
import { coordinatorTestContext, waitFor } from '../support/coordinator-harness';
import { enqueue } from '../../server/services/enqueue';
import { cancelExecution } from '../../server/services/execution-actions';
import { SYSTEM_ACTOR } from '../../server/db/audit';

const TOKEN = 'metrics-token-for-this-test-0123';
const root = path.resolve(import.meta.dirname, '..', '..');
const hasPromtool = spawnSync('promtool', ['--version'], { stdio: 'ignore' }).status === 0;
if (!hasPromtool) console.warn('promtool not found: the `promtool check metrics` tests are skipped (apt-get install prometheus to run them; .ci/run does)');

const ctx = coordinatorTestContext();
let coordinatorText = '';
let controlPlaneText = '';
let GET: (req: Request) => Promise<Response>;

function promtoolCheck(text: string): { status: number | null; output: string } {
  const r = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

/** Family names from `# TYPE` lines; a histogram also answers to its _bucket, _sum and _count series. */
function exportedSeries(text: string): Set<string> {
  const names = new Set<string>();
  for (const m of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    names.add(m[1]!);
    if (m[2] === 'histogram' || m[2] === 'summary') for (const s of ['_bucket', '_sum', '_count']) names.add(m[1]! + s);
  }
  return names;
}

beforeAll(async () => {
  // The route reads env() and getPool() on first use: point both at this file's database.
  process.env.SLUICE_METRICS_TOKEN = TOKEN;
  process.env.DATABASE_URL = ctx.db.url;
  ({ GET } = await import('../../app/api/metrics/route'));

  await applyTasks(ctx.db.pool, [{ name: 'rec', partitions: 4, concurrency: 8, retry: { maxAttempts: 2, baseDelayMs: 10, maxDelayMs: 20 } }]);
  await ctx.h.start({ name: 'm', slots: 8, metricsPort: 0, env: { SLUICE_METRICS_TOKEN: TOKEN } });
  // The record handlers (test/support/handlers/record.ts) serve the task `rec`. Successes, one retry that then succeeds, and one that dies (two failed attempts).
  await enqueue(ctx.db.pool, 'rec', [
    ...Array.from({ length: 20 }, () => ({ payload: { sleepMs: 2 } })),
    { payload: { failTimes: 1 } },
    { payload: { failTimes: 5 } },
  ]);
  await waitFor('every execution finished', async () => {
    const r = await ctx.db.pool.query(`SELECT count(*)::int AS n FROM executions WHERE task = 'rec' AND state NOT IN ('succeeded', 'dead')`);
    const d = await ctx.db.pool.query(`SELECT count(*)::int AS n FROM dead_letters WHERE task = 'rec'`);
    return r.rows[0].n === 0 && d.rows[0].n === 1;
  }, 40_000);
  const port = Number((await ctx.db.pool.query(`SELECT metrics_port FROM coordinators WHERE name = 'm'`)).rows[0].metrics_port);
  const url = `http://127.0.0.1:${port}/metrics`;
  coordinatorText = await waitFor('the finish counters on /metrics', async () => {
    const t = await (await fetch(url, { headers: { authorization: `Bearer ${TOKEN}` } })).text();
    return /sluice_executions_finished_total\{[^}]*outcome="dead"[^}]*\} 1/.test(t) && t;
  });
  // One execution canceled by an operator before it ran (delayed an hour, so it waits).
  const later = await enqueue(ctx.db.pool, 'rec', [{ payload: { sleepMs: 2 }, delayMs: 3_600_000 }]);
  await cancelExecution(ctx.db.pool, SYSTEM_ACTOR, later.executions[0]!.id);
  const res = await GET(new Request('http://127.0.0.1/metrics', { headers: { authorization: `Bearer ${TOKEN}` } }));
  expect(res.status).toBe(200);
  controlPlaneText = await res.text();
}, 90_000);

afterAll(async () => {
  await (globalThis as { __sluicePool?: { end(): Promise<void> } }).__sluicePool?.end();
});

describe('SLUICE_METRICS_TOKEN', () => {
  it('the control plane answers /metrics only with the bearer token', async () => {
    for (const authorization of [undefined, 'Bearer wrong-token-of-the-same-size', `Basic ${TOKEN}`, `Bearer ${TOKEN}x`]) {
      const r = await GET(new Request('http://127.0.0.1/metrics', { headers: authorization ? { authorization } : {} }));
      expect(r.status, authorization).toBe(401);
      expect(r.headers.get('www-authenticate')).toBe('Bearer realm="sluice metrics"');
      expect(await r.text()).not.toContain('sluice_');
    }
    expect(controlPlaneText).toContain('# TYPE sluice_task_depth gauge');
  });

  it("a coordinator answers /metrics only with the bearer token", async () => {
    const port = Number((await ctx.db.pool.query(`SELECT metrics_port FROM coordinators WHERE name = 'm'`)).rows[0].metrics_port);
    for (const authorization of [undefined, 'Bearer wrong-token-of-the-same-size']) {
      const r = await fetch(`http://127.0.0.1:${port}/metrics`, { headers: authorization ? { authorization } : {} });
      expect(r.status).toBe(401);
      expect(await r.text()).not.toContain('sluice_');
    }
    expect(coordinatorText).toContain('# TYPE sluice_executions_finished_total counter');
  });
});

describe('the expositions', () => {
  it('the control plane reports depth, imbalance, dead letters, coordinators and alerts from the database', async () => {
    expect(controlPlaneText).toMatch(/^sluice_task_depth\{task="rec"\} 0$/m);
    expect(controlPlaneText).toMatch(/^sluice_task_imbalance_ratio\{task="rec"\} 1$/m);
    expect(controlPlaneText).toMatch(/^sluice_partition_depth\{task="rec",partition="3"\} 0$/m);
    expect(controlPlaneText).toMatch(/^sluice_dead_letters\{task="rec"\} 1$/m);
    // finished per outcome from the partition counters: 21 succeeded (one after a retry), 1 dead, 1 canceled
    expect(controlPlaneText).toContain('# TYPE sluice_task_finished_total counter');
    expect(controlPlaneText).toMatch(/^sluice_task_finished_total\{task="rec",outcome="succeeded"\} 21$/m);
    expect(controlPlaneText).toMatch(/^sluice_task_finished_total\{task="rec",outcome="dead"\} 1$/m);
    expect(controlPlaneText).toMatch(/^sluice_task_finished_total\{task="rec",outcome="canceled"\} 1$/m);
    // backpressure outcomes (nothing went past maxDepth here): one sample per outcome
    expect(controlPlaneText).toContain('# TYPE sluice_task_backpressure_total counter');
    for (const outcome of ['rejected', 'throttled', 'shed', 'spilled']) {
      expect(controlPlaneText).toMatch(new RegExp(`^sluice_task_backpressure_total\\{task="rec",outcome="${outcome}"\\} 0$`, 'm'));
    }
    expect(controlPlaneText).toMatch(/^sluice_dead_letters_pending\{task="rec"\} 1$/m);
    expect(controlPlaneText).toMatch(/^sluice_coordinators\{state="live"\} 1$/m);
    expect(controlPlaneText).toMatch(/^sluice_alerts_firing_all 0$/m);
    expect(controlPlaneText).not.toContain('sluice_alerts_firing_total');
  });

  it.skipIf(!hasPromtool)('the control plane passes promtool check metrics', () => {
    const r = promtoolCheck(controlPlaneText);
    expect(r.output).toBe('');
    expect(r.status).toBe(0);
  });

  it.skipIf(!hasPromtool)('a coordinator passes promtool check metrics', () => {
    const r = promtoolCheck(coordinatorText);
    expect(r.output).toBe('');
    expect(r.status).toBe(0);
  });

  it.skipIf(!hasPromtool)('promtool does reject a gauge with a counter suffix (the check can fail)', () => {
    const r = promtoolCheck('# HELP sluice_x_total x\n# TYPE sluice_x_total gauge\nsluice_x_total 1\n');
    expect(r.status).not.toBe(0);
    expect(r.output).toContain('non-counter metrics should not have "_total" suffix');
  });
});

describe('docs/grafana/sluice-dashboard.json', () => {
  const dashboard = JSON.parse(fs.readFileSync(path.join(root, 'docs', 'grafana', 'sluice-dashboard.json'), 'utf8')) as {
    uid: string;
    panels: { id: number; type: string; datasource?: { uid: string }; targets?: { expr: string; datasource: { uid: string } }[] }[];
    templating: { list: { name: string; type: string; query: unknown; definition?: string }[] };
  };
  const queries = [
    ...dashboard.panels.flatMap((p) => (p.targets ?? []).map((t) => t.expr)),
    ...dashboard.templating.list.filter((v) => v.type === 'query').map((v) => v.definition ?? ''),
  ];

  it('every query names only metric families the control plane or a coordinator exports', () => {
    const exported = new Set([...exportedSeries(controlPlaneText), ...exportedSeries(coordinatorText)]);
    expect(queries.length).toBeGreaterThan(20);
    const missing: string[] = [];
    for (const q of queries) {
      const names = q.match(/\bsluice_[a-z0-9_]+/g) ?? [];
      expect(names.length, q).toBeGreaterThan(0);
      for (const n of names) if (!exported.has(n)) missing.push(`${n} (in ${q})`);
    }
    expect(missing).toEqual([]);
  });

  it('imports as is: a datasource variable every panel uses, unique panel ids, no unresolved inputs', () => {
    const ds = dashboard.templating.list.find((v) => v.type === 'datasource');
    expect(ds).toMatchObject({ name: 'datasource', query: 'prometheus' });
    expect(JSON.stringify(dashboard)).not.toContain('__inputs');
    const ids = dashboard.panels.map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const p of dashboard.panels.filter((x) => x.type !== 'row')) {
      expect(p.datasource?.uid, `panel ${p.id}`).toBe('${datasource}');
      for (const t of p.targets ?? []) expect(t.datasource.uid).toBe('${datasource}');
    }
  });
});
