// The optional bearer token for /metrics (SLUICE_METRICS_TOKEN), checked the same way by
// the control plane and by every coordinator's metrics server. Unset: /metrics is open
// (aggregates only, no payloads). The comparison takes the same time wherever the first
// difference is, so the token cannot be guessed a character at a time.
// Pure: no I/O imports (server/core rule).

/** True when no token is configured, or the Authorization header carries exactly it. */
export function metricsRequestAllowed(authorization: string | null | undefined, token: string | undefined): boolean {
  if (!token) return true;
  const m = /^Bearer[ ]+(\S+)\s*$/i.exec(authorization ?? '');
  if (!m) return false;
  const given = m[1]!;
  let diff = given.length ^ token.length;
  for (let i = 0; i < token.length; i++) diff |= token.charCodeAt(i) ^ given.charCodeAt(i % Math.max(1, given.length));
  return diff === 0;
}

export const METRICS_UNAUTHORIZED_BODY = 'unauthorized: send Authorization: Bearer <SLUICE_METRICS_TOKEN>\n';
