// GET /api/v1/dead-letters/fingerprints?<filters>&limit= — groups by error fingerprint.
import { restRoute } from '@/server/api/rest';
import { listFingerprintGroups } from '@/server/presenters/dead-letters';
import { fingerprintInputFromQuery } from '@/server/api/dlq-rest-query';

export const dynamic = 'force-dynamic';

export const GET = restRoute(['viewer', 'operator'], async ({ req, db }) => ({
  status: 200,
  headers: { 'content-type': 'application/json' },
  body: await listFingerprintGroups(db, fingerprintInputFromQuery(new URL(req.url).searchParams)),
}));
