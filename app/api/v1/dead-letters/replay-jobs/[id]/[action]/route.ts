// POST /api/v1/dead-letters/replay-jobs/{id}/pause | resume | cancel
import { restRoute, TOKEN_ACCESS } from '@/server/api/rest';
import { controlReplayReply } from '@/server/api/rest-dead-letters';

export const dynamic = 'force-dynamic';

export const POST = restRoute<{ id: string; action: string }>(TOKEN_ACCESS.operate, controlReplayReply);
