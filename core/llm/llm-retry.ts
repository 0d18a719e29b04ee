/**
 * When a model call is worth another attempt, and how long to wait first. Model
 * servers shed load with 429 and 503 and often say when to come back; a chat
 * completion changes nothing on the server, so repeating the POST is safe.
 */

/** Rate limited, or the server failed: the same request may well succeed later. */
export function isRetryableStatus(status: number): boolean {
  return status === 429 || status >= 500;
}

/** The longest backoff between attempts when the server gave no Retry-After. */
const MAX_BACKOFF_MS = 8000;

/** Exponential backoff with jitter (so callers failing together do not come back together). */
export function backoffMs(attempt: number, baseMs: number): number {
  const ceiling = Math.min(MAX_BACKOFF_MS, baseMs * 2 ** (attempt - 1));
  return Math.round(ceiling / 2 + (Math.random() * ceiling) / 2);
}

const NUMBER = /^\d+(\.\d+)?$/;

type Headers = Record<string, string | string[] | undefined>;

/**
 * How long the server asked us to wait: OpenAI's `retry-after-ms`, else the standard
 * `Retry-After` in seconds or as an HTTP date. Undefined when it did not say (or said
 * something unreadable).
 */
export function retryAfterMs(headers: Headers, now = Date.now()): number | undefined {
  const exact = first(headers['retry-after-ms'])?.trim();
  if (exact && NUMBER.test(exact)) return Math.round(Number(exact));
  const value = first(headers['retry-after'])?.trim();
  if (!value) return undefined;
  if (NUMBER.test(value)) return Math.round(Number(value) * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

function first(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
