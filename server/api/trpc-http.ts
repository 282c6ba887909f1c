// The tRPC HTTP endpoint (/api/trpc/*), with what must be refused before any procedure
// runs or any body is parsed, each as a tRPC error the browser's client understands:
// - a body over SLUICE_MAX_BODY_BYTES: 413 (server/api/request-body.ts);
// - a mutation (POST) from another origin, or carrying the session cookie without saying
//   where it comes from: 403 (server/core/request-origin.ts);
// - a batch over TRPC_MAX_BATCH calls, or one with a sign-in in it: 400
//   (server/core/trpc-batch.ts; tRPC's own maxBatchSize backs the cap up).
import { TRPCError } from '@trpc/server';
import { fetchRequestHandler } from '@trpc/server/adapters/fetch';
import { appRouter } from './root';
import { createContext } from './context';
import { httpCookieJar, parseCookieHeader } from './http-cookies';
import { bodyTooLargeMessage, declaredOverLimit, maxBodyBytes, readBodyWithin } from './request-body';
import { mutationOriginProblem } from '../core/request-origin';
import { TRPC_MAX_BATCH, trpcBatchProblem } from '../core/trpc-batch';
import { SESSION_COOKIE } from '../services/sessions';
import { env } from '../env';

export const TRPC_ENDPOINT = '/api/trpc';

function handle(
  req: Request,
  createCtx: (resHeaders: Headers) => ReturnType<typeof createContext>,
  batchCap: 'capped' | 'uncapped' = 'capped',
): Promise<Response> {
  return fetchRequestHandler({
    endpoint: TRPC_ENDPOINT,
    req,
    router: appRouter,
    maxBatchSize: batchCap === 'capped' ? TRPC_MAX_BATCH : undefined,
    createContext: ({ resHeaders }) => createCtx(resHeaders),
  });
}

/** Answers with `error` for every call in the request, in tRPC's envelope, reading no body. */
async function refuse(req: Request, error: TRPCError, extraHeaders: Record<string, string> = {}): Promise<Response> {
  const headers = new Headers(req.headers);
  headers.delete('content-length');
  headers.delete('transfer-encoding');
  // The body is gone; its type (form data, say) must not make tRPC answer 415 instead.
  headers.set('content-type', 'application/json');
  const bare = new Request(req.url, { method: req.method, headers });
  await req.body?.cancel().catch(() => {});
  // No batch cap here: the refusal goes to every call, whatever the batch's size.
  const res = await handle(
    bare,
    () => {
      throw error;
    },
    'uncapped',
  );
  const out = new Response(res.body, res);
  for (const [k, v] of Object.entries(extraHeaders)) out.headers.set(k, v);
  return out;
}

/** The call path as tRPC will read it; a malformed escape stays as sent (tRPC then finds
 *  no such procedure: a 404, never a 500). */
function decodedPath(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

export async function handleTrpcRequest(req: Request): Promise<Response> {
  const url = new URL(req.url);
  const limit = maxBodyBytes();
  if (declaredOverLimit(req, limit) !== null) {
    return refuse(req, new TRPCError({ code: 'PAYLOAD_TOO_LARGE', message: bodyTooLargeMessage(limit) }), { connection: 'close' });
  }
  const e = env();
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    const problem = mutationOriginProblem({
      origin: req.headers.get('origin'),
      secFetchSite: req.headers.get('sec-fetch-site'),
      host: req.headers.get('host'),
      publicUrl: e.SLUICE_PUBLIC_URL,
      hasSessionCookie: parseCookieHeader(req.headers.get('cookie')).has(SESSION_COOKIE),
    });
    if (problem) return refuse(req, new TRPCError({ code: 'FORBIDDEN', message: problem }));
  }
  const path = decodedPath(url.pathname.slice(TRPC_ENDPOINT.length + 1));
  const batchProblem = trpcBatchProblem(path, url.searchParams.get('batch') === '1');
  if (batchProblem) return refuse(req, new TRPCError({ code: 'BAD_REQUEST', message: batchProblem }));

  let body: Uint8Array | undefined;
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    const read = await readBodyWithin(req, limit);
    if (!read.ok) {
      return refuse(req, new TRPCError({ code: 'PAYLOAD_TOO_LARGE', message: bodyTooLargeMessage(limit) }), { connection: 'close' });
    }
    body = read.bytes;
  }
  const headers = new Headers(req.headers);
  headers.delete('transfer-encoding');
  const buffered = new Request(req.url, { method: req.method, headers, body: body as BodyInit | undefined, signal: req.signal });
  return handle(buffered, (resHeaders) =>
    createContext({ headers: req.headers, cookies: httpCookieJar(req, resHeaders, e.SLUICE_SECURE_COOKIES) }),
  );
}
