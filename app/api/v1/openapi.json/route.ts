// GET /api/v1/openapi.json — the REST API's OpenAPI document (no token needed).
import { openApiDocument } from '@/server/api/openapi';

export const dynamic = 'force-static';

export function GET(): Response {
  return Response.json(openApiDocument());
}
