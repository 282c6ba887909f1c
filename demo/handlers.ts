// Demo handlers: a coordinator started with `--handlers demo/handlers.ts` runs these.
// They sleep for realistic durations and fail the way real integrations fail, so the
// charts, retries, timeouts and dead letters have something true to show.
import { setTimeout as sleep } from 'node:timers/promises';

interface Ctx {
  executionId: number | string;
  attempt: number;
  signal: AbortSignal;
}

const jitter = (min: number, max: number) => min + Math.random() * (max - min);

async function work(ms: number, signal: AbortSignal): Promise<void> {
  await sleep(ms, undefined, { signal });
}

export default {
  async 'send-email'(payload: { tenant: string; to: string }, ctx: Ctx) {
    await work(jitter(20, 120), ctx.signal);
    if (Math.random() < 0.03) throw new Error(`SMTP 421 4.7.0 ${payload.tenant}-mx-${Math.floor(Math.random() * 9)} try again later`);
  },
  async 'resize-image'(payload: { format: string; bytes: number }, ctx: Ctx) {
    if (payload.format === 'image/heic') throw new TypeError(`Unsupported image format: ${payload.format}`);
    // ~2% of images are huge and exceed the 1.5 s timeout.
    await work(payload.bytes > 9_000_000 ? 4000 : jitter(50, 300), ctx.signal);
  },
  async 'sync-ledger'(payload: { account: string; seq: number }, ctx: Ctx) {
    await work(jitter(30, 80), ctx.signal);
    if (Math.random() < 0.01) throw new Error(`deadlock detected while updating ledger row ${payload.account}:${payload.seq}`);
  },
  async 'webhook-delivery'(payload: { endpoint: string; event: string }, ctx: Ctx) {
    await work(jitter(40, 200), ctx.signal);
    if (payload.endpoint.includes('flaky') && Math.random() < 0.5) {
      throw new Error(`HTTP 503 Service Unavailable from ${payload.endpoint}`);
    }
    if (Math.random() < 0.02) throw new Error(`connect ETIMEDOUT ${payload.endpoint}`);
  },
};
