import { EgressNetworkError, EgressTimeoutError, type EgressError } from './egress-errors';

/** Methods that mean the same thing sent twice (RFC 9110 section 9.2.2). */
const IDEMPOTENT_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE', 'TRACE']);

/** Answers of a proxy or an overloaded server: the request was not acted upon, worth another try. */
export const RETRY_STATUSES: ReadonlySet<number> = new Set([502, 503, 504]);

/** Failures before any byte of the request left: retrying cannot act twice, whatever the method. */
const NOT_SENT_CODES: ReadonlySet<string> = new Set(['ECONNREFUSED', 'EAI_AGAIN']);

/** The connection broke after the request may have been sent. */
const BROKEN_CONNECTION_CODES: ReadonlySet<string> = new Set(['ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ECONNABORTED', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED']);

/**
 * Whether a request may be sent again without risk of doing its work twice: an
 * idempotent method, or any method carrying an Idempotency-Key the server deduplicates on.
 */
export function isRepeatable(method: string, hasIdempotencyKey: boolean): boolean {
  return hasIdempotencyKey || IDEMPOTENT_METHODS.has(method);
}

export function isRetryableFailure(error: EgressError, repeatable: boolean): boolean {
  if (error instanceof EgressTimeoutError) return error.phase === 'connect';
  if (!(error instanceof EgressNetworkError) || error.code === undefined) return false;
  return NOT_SENT_CODES.has(error.code) || (repeatable && BROKEN_CONNECTION_CODES.has(error.code));
}

/** Exponential backoff with jitter (so callers failing together do not retry together), capped at 2 s. */
export function backoffMs(attempt: number, baseMs: number): number {
  const ceiling = Math.min(2000, baseMs * 2 ** (attempt - 1));
  return Math.round(ceiling / 2 + (Math.random() * ceiling) / 2);
}
