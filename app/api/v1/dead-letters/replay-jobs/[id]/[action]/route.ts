// POST /api/v1/dead-letters/replay-jobs/{id}/pause | resume | cancel
import { restRoute } from '@/server/api/rest';
import { controlReplayReply } from '@/server/api/rest-dead-letters';

export const dynamic = 'force-dynamic';

export const POST = restRoute<{ id: string; action: string }>(['operator'], controlReplayReply);
