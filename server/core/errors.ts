// The transport-free error every layer throws (documenso's AppError idea): a code, a
// user-facing message and, for validation, errors field by field. One formatter in
// server/api maps `code` to an HTTP status / tRPC code; nothing here knows about either.
// Pure: no I/O imports (server/core rule).

/** How every size-limit message starts (a payload, a batch): a validation failure made only
 *  of these is PAYLOAD_TOO_LARGE (413), so a client can tell "shrink or split it" from "fix it". */
export const TOO_LARGE = 'is too large: at most';

/** One problem with one field of an input: `{path: "tasks.0.groups.1.limit", message}`. */
export interface FieldError {
  path: string;
  message: string;
}

/** A schema issue as zod and Standard Schema report it (a path segment may be `{key}`). */
export interface SchemaIssue {
  readonly path?: readonly (PropertyKey | { readonly key: PropertyKey })[] | undefined;
  readonly message: string;
}

/** Schema issues → field errors, the shape every interface reports. The one place this is written. */
export function issueFieldErrors(issues: readonly SchemaIssue[]): FieldError[] {
  return issues.map((i) => ({
    path: (i.path ?? []).map((p) => String(typeof p === 'object' && p !== null ? p.key : p)).join('.'),
    message: i.message,
  }));
}

/** "a: bad; b: worse (and 2 more)": the first three field errors, for a one-line message. */
export function summarizeFieldErrors(fieldErrors: readonly FieldError[]): string {
  return (
    fieldErrors
      .slice(0, 3)
      .map((e) => (e.path ? `${e.path}: ${e.message}` : e.message))
      .join('; ') + (fieldErrors.length > 3 ? ` (and ${fieldErrors.length - 3} more)` : '')
  );
}

export const CORE_ERROR_CODES = [
  'BAD_REQUEST',
  'NOT_FOUND',
  'CONFLICT',
  'FORBIDDEN',
  'UNAUTHORIZED',
  'TOO_MANY_REQUESTS',
  'PRECONDITION_FAILED',
  'PAYLOAD_TOO_LARGE',
] as const;

export type CoreErrorCode = (typeof CORE_ERROR_CODES)[number];

export interface CoreErrorOptions {
  fieldErrors?: FieldError[];
  /** For TOO_MANY_REQUESTS (backpressure `reject`): how long the caller should wait. */
  retryAfterMs?: number;
  cause?: unknown;
}

export class CoreError extends Error {
  override readonly name = 'CoreError';
  readonly code: CoreErrorCode;
  readonly fieldErrors?: FieldError[];
  readonly retryAfterMs?: number;

  constructor(code: CoreErrorCode, message: string, options: CoreErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    if (options.fieldErrors !== undefined) this.fieldErrors = options.fieldErrors;
    if (options.retryAfterMs !== undefined) {
      if (!Number.isFinite(options.retryAfterMs) || options.retryAfterMs < 0) {
        throw new RangeError(`retryAfterMs must be a finite number ≥ 0, got ${options.retryAfterMs}`);
      }
      this.retryAfterMs = Math.ceil(options.retryAfterMs);
    }
  }

  /** A validation failure reported field by field (e.g. from `parseConfig`). */
  static validation(fieldErrors: FieldError[], message?: string): CoreError {
    const summary = message ?? (fieldErrors.length === 0 ? 'invalid input' : summarizeFieldErrors(fieldErrors));
    const tooLarge = fieldErrors.length > 0 && fieldErrors.every((e) => e.message.startsWith(TOO_LARGE));
    return new CoreError(tooLarge ? 'PAYLOAD_TOO_LARGE' : 'BAD_REQUEST', summary, { fieldErrors });
  }

  static badRequest(message: string, fieldErrors?: FieldError[]): CoreError {
    return new CoreError('BAD_REQUEST', message, fieldErrors ? { fieldErrors } : {});
  }

  static notFound(what: string): CoreError {
    return new CoreError('NOT_FOUND', `${what} not found`);
  }

  static tooManyRequests(message: string, retryAfterMs: number): CoreError {
    return new CoreError('TOO_MANY_REQUESTS', message, { retryAfterMs });
  }
}

/** True for a CoreError, also across module copies (duck-typed on name + code). */
export function isCoreError(e: unknown): e is CoreError {
  if (e instanceof CoreError) return true;
  return (
    typeof e === 'object' &&
    e !== null &&
    (e as { name?: unknown }).name === 'CoreError' &&
    typeof (e as { code?: unknown }).code === 'string' &&
    (CORE_ERROR_CODES as readonly string[]).includes((e as { code: string }).code)
  );
}
