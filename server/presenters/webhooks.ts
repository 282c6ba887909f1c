// Settings → Webhooks: the targets (never their secrets) and the delivery log, newest
// first, optionally for one target.
import { z } from 'zod';
import type { PrismaClient } from '../db/prisma';
import type { WebhookTargetView } from '../core/webhook-target-view';

export async function listWebhooks(prisma: PrismaClient): Promise<WebhookTargetView[]> {
  const rows = await prisma.webhookTarget.findMany({ orderBy: { name: 'asc' } });
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    url: r.url,
    hasSecret: r.secret !== null,
    enabled: r.enabled,
    minSeverity: r.minSeverity as 'warning' | 'critical',
    createdBy: r.createdBy,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
  }));
}

export const deliveryLogInput = z.object({
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

export async function listDeliveries(prisma: PrismaClient, input: z.output<typeof deliveryLogInput>): Promise<DeliveryView[]> {
  const rows = await prisma.webhookDelivery.findMany({
    where: input.targetId ? { targetId: input.targetId } : {},
    orderBy: { id: 'desc' },
    take: input.limit,
    include: { target: { select: { name: true } } },
  });
  return rows.map((r) => ({
    id: Number(r.id),
    targetId: r.targetId,
    targetName: r.target.name,
    alertId: r.alertId === null ? null : Number(r.alertId),
    event: r.event,
    status: r.status as DeliveryView['status'],
    attempts: r.attempts,
    maxAttempts: r.maxAttempts,
    responseStatus: r.responseStatus,
    lastError: r.lastError,
    durationMs: r.durationMs,
    createdAt: r.createdAt,
    lastAttemptAt: r.lastAttemptAt,
    nextAttemptAt: r.status === 'pending' ? r.nextAttemptAt : null,
    deliveredAt: r.deliveredAt,
  }));
}
