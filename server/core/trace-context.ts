// W3C Trace Context `traceparent` (https://www.w3.org/TR/trace-context/#traceparent-header):
//   version "-" trace-id "-" parent-id "-" trace-flags, lowercase hex, e.g.
//   00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01
// Rules applied (§3.2.2 and §4.3, "versioning of traceparent"):
//  * version ff is invalid; version 00 has exactly these four fields (55 characters);
//  * a higher version is read for its first four fields, which must be followed by the end
//    or by "-" (a later version may append fields), and is stored as version 00;
//  * trace-id and parent-id of all zeros are invalid; hex must be lowercase;
//  * surrounding spaces and tabs (optional whitespace of an HTTP field) are trimmed.
// Pure: no OpenTelemetry here. The SDK package imports this file too, so it must stay
// free of imports.

export interface TraceParent {
  traceId: string;
  spanId: string;
  /** trace-flags byte; bit 0 = sampled */
  flags: number;
}

/** Longest header value read at all (version 00 is 55 characters; later versions may add fields). */
export const TRACEPARENT_MAX_LENGTH = 512;

const FIELDS = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;

/** Why a value is not a usable traceparent, or null when it is one. */
export function traceparentProblem(value: unknown): string | null {
  if (typeof value !== 'string') return 'must be a string';
  const v = value.replace(/^[ \t]+|[ \t]+$/g, '');
  if (v.length > TRACEPARENT_MAX_LENGTH) return `must be at most ${TRACEPARENT_MAX_LENGTH} characters`;
  const m = FIELDS.exec(v);
  if (!m) return 'must be a W3C traceparent: 00-<32 hex trace id>-<16 hex parent id>-<2 hex flags>, lowercase';
  const [, version, traceId, spanId, , rest] = m;
  if (version === 'ff') return 'version ff is invalid';
  if (version === '00' && rest !== undefined) return 'version 00 has exactly four fields';
  if (/^0+$/.test(traceId!)) return 'the trace id must not be all zeros';
  if (/^0+$/.test(spanId!)) return 'the parent id must not be all zeros';
  return null;
}

/** The parsed traceparent, or null for anything invalid (the caller decides whether that is an error). */
export function parseTraceparent(value: unknown): TraceParent | null {
  if (traceparentProblem(value) !== null) return null;
  const m = FIELDS.exec((value as string).replace(/^[ \t]+|[ \t]+$/g, ''))!;
  return { traceId: m[2]!, spanId: m[3]!, flags: parseInt(m[4]!, 16) };
}

/** As stored and sent: version 00. */
export function formatTraceparent(tp: TraceParent): string {
  return `00-${tp.traceId}-${tp.spanId}-${(tp.flags & 0xff).toString(16).padStart(2, '0')}`;
}

/** parse + format: a valid value in its version-00 form, or null. */
export function normalizeTraceparent(value: unknown): string | null {
  const tp = parseTraceparent(value);
  return tp ? formatTraceparent(tp) : null;
}
