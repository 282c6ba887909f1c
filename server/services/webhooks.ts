// Webhook notifications: targets (Settings → Webhooks; each change audited in its own
// transaction, the secret never echoed back or written to the audit log), the outbox
// rows alert events enqueue, and the sender the `deliver-webhooks` service runs: POST
// the JSON body, signed with HMAC-SHA256 when the target has a secret, retried with
// exponential backoff up to max_attempts, every attempt recorded for the delivery log.
import { createHmac } from 'node:crypto';
import { lookup as dnsLookup } from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { z } from 'zod';
import { inputText } from '../core/input-text';
import { CoreError } from '../core/errors';
import { baseRetryDelayMs } from '../core/backoff';
import { withTransaction, type Db } from '../db/pool';
import { recordAudit, type Actor } from '../db/audit';
import { claimDueDeliveries, enqueueDeliveries, pruneDeliveries, recordDeliveryAttempt, type DueDelivery } from '../db/webhook-deliveries';
import { parseInput } from '../core/validate-input';
import type { WebhookTargetView } from '../core/webhook-target-view';
import { parseAllowList, resolvedAddressProblem, webhookUrlProblem, type AllowEntry } from '../core/webhook-address';
import { env } from '../env';

const severitySchema = z.enum(['warning', 'critical'], { error: 'must be warning or critical' });

/** SLUICE_WEBHOOK_ALLOW_HOSTS: the internal hosts, addresses and CIDRs webhooks may reach. */
export function webhookAllowList(): AllowEntry[] {
  return parseAllowList(env().SLUICE_WEBHOOK_ALLOW_HOSTS);
}

const urlSchema = inputText
  .trim()
  .max(2000, 'is too long')
  .superRefine((u, ctx) => {
    const problem = webhookUrlProblem(u, webhookAllowList());
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });

const nameSchema = inputText.trim().min(1, 'is required').max(100, 'is too long');
const secretSchema = inputText.min(16, 'must be at least 16 characters').max(200, 'is too long');

export const createWebhookInput = z.strictObject({
  name: nameSchema,
  url: urlSchema,
  secret: secretSchema.optional(),
  minSeverity: severitySchema.default('warning'),
  enabled: z.boolean().default(true),
});

export const updateWebhookInput = z
  .strictObject({
    id: z.uuid('must be a webhook id'),
    name: nameSchema.optional(),
    url: urlSchema.optional(),
    /** null removes the secret; omitted keeps it. */
    secret: secretSchema.nullable().optional(),
    minSeverity: severitySchema.optional(),
    enabled: z.boolean().optional(),
  })
  .refine((v) => Object.keys(v).some((k) => k !== 'id'), { message: 'nothing to change' });

export const webhookIdInput = z.strictObject({ id: z.uuid('must be a webhook id') });

export type { WebhookTargetView };

interface TargetRow {
  id: string;
  name: string;
  url: string;
  secret: string | null;
  enabled: boolean;
  min_severity: 'warning' | 'critical';
  created_by: string;
  created_at: Date;
  updated_at: Date;
}

