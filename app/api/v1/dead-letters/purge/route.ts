// POST /api/v1/dead-letters/purge {previewId, confirm: "purge <count>"} — deletes exactly
// the preview's frozen set, once; audited with the filter and counts.
import { restRoute } from '@/server/api/rest';
import { getPool } from '@/server/db/pool';
import { purgeDeadLetters } from '@/server/services/dlq-purge';

export const dynamic = 'force-dynamic';

export const POST = restRoute(['operator'], async ({ actor, body }) => ({
  status: 200,
  headers: { 'content-type': 'application/json' },
  body: await purgeDeadLetters(getPool(), actor, (body ?? {}) as never),
}));
