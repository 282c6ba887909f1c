// POST /api/v1/executions/{id}/retry — a scheduled execution (a retry's backoff or a
// delay) runs now: run_at becomes now and idle coordinators are woken. No body. Audited.
import { restRoute, TOKEN_ACCESS } from '@/server/api/rest';
import { retryExecutionReply } from '@/server/api/rest-execution-actions';

export const dynamic = 'force-dynamic';

export const POST = restRoute<{ id: string }>(TOKEN_ACCESS.operate, retryExecutionReply);
