// GET /api/v1/dead-letters/replay-jobs?limit=&beforeId= — recent replay jobs with progress.
import { restRoute, TOKEN_ACCESS } from '@/server/api/rest';
import { jsonReply } from '@/server/api/errors';
import { recentReplayJobs } from '@/server/presenters/dead-letters';
import { idFromPath } from '@/server/api/dead-letter-rest-query';

export const dynamic = 'force-dynamic';

export const GET = restRoute(TOKEN_ACCESS.read, async ({ req, db }) => {
  const p = new URL(req.url).searchParams;
  const limit = p.get('limit');
  const before = p.get('beforeId');
  return jsonReply({ jobs: await recentReplayJobs(db, { ...(limit ? { limit: idFromPath(limit) } : {}), ...(before ? { beforeId: idFromPath(before) } : {}) }) });
});
