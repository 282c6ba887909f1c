// POST /api/v1/executions/{id}/cancel — cancel one execution. Queued, scheduled, blocked or
// spilled: canceled now (200, result "canceled"). Running: its coordinator aborts the
// handler and records it (202, result "requested"). Finished: 409. No body. Audited.
import { restRoute, TOKEN_ACCESS } from '@/server/api/rest';
import { cancelExecutionReply } from '@/server/api/rest-execution-actions';

export const dynamic = 'force-dynamic';

export const POST = restRoute<{ id: string }>(TOKEN_ACCESS.operate, cancelExecutionReply);
