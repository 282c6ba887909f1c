// POST /api/v1/executions/cancel {previewId, confirm: "cancel <count>", filter?} — cancels
// exactly the preview's frozen set, once; `filter`, when sent, must be the preview's.
// Audited with the filter and the counts.
import { restRoute } from '@/server/api/rest';
import { getPool } from '@/server/db/pool';
import { cancelMatching } from '@/server/services/execution-cancel-matching';

export const dynamic = 'force-dynamic';

export const POST = restRoute(['operator'], async ({ actor, body }) => ({
  status: 200,
  headers: { 'content-type': 'application/json' },
  body: await cancelMatching(getPool(), actor, (body ?? {}) as never),
}));
