// POST /api/v1/dead-letters/replay {scope: {ids} | {filter}, resetAttempts?, ratePerSecond?, requestId?, dryRun?}
// 202 with the job (watch it at /api/v1/dead-letters/replay-jobs/{id}); 200 for a dry run.
// An Idempotency-Key header stands in for requestId: a retried POST returns the same job.
import { restRoute, TOKEN_ACCESS } from '@/server/api/rest';
import { createReplayReply } from '@/server/api/rest-dead-letters';

export const dynamic = 'force-dynamic';

export const POST = restRoute(TOKEN_ACCESS.operate, createReplayReply);
