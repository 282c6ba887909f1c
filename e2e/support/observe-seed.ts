// Seeds the Observe pages: tasks with their own thresholds, 24 h of metric samples as a
// coordinator's sampler would write them (5 s apart for the last 2 h, 1 min before),
// one partition running hot for the last 40 minutes, a dominant tenant, then the roll-up
// and an alert evaluation (fire at once) so charts and alerts have something to show.
import type pg from 'pg';
import { applyConfig } from '../../server/services/config-versions';
import { SYSTEM_ACTOR } from '../../server/db/audit';
import { insertSamples, setGroupKeyLoads, setPartitionDepths } from '../../test/support/observe-fixtures';
import { rollupMetrics } from '../../server/control-plane/services/rollup-metrics';
import { evaluateAlerts } from '../../server/services/alerts';
import { DEFAULT_ALERT_POLICY } from '../../server/core/alert-evaluation';
import type { TaskDefinitionInput } from '../../server/core/task-definition';

export interface ObserveSeed {
  hotTask: string;
  calmTask: string;
  idleTask: string;
  hotPartition: number;
  depthWarning: number;
  depthCritical: number;
}

/** Deterministic wobble in [−1, 1] per (partition, time). */
function wave(p: number, t: number, periodMs: number): number {
  return Math.sin((t / periodMs) * 2 * Math.PI + p * 1.7);
}

export async function seedObserve(pool: pg.Pool, suffix: string, now = Date.now()): Promise<ObserveSeed> {
  const hotTask = `emails-${suffix}`;
  const calmTask = `billing-${suffix}`;
  const idleTask = `reports-${suffix}`;
  const depthWarning = 800;
  const depthCritical = 2000;
  const hotPartition = 3;
  const tasks: TaskDefinitionInput[] = [
    {
      name: hotTask,
      partitions: 8,
      concurrency: 40,
      routing: { strategy: 'hash', keyPath: 'tenant' },
      groups: [{ name: 'tenant', limit: 10, keyPath: 'tenant' }],
      thresholds: { depth: { warning: depthWarning, critical: depthCritical }, p99LatencyMs: { warning: 4000, critical: 10_000 } },
    },
    { name: calmTask, partitions: 4, concurrency: 20 },
    { name: idleTask, partitions: 2 },
  ];
  // Keep tasks other specs created: apply on top of the current config.
  const current = await pool.query<{ config: { tasks: TaskDefinitionInput[] } }>('SELECT config FROM config_versions ORDER BY version DESC LIMIT 1');
  const others = (current.rows[0]?.config.tasks ?? []).filter((t) => !tasks.some((n) => n.name === t.name));
  await applyConfig(pool, SYSTEM_ACTOR, { tasks: [...others, ...tasks] }, { message: 'observe e2e seed' });

  const times: number[] = [];
  for (let t = now - 24 * 3600_000; t < now - 2 * 3600_000; t += 60_000) times.push(t);
  for (let t = now - 2 * 3600_000; t <= now; t += 5000) times.push(t);
  const hotSince = now - 40 * 60_000;
  const intervalOf = (t: number) => (t < now - 2 * 3600_000 ? 60_000 : 5000);
  for (const group of [times.filter((t) => intervalOf(t) === 60_000), times.filter((t) => intervalOf(t) === 5000)]) {
    const sec = intervalOf(group[0]!) / 1000;
    await insertSamples(pool, {
      task: hotTask,
      partitions: 8,
      intervalMs: sec * 1000,
      times: group,
      values: (p, t) => {
        const hot = p === hotPartition && t >= hotSince;
        const ramp = hot ? Math.min(1, (t - hotSince) / (25 * 60_000)) : 0;
        const base = 180 + 90 * wave(p, t, 3 * 3600_000) + 25 * wave(p + 3, t, 600_000);
        const depth = Math.round(base + ramp * 2400);
        const arrivals = Math.round(sec * (6 + 2 * wave(p, t, 1800_000) + (hot ? 24 : 0)));
        const processed = Math.round(sec * (6 + 1.5 * wave(p + 1, t, 1800_000)));
        const retryShare = t > now - 30 * 60_000 ? 0.13 : 0.05 + 0.02 * wave(p, t, 7200_000);
        const failed = Math.round(processed * retryShare);
        return { depth, arrivals, processed, failed, retried: failed, deadLettered: Math.round(processed * 0.004), inFlight: 5 };
      },
      totalLatency: (t) => ({ p50: 300 + 80 * wave(0, t, 900_000), p99: t > now - 25 * 60_000 ? 5200 + 1500 * wave(1, t, 600_000) : 1800 + 600 * wave(2, t, 1800_000) }),
    });
    await insertSamples(pool, {
      task: calmTask,
      partitions: 4,
      intervalMs: sec * 1000,
      times: group,
      values: (p, t) => ({
        depth: Math.round(40 + 20 * wave(p, t, 3600_000)),
        arrivals: Math.round(sec * (3 + wave(p, t, 1200_000))),
        processed: Math.round(sec * (3 + wave(p, t, 1200_000))),
        failed: 0,
        retried: 0,
        inFlight: 2,
      }),
      totalLatency: () => ({ p50: 120, p99: 900 }),
    });
  }
  // Back-filled samples: rebuild the roll-ups (the server's own roll-up service may have
  // ticked mid-seed and moved its cursor past these samples' times).
  await rollupMetrics(pool, new Date(now), { rebuild: true });
  await setPartitionDepths(
    pool,
    hotTask,
    Array.from({ length: 8 }, (_, p) => (p === hotPartition ? 2600 : Math.round(180 + 90 * wave(p, now, 3 * 3600_000)))),
  );
  await setPartitionDepths(pool, calmTask, [40, 38, 45, 41]);
  await setGroupKeyLoads(pool, hotTask, 'tenant', {
    acme: { inFlight: 10, queued: 2300 },
    globex: { inFlight: 8, queued: 120 },
    initech: { inFlight: 6, queued: 90 },
    umbrella: { inFlight: 5, queued: 70 },
  });
  await evaluateAlerts(pool, new Date(now), { ...DEFAULT_ALERT_POLICY, forMs: 0 });
  return { hotTask, calmTask, idleTask, hotPartition, depthWarning, depthCritical };
}
