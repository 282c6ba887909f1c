// GET /api/v1/dead-letters/fingerprints?<filters>&limit= — groups by error fingerprint.
import { restRoute, TOKEN_ACCESS } from '@/server/api/rest';
import { jsonReply } from '@/server/api/errors';
import { listFingerprintGroups } from '@/server/presenters/dead-letters';
import { fingerprintInputFromQuery } from '@/server/api/dead-letter-rest-query';

export const dynamic = 'force-dynamic';

export const GET = restRoute(TOKEN_ACCESS.read, async ({ req, db }) => jsonReply(await listFingerprintGroups(db, fingerprintInputFromQuery(new URL(req.url).searchParams))));
