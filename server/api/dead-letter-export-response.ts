// The HTTP response for a frozen purge set's export: JSON lines streamed page by page
// (ReadableStream pulls the next page only when the client reads), as a download. Used by
// the REST route (API token) and the browser's route (session), which differ only in
// how they check who is asking. The first page is read before the response exists, so an
// unknown or already purged set is an error status (404 / 409 through the caller's error
// mapping), not a 200 whose stream then breaks.
import type { Db } from '../db/pool';
import { exportFrozenSet } from '../services/dead-letter-purge';

export async function frozenSetExportResponse(db: Db, previewId: string): Promise<Response> {
  const chunks = exportFrozenSet(db, previewId);
  const encoder = new TextEncoder();
  const first = await chunks.next(); // throws CoreError NOT_FOUND / CONFLICT / BAD_REQUEST
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      if (first.done) controller.close();
      else controller.enqueue(encoder.encode(first.value));
    },
    async pull(controller) {
      try {
        const next = await chunks.next();
        if (next.done) controller.close();
        else controller.enqueue(encoder.encode(next.value));
      } catch (e) {
        controller.error(e);
      }
    },
    async cancel() {
      await chunks.return(undefined);
    },
  });
  return new Response(stream, {
    headers: {
      'content-type': 'application/x-ndjson; charset=utf-8',
      'content-disposition': `attachment; filename="dead-letters-${previewId}.jsonl"`,
      'cache-control': 'no-store',
    },
  });
}
