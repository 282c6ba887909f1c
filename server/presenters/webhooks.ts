// Settings → Webhooks: the targets (never their secrets) and the delivery log, newest
// first, optionally for one target. Read with pg like every read and write of these
// tables (docs/architecture.md, "Data access").
import { z } from 'zod';
import type { Db } from '../db/pool';
import type { WebhookTargetView } from '../core/webhook-target-view';

export async function listWebhooks(db: Db): Promise<WebhookTargetView[]> {
  const r = await db.query<WebhookTargetView>(
    `SELECT id, name, url, secret IS NOT NULL AS "hasSecret", enabled, min_severity AS "minSeverity",
            created_by AS "createdBy", created_at AS "createdAt", updated_at AS "updatedAt"
       FROM webhook_targets ORDER BY name ASC`,
  );
  return r.rows;
}

export const deliveryLogInput = z.strictObject({
  targetId: z.uuid('must be a webhook id').optional(),
  limit: z.number().int().min(1).max(200).default(50),
});

export interface DeliveryView {
  id: number;
  targetId: string;
  targetName: string;
  alertId: number | null;
  event: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  maxAttempts: number;
  responseStatus: number | null;
  lastError: string | null;
  durationMs: number | null;
  createdAt: Date;
  lastAttemptAt: Date | null;
  nextAttemptAt: Date | null;
  deliveredAt: Date | null;
}

export async function listDeliveries(db: Db, input: z.output<typeof deliveryLogInput>): Promise<DeliveryView[]> {
  const r = await db.query<DeliveryView>(
    `SELECT d.id, d.target_id AS "targetId", t.name AS "targetName", d.alert_id AS "alertId", d.event, d.status,
            d.attempts, d.max_attempts AS "maxAttempts", d.response_status AS "responseStatus",
            d.last_error AS "lastError", d.duration_ms AS "durationMs", d.created_at AS "createdAt",
            d.last_attempt_at AS "lastAttemptAt",
            CASE WHEN d.status = 'pending' THEN d.next_attempt_at END AS "nextAttemptAt",
            d.delivered_at AS "deliveredAt"
       FROM webhook_deliveries d JOIN webhook_targets t ON t.id = d.target_id
      WHERE $1::uuid IS NULL OR d.target_id = $1::uuid
      ORDER BY d.id DESC
      LIMIT $2`,
    [input.targetId ?? null, input.limit],
  );
  return r.rows;
}
