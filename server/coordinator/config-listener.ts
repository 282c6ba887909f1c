// Follows the config: LISTEN sluice_config on a dedicated connection (reconnects with
// backoff and reloads after each reconnect, since notifications sent while disconnected
// are lost), plus a poll fallback (LISTEN does not pass transaction-mode poolers). It
// always loads the latest stored version and applies it only if it is newer than the one
// applied: a late or replayed notification can never take the coordinator backwards.
// Each apply (or its error) is recorded in the coordinators row with its duration.
// The same connection also LISTENs on sluice_enqueue (onEnqueue): an enqueue that made
// executions claimable right away names its task there, so an idle member claims at once
// instead of after its poll interval (the poll stays the fallback: a notification is a
// hint, never needed for correctness). And on sluice_cancel (onCancel): the id of an
// execution an operator asked to cancel (cancel-watch.ts checks whether it runs here).
import pg from 'pg';
import type { SluiceConfig } from '../core/task-definition';
import { parseConfig } from '../core/task-definition';
import { CONFIG_CHANNEL, latestConfigVersion } from '../db/config-versions';
import { ENQUEUE_CHANNEL } from '../db/enqueue-executions';
import { CANCEL_CHANNEL } from '../db/cancel-executions';
import { recordAppliedVersion } from '../db/coordinator-membership';
import { BREAKER_CHANNEL } from '../db/task-breakers';

export type ApplyFn = (version: number, config: SluiceConfig) => void | Promise<void>;

export interface ConfigListenerOptions {
  pool: pg.Pool;
  databaseUrl: string;
  coordinatorId: string;
  pollMs: number;
  apply: ApplyFn;
  /** Called with the task name of each sluice_enqueue notification. */
  onEnqueue?: (task: string) => void;
  /** Called with the execution id of each sluice_cancel notification. */
  onCancel?: (executionId: number) => void;
  /** Called with the task name of each sluice_breaker notification (a circuit breaker changed state). */
  onBreaker?: (task: string) => void;
  log: (msg: string) => void;
}

export class ConfigListener {
  applied: number | null = null;
  private client: pg.Client | null = null;
  private pollTimer: NodeJS.Timeout | null = null;
  private stopped = false;
  private chain: Promise<void> = Promise.resolve();
  private reconnectDelay = 100;

  constructor(private readonly o: ConfigListenerOptions) {}

  async start(): Promise<void> {
    await this.check('start');
    await this.connect();
    this.pollTimer = setInterval(() => void this.check('poll'), this.o.pollMs);
    this.pollTimer.unref();
  }

  /** Serialised: concurrent triggers queue behind the running check. */
  check(reason: string): Promise<void> {
    this.chain = this.chain.then(() => this.checkNow(reason)).catch((e) => this.o.log(`config check failed: ${(e as Error).message}`));
    return this.chain;
  }

  private async checkNow(reason: string): Promise<void> {
    if (this.stopped) return;
    const row = await latestConfigVersion(this.o.pool);
    if (!row || (this.applied !== null && row.version <= this.applied)) return;
    const t0 = performance.now();
    const parsed = parseConfig(row.config);
    if (!parsed.ok) {
      const error = `version ${row.version} does not validate: ${parsed.errors.map((e) => `${e.path}: ${e.message}`).join('; ')}`;
      await recordAppliedVersion(this.o.pool, this.o.coordinatorId, { version: row.version, applyMs: Math.round(performance.now() - t0), error });
      this.o.log(`config apply failed: ${error}`);
      return;
    }
    try {
      await this.o.apply(row.version, parsed.value);
      this.applied = row.version;
      await recordAppliedVersion(this.o.pool, this.o.coordinatorId, { version: row.version, applyMs: Math.round(performance.now() - t0), error: null });
      this.o.log(`applied config version ${row.version} (${reason})`);
    } catch (e) {
      const error = `version ${row.version}: ${(e as Error).message}`;
      await recordAppliedVersion(this.o.pool, this.o.coordinatorId, { version: row.version, applyMs: Math.round(performance.now() - t0), error });
      this.o.log(`config apply failed: ${error}`);
    }
  }

  private async connect(): Promise<void> {
    if (this.stopped) return;
    const client = new pg.Client({ connectionString: this.o.databaseUrl, application_name: 'sluice-config-listener' });
    client.on('notification', (n) => {
      if (n.channel === ENQUEUE_CHANNEL) {
        this.o.onEnqueue?.(n.payload ?? '');
        return;
      }
      if (n.channel === CANCEL_CHANNEL) {
        const id = Number(n.payload);
        if (Number.isSafeInteger(id) && id > 0) this.o.onCancel?.(id);
        return;
      }
      if (n.channel === BREAKER_CHANNEL) {
        this.o.onBreaker?.(n.payload ?? '');
        return;
      }
      if (n.channel !== CONFIG_CHANNEL) return;
      const v = Number(n.payload);
      if (Number.isFinite(v) && this.applied !== null && v <= this.applied) return; // older or same: ignore
      void this.check('notify');
    });
    const lost = () => {
      if (this.client !== client) return;
      this.client = null;
      client.removeAllListeners('error');
      client.on('error', () => {});
      void client.end().catch(() => {});
      if (this.stopped) return;
      const delay = this.reconnectDelay;
      this.reconnectDelay = Math.min(5000, this.reconnectDelay * 2);
      this.o.log(`config listener disconnected; reconnecting in ${delay} ms`);
      setTimeout(() => void this.connect(), delay).unref();
    };
    client.on('error', lost);
    client.on('end', lost);
    try {
      await client.connect();
      await client.query(`LISTEN ${CONFIG_CHANNEL}`);
      if (this.o.onEnqueue) await client.query(`LISTEN ${ENQUEUE_CHANNEL}`);
      if (this.o.onCancel) await client.query(`LISTEN ${CANCEL_CHANNEL}`);
      if (this.o.onBreaker) await client.query(`LISTEN ${BREAKER_CHANNEL}`);
      this.client = client;
      this.reconnectDelay = 100;
      await this.check('reconnect');
    } catch (e) {
      this.o.log(`config listener could not connect: ${(e as Error).message}`);
      this.client = client;
      lost();
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.pollTimer) clearInterval(this.pollTimer);
    const c = this.client;
    this.client = null;
    if (c) await c.end().catch(() => {});
    await this.chain.catch(() => {});
  }
}