export function targetView(r: TargetRow): WebhookTargetView {
  return {
    id: r.id,
    name: r.name,
    url: r.url,
    hasSecret: r.secret !== null,
    enabled: r.enabled,
    minSeverity: r.min_severity,
    createdBy: r.created_by,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

/** What the audit log keeps of a target: everything but the secret's value. */
const auditView = (r: TargetRow) => ({ name: r.name, url: r.url, hasSecret: r.secret !== null, enabled: r.enabled, minSeverity: r.min_severity });

const isUniqueViolation = (e: unknown) => typeof e === 'object' && e !== null && (e as { code?: unknown }).code === '23505';
const nameTaken = (name: string) =>
  new CoreError('CONFLICT', `A webhook named "${name}" already exists.`, { fieldErrors: [{ path: 'name', message: 'is already taken' }] });

export async function createWebhook(pool: Db, actor: Actor, input: z.input<typeof createWebhookInput>): Promise<WebhookTargetView> {
  const v = parseInput(createWebhookInput, input);
  try {
    return await withTransaction(pool, async (c) => {
      const r = await c.query<TargetRow>(
        `INSERT INTO webhook_targets (name, url, secret, min_severity, enabled, created_by) VALUES ($1, $2, $3, $4, $5, $6) RETURNING *`,
        [v.name, v.url, v.secret ?? null, v.minSeverity, v.enabled, actor.label],
      );
      const row = r.rows[0]!;
      await recordAudit(c, actor, { action: 'webhook.create', targetType: 'webhook', targetId: row.id, after: auditView(row) });
      return targetView(row);
    });
  } catch (e) {
    if (isUniqueViolation(e)) throw nameTaken(v.name);
    throw e;
  }
}

export async function updateWebhook(pool: Db, actor: Actor, input: z.input<typeof updateWebhookInput>): Promise<WebhookTargetView> {
  const v = parseInput(updateWebhookInput, input);
  try {
    return await withTransaction(pool, async (c) => {
      const before = (await c.query<TargetRow>('SELECT * FROM webhook_targets WHERE id = $1 FOR UPDATE', [v.id])).rows[0];
      if (!before) throw CoreError.notFound('Webhook');
      const r = await c.query<TargetRow>(
        `UPDATE webhook_targets SET name = $2, url = $3, secret = $4, min_severity = $5, enabled = $6, updated_at = now()
         WHERE id = $1 RETURNING *`,
        [
          v.id,
          v.name ?? before.name,
          v.url ?? before.url,
          v.secret === undefined ? before.secret : v.secret,
          v.minSeverity ?? before.min_severity,
          v.enabled ?? before.enabled,
        ],
      );
      const row = r.rows[0]!;
      await recordAudit(c, actor, {
        action: 'webhook.update',
        targetType: 'webhook',
        targetId: row.id,
        before: auditView(before),
        after: auditView(row),
        meta: v.secret !== undefined ? { secretChanged: true } : undefined,
      });
      return targetView(row);
    });
  } catch (e) {
    if (isUniqueViolation(e) && v.name) throw nameTaken(v.name);
    throw e;
  }
}

export async function deleteWebhook(pool: Db, actor: Actor, input: z.input<typeof webhookIdInput>): Promise<{ id: string }> {
  const v = parseInput(webhookIdInput, input);
  return withTransaction(pool, async (c) => {
    const r = await c.query<TargetRow>('DELETE FROM webhook_targets WHERE id = $1 RETURNING *', [v.id]);
    const row = r.rows[0];
    if (!row) throw CoreError.notFound('Webhook');
    await recordAudit(c, actor, { action: 'webhook.delete', targetType: 'webhook', targetId: row.id, before: auditView(row) });
    return { id: row.id };
  });
}

/** Queues a test notification to one target; the sender delivers it like any other. */
export async function sendTestWebhook(pool: Db, actor: Actor, input: z.input<typeof webhookIdInput>): Promise<{ queued: number }> {
  const v = parseInput(webhookIdInput, input);
  return withTransaction(pool, async (c) => {
    const t = (await c.query<TargetRow>('SELECT * FROM webhook_targets WHERE id = $1', [v.id])).rows[0];
    if (!t) throw CoreError.notFound('Webhook');
    if (!t.enabled) throw new CoreError('PRECONDITION_FAILED', `Webhook "${t.name}" is disabled; enable it to send a test.`);
    const queued = await enqueueDeliveries(c, {
      alertId: null,
      event: 'test',
      payload: { event: 'test', message: `Test notification from Sluice, sent by ${actor.label}.`, sentAt: new Date().toISOString() },
      severity: null,
      targetId: t.id,
    });
    await recordAudit(c, actor, { action: 'webhook.test', targetType: 'webhook', targetId: t.id });
    return { queued };
  });
}

// ─── Alert notifications ──────────────────────────────────────────────────────────

export type AlertNotificationEvent = 'alert.fired' | 'alert.escalated' | 'alert.resolved';

export interface AlertNotification {
  id: number;
  key: string;
  task: string;
  rule: string;
  subject: string;
  severity: 'warning' | 'critical';
  status: string;
  value: number | null;
  peakValue: number | null;
  threshold: number | null;
  firedAt: Date | null;
  resolvedAt: Date | null;
  resolvedBy: string | null;
  summary: string;
  remedy: string | null;
}

/** Queues one notification per matching target, in the caller's transaction. */
export async function enqueueAlertNotification(db: Db, event: AlertNotificationEvent, a: AlertNotification): Promise<number> {
  return enqueueDeliveries(db, {
    alertId: a.id,
    event,
    severity: a.severity,
    payload: {
      event,
      alert: {
        ...a,
        firedAt: a.firedAt?.toISOString() ?? null,
        resolvedAt: a.resolvedAt?.toISOString() ?? null,
        path: `/alerts?alert=${a.id}`,
      },
      sentAt: new Date().toISOString(),
    },
  });
}

// ─── Sending ──────────────────────────────────────────────────────────────────────

export const WEBHOOK_TIMEOUT_MS = 5000;
/** Retry delays: 5 s, 10 s, 20 s, … capped at 10 minutes (no jitter: one sender). */
const RETRY = { maxAttempts: 5, backoff: 'exponential', baseDelayMs: 5000, maxDelayMs: 600_000, jitter: 0 } as const;

export function signBody(secret: string, timestamp: string, body: string): string {
  return 'sha256=' + createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
}

/** What one attempt records: the status and a fixed message of ours, never the receiver's body. */
export interface AttemptResult {
  ok: boolean;
  status: number | null;
  error: string | null;
  durationMs: number;
}

/** Resolves a name (the system resolver, as a connection would); a test may substitute its own. */
export type ResolveHost = (host: string) => Promise<{ address: string; family: number }[]>;
const systemResolve: ResolveHost = (host) => dnsLookup(host, { all: true, verbatim: true });

/**
 * The address to connect to: every address the URL's host resolves to must pass the
 * check (a name that resolves to a public and an internal address is refused), and the
 * connection goes to the first one checked, never to a second lookup's answer.
 */
async function checkedAddress(url: URL, allow: readonly AllowEntry[], resolve: ResolveHost): Promise<{ address: string; family: number } | { refused: string }> {
  const saved = webhookUrlProblem(url.href, allow); // the save-time rule, in case the allow-list shrank
  if (saved) return { refused: `refused: ${saved}` };
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const literal = /^[\d.]+$/.test(host) ? 4 : host.includes(':') ? 6 : 0;
  const addresses = literal ? [{ address: host, family: literal }] : await resolve(host);
  if (addresses.length === 0) return { refused: `refused: ${host} resolves to no address` };
  for (const a of addresses) {
    const problem = resolvedAddressProblem(host, a.address, allow);
    if (problem) return { refused: `refused: ${problem}` };
  }
  return addresses[0]!;
}

/** POST once to the checked address; redirects are not followed (a 3xx is a failure). */
function postOnce(url: URL, pinned: { address: string; family: number }, headers: Record<string, string>, body: string, timeoutMs: number): Promise<number> {
  const lookup: LookupFunction = (_host, opts, cb) => {
    if ((opts as { all?: boolean }).all) (cb as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [pinned]);
    else cb(null, pinned.address, pinned.family);
  };
  const mod = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = mod.request(
      url,
      { method: 'POST', headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) }, lookup, signal: AbortSignal.timeout(timeoutMs) },
      (res) => {
        res.resume(); // read and discard: the receiver's answer is never stored or shown
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** The fixed message a failed status is recorded with. */
export function statusMessage(status: number): string {
  if (status >= 300 && status < 400) return `HTTP ${status}: the receiver redirected; redirects are not followed`;
  return `HTTP ${status}: the receiver did not accept the delivery`;
}

async function attempt(d: DueDelivery, timeoutMs: number, allow: readonly AllowEntry[], resolve: ResolveHost): Promise<AttemptResult> {
  const body = JSON.stringify(d.payload);
  const timestamp = String(Math.floor(Date.now() / 1000));
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': 'Sluice-Webhooks/1',
    'x-sluice-event': d.event,
    'x-sluice-delivery': String(d.id),
    'x-sluice-timestamp': timestamp,
  };
  const started = Date.now();
  try {
    const url = new URL(d.url);
    const target = await checkedAddress(url, allow, resolve);
    if ('refused' in target) return { ok: false, status: null, error: target.refused.slice(0, 500), durationMs: Date.now() - started };
    if (d.secret) headers['x-sluice-signature'] = signBody(d.secret, timestamp, body);
    const status = await postOnce(url, target, headers, body, timeoutMs);
    const ok = status >= 200 && status < 300;
    return { ok, status, error: ok ? null : statusMessage(status), durationMs: Date.now() - started };
  } catch (e) {
    const err = e as Error & { code?: string; cause?: { code?: string } };
    const msg = err.name === 'TimeoutError' || err.name === 'AbortError' ? `timed out after ${timeoutMs} ms` : (err.code ?? err.cause?.code ?? 'the connection failed');
    return { ok: false, status: null, error: String(msg).slice(0, 500), durationMs: Date.now() - started };
  }
}

export interface DeliverResult {
  attempted: number;
  delivered: number;
  failed: number;
  retrying: number;
  pruned: number;
}

/** Sends every due delivery once (bounded by `limit`), recording each attempt. */
export async function deliverDueWebhooks(
  pool: Db,
  opts: { limit?: number; timeoutMs?: number; now?: Date; resolve?: ResolveHost; allow?: readonly AllowEntry[] } = {},
): Promise<DeliverResult> {
  const timeoutMs = opts.timeoutMs ?? WEBHOOK_TIMEOUT_MS;
  const allow = opts.allow ?? webhookAllowList();
  const resolve = opts.resolve ?? systemResolve;
  const due = await claimDueDeliveries(pool, opts.limit ?? 50, timeoutMs * 2);
  const out: DeliverResult = { attempted: due.length, delivered: 0, failed: 0, retrying: 0, pruned: 0 };
  // Small batches in parallel: one slow receiver must not hold up the rest.
  for (let i = 0; i < due.length; i += 8) {
    await Promise.all(
      due.slice(i, i + 8).map(async (d) => {
        const r = await attempt(d, timeoutMs, allow, resolve);
        const attemptNo = d.attempts + 1;
        const more = !r.ok && attemptNo < d.max_attempts;
        const retryAt = more ? new Date(Date.now() + baseRetryDelayMs(RETRY, attemptNo)) : null;
        await recordDeliveryAttempt(pool, d.id, { ok: r.ok, responseStatus: r.status, error: r.error, durationMs: r.durationMs, retryAt });
        if (r.ok) out.delivered++;
        else if (more) out.retrying++;
        else out.failed++;
      }),
    );
  }
  const now = opts.now ?? new Date();
  out.pruned = await pruneDeliveries(pool, new Date(now.getTime() - 30 * 86_400_000));
  return out;
}
