import type { EgressResponse } from '../../../core';

/**
 * A vendor's API refused or failed a call. App code throws it (usually through
 * `expectOk`) so the flows plugin can tell the user what happened instead of a 500:
 * a failed step says the message; an option list answers `state: "unavailable"` for a
 * refusal the user can fix (401, 403, 429) and 502 for the vendor's own failure (5xx).
 */
export class VendorError extends Error {
  override readonly name = 'VendorError';

  constructor(
    /** The vendor, as users know it (`Zoho CRM`). */
    readonly service: string,
    /** The HTTP status the vendor answered. */
    readonly status: number,
    message: string,
    /** From `Retry-After` on a 429 or 503: when the vendor says to try again; null when it did not say. */
    readonly retryAfterSeconds: number | null = null,
  ) {
    super(message);
  }

  /** A refusal the user can act on (reconnect, grant access, wait), as opposed to the vendor failing. */
  get refused(): boolean {
    return this.status === 401 || this.status === 403 || this.status === 429;
  }
}

const header = (response: EgressResponse, name: string): string | undefined => {
  const value = response.headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
};

/** `Retry-After` in seconds (RFC 9110: a number of seconds or an HTTP date); null when absent or unreadable. */
export function retryAfterSeconds(response: EgressResponse, now = Date.now()): number | null {
  const value = header(response, 'retry-after')?.trim();
  if (!value) return null;
  if (/^\d+$/.test(value)) return Number(value);
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - now) / 1000));
}

/** The vendor's own words from an error body, when it has some (`message`, `error_description`, `error.message`, `code`). */
function vendorWords(response: EgressResponse): string | null {
  let body: unknown;
  try {
    body = response.json();
  } catch {
    const text = response.text().trim();
    return text && text.length <= 200 && !text.startsWith('<') ? text : null;
  }
  const pick = (value: unknown): string | null => (typeof value === 'string' && value.trim() !== '' ? value.trim().slice(0, 300) : null);
  if (typeof body !== 'object' || body === null) return null;
  const record = body as Record<string, unknown>;
  const nested = typeof record.error === 'object' && record.error !== null ? (record.error as Record<string, unknown>) : {};
  const first = Array.isArray(record.data) && typeof record.data[0] === 'object' && record.data[0] !== null ? (record.data[0] as Record<string, unknown>) : {};
  return pick(record.message) ?? pick(record.error_description) ?? pick(nested.message) ?? pick(first.message) ?? pick(record.error) ?? pick(record.code);
}

/** A VendorError for a response that is not a success, with a message that says what to do. */
export function vendorError(service: string, response: EgressResponse, what: string): VendorError {
  const words = vendorWords(response);
  const said = words ? `: ${words}` : '';
  const retryAfter = retryAfterSeconds(response);
  const { status } = response;
  let message: string;
  if (status === 401) message = `${service} refused the connection's credentials while trying to ${what} (401${said}); reconnect the app`;
  else if (status === 403) message = `${service} does not allow the connection to ${what} (403${said}); check the account's permissions and the scopes granted`;
  else if (status === 404) message = `${service} found nothing to ${what} (404${said})`;
  else if (status === 429) message = `${service} is rate limiting the connection (429${said})${retryAfter === null ? '' : `; try again in ${retryAfter} s`}`;
  else if (status >= 500) message = `${service} failed to ${what} (${status}${said})`;
  else message = `${service} refused to ${what} (${status}${said})`;
  return new VendorError(service, status, message, retryAfter);
}

/** The response when it is a 2xx; otherwise throws the VendorError that says why. */
export function expectOk(service: string, response: EgressResponse, what: string): EgressResponse {
  if (response.status >= 200 && response.status < 300) return response;
  throw vendorError(service, response, what);
}
