// POST /api/v1/dead-letters/replay {scope: {ids} | {filter}, resetAttempts?, ratePerSecond?, requestId?, dryRun?}
// 202 with the job (watch it at /api/v1/dead-letters/replay-jobs/{id}); 200 for a dry run.
// An Idempotency-Key header stands in for requestId: a retried POST returns the same job.
import { restRoute } from '@/server/api/rest';
import { getPool } from '@/server/db/pool';
import { createReplayJob } from '@/server/services/dlq-replay';

export const dynamic = 'force-dynamic';

export const POST = restRoute(['operator'], async ({ req, actor, body }) => {
  const { dryRun, ...input } = (typeof body === 'object' && body !== null && !Array.isArray(body) ? body : {}) as Record<string, unknown>;
  const key = req.headers.get('idempotency-key');
  if (key && input.requestId === undefined) input.requestId = key;
  const r = await createReplayJob(getPool(), actor, input as never, { dryRun: dryRun === true });
  return { status: r.dryRun ? 200 : 202, headers: { 'content-type': 'application/json' }, body: r };
});
