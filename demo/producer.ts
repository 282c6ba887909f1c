// Demo traffic: several tasks and tenants with skew, flaky endpoints and poison images
// (retries and dead letters), ordered ledger streams, and a periodic hot-partition
// episode (one tenant floods hash-routed send-email, so one partition runs hot).
// Bounded: a fixed rate per task, enqueued in small batches every 250 ms, stopping when
// the signal aborts. Everything goes to the local Postgres through the enqueue service.
import type pg from 'pg';
import { enqueue, type EnqueueInput } from '../server/services/enqueue';
import { isCoreError } from '../server/core/errors';

export interface DemoProducerOptions {
  pool: pg.Pool;
  signal: AbortSignal;
  log?: (m: string) => void;
  /** When the first hot-partition episode starts, and how often one recurs. */
  episodeStartMs?: number;
  episodeEveryMs?: number;
  episodeLengthMs?: number;
}

const TICK_MS = 250;

function weighted<T>(items: Array<[T, number]>): () => T {
  const total = items.reduce((s, [, w]) => s + w, 0);
  return () => {
    let r = Math.random() * total;
    for (const [v, w] of items) {
      r -= w;
      if (r <= 0) return v;
    }
    return items[items.length - 1]![0];
  };
}

const otherTenants = Array.from({ length: 20 }, (_, i) => `tenant-${String(i + 1).padStart(2, '0')}`);
const emailTenant = weighted<string>([
  ['acme', 35],
  ['globex', 6],
  ['initech', 15],
  ['umbrella', 10],
  ['hooli', 10],
  ...otherTenants.map((t) => [t, 1] as [string, number]),
]);
const endpoints = Array.from({ length: 30 }, (_, i) => (i % 10 === 3 ? `https://flaky-${i}.hooks.example/events` : `https://hooks-${i}.example/events`));
const ledgerSeq = new Map<string, number>();

/** Executions per second for each task, and how to make one. */
function generators(hot: boolean): Array<{ task: string; perSecond: number; make: () => EnqueueInput }> {
  return [
    { task: 'send-email', perSecond: 12, make: () => ({ payload: { tenant: emailTenant(), to: `user${Math.floor(Math.random() * 1e4)}@example.com` } }) },
    ...(hot ? [{ task: 'send-email', perSecond: 150, make: () => ({ payload: { tenant: 'globex', to: 'campaign@globex.example' } }) }] : []),
    {
      task: 'resize-image',
      perSecond: 4,
      make: () => {
        const r = Math.random();
        return { payload: { format: r < 0.03 ? 'image/heic' : 'image/jpeg', bytes: r > 0.98 ? 12_000_000 : Math.floor(Math.random() * 3_000_000) } };
      },
    },
    {
      task: 'sync-ledger',
      perSecond: 6,
      make: () => {
        const account = `acct-${Math.floor(Math.random() * 200)}`;
        const seq = (ledgerSeq.get(account) ?? 0) + 1;
        ledgerSeq.set(account, seq);
        return { payload: { account, seq, tenant: `tenant-${String((Number(account.slice(5)) % 10) + 1).padStart(2, '0')}` } };
      },
    },
    { task: 'webhook-delivery', perSecond: 5, make: () => ({ payload: { endpoint: endpoints[Math.floor(Math.random() * endpoints.length)]!, event: 'invoice.paid' } }) },
  ];
}

export async function runDemoProducer(opts: DemoProducerOptions): Promise<void> {
  const log = opts.log ?? (() => {});
  const started = Date.now();
  const episodeStart = opts.episodeStartMs ?? 5_000;
  const every = opts.episodeEveryMs ?? 300_000;
  const length = opts.episodeLengthMs ?? 75_000;
  const carry = new Map<string, number>();
  let wasHot = false;
  let rejected = 0;

  while (!opts.signal.aborted) {
    const t = Date.now() - started - episodeStart;
    const hot = t >= 0 && t % every < length;
    if (hot !== wasHot) log(hot ? 'hot-partition episode: globex floods send-email' : 'hot-partition episode over');
    wasHot = hot;
    for (const [i, g] of generators(hot).entries()) {
      const key = `${g.task}#${i}`;
      const due = (carry.get(key) ?? 0) + (g.perSecond * TICK_MS) / 1000;
      const n = Math.floor(due);
      carry.set(key, due - n);
      if (n === 0) continue;
      try {
        await enqueue(opts.pool, g.task, Array.from({ length: n }, g.make));
      } catch (e) {
        if (isCoreError(e) && e.code === 'TOO_MANY_REQUESTS') {
          rejected += n;
          if (rejected % 100 < n) log(`backpressure rejected ${rejected} demo executions so far`);
        } else if (isCoreError(e) && e.code === 'NOT_FOUND') {
          // The operator removed a demo task: stop producing for it, keep the rest.
        } else {
          log(`enqueue ${g.task} failed: ${e instanceof Error ? e.message : String(e)}`);
        }
      }
    }
    await new Promise((r) => setTimeout(r, TICK_MS));
  }
}
