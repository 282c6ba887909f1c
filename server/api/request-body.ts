// Request bodies read under a size limit (SLUICE_MAX_BODY_BYTES, default 1 MB), for the
// tRPC endpoint and the REST routes. A declared Content-Length over the limit is refused
// before a byte is read; a body without one (chunked) is counted as it streams in and
// refused the moment it passes the limit. Either way: 413 with a message that says the
// limit, and nothing parsed. server/web/serve.mjs refuses the same bodies before Next.js
// sees them; this is the same rule for wherever else the routes run (next dev, tests).
import { env } from '../env';
import { CoreError } from '../core/errors';
import { errorResponse } from './errors';

export function maxBodyBytes(): number {
  return env().SLUICE_MAX_BODY_BYTES;
}

export function bodyTooLargeMessage(limit: number): string {
  return `request body too large: the limit is ${limit} bytes`;
}

export function bodyTooLargeResponse(limit: number): Response {
  return errorResponse(new CoreError('PAYLOAD_TOO_LARGE', bodyTooLargeMessage(limit)), { connection: 'close' });
}

/** The declared length when it is over the limit (refuse without reading), else null. */
export function declaredOverLimit(req: Request, limit: number): number | null {
  const raw = req.headers.get('content-length');
  if (raw === null) return null;
  const n = Number(raw);
  return Number.isFinite(n) && n > limit ? n : null;
}

export type LimitedBody = { ok: true; bytes: Uint8Array } | { ok: false; response: Response };

/** Reads the whole body, or stops at `limit` bytes with a 413 response. */
export async function readBodyWithin(req: Request, limit = maxBodyBytes()): Promise<LimitedBody> {
  if (declaredOverLimit(req, limit) !== null) {
    await req.body?.cancel().catch(() => {});
    return { ok: false, response: bodyTooLargeResponse(limit) };
  }
  if (!req.body) return { ok: true, bytes: new Uint8Array(0) };
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      await reader.cancel().catch(() => {});
      return { ok: false, response: bodyTooLargeResponse(limit) };
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    bytes.set(c, at);
    at += c.byteLength;
  }
  return { ok: true, bytes };
}
