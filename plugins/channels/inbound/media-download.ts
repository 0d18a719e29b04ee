import { EgressError, EgressRefusedError, EgressResponseTooLargeError, EgressTimeoutError, type Egress, type EgressResponse } from '../../../core';
import { InboundMediaError, type FetchedMedia } from '../driver';

/** The longest one media download (or the call that names it) may take: a voice note is small, a stalled CDN is not waited on. */
const MEDIA_TIMEOUT_MS = 60_000;

/**
 * One GET of a provider's media, or of what the provider says about it, through the
 * egress guard (redirects followed, credentials dropped when one leaves the origin), the
 * body never more than `maxBytes`. A 2xx answers; a refused address, a 4xx or a body too
 * large fails for good; a 429, a 5xx, a timeout or the network may pass on another try.
 * Messages name the host at most (egress's own), never the URL, which may hold a token.
 */
export async function getMedia(egress: Egress, url: string, options: { what: string; maxBytes: number; headers?: Record<string, string>; query?: Record<string, string> }): Promise<EgressResponse> {
  let response: EgressResponse;
  try {
    response = await egress.request(url, { headers: options.headers, query: options.query, maxResponseBytes: options.maxBytes, timeoutMs: MEDIA_TIMEOUT_MS });
  } catch (error) {
    if (error instanceof EgressResponseTooLargeError) throw new InboundMediaError(`${options.what} is larger than ${options.maxBytes} bytes`, false);
    if (error instanceof EgressRefusedError) throw new InboundMediaError(`${options.what} could not be fetched: ${error.message}`, false);
    if (error instanceof EgressTimeoutError || error instanceof EgressError) throw new InboundMediaError(`${options.what} could not be fetched: ${error.message}`, true);
    throw error;
  }
  if (response.status >= 200 && response.status < 300) return response;
  const retryable = response.status === 429 || response.status >= 500;
  throw new InboundMediaError(`${options.what} could not be fetched: the provider answered ${response.status}`, retryable);
}

/** A JSON answer about the media (WhatsApp's media node, Telegram's File), or a permanent failure. */
export function jsonOf<T>(response: EgressResponse, what: string): T {
  try {
    return response.json<T>();
  } catch {
    throw new InboundMediaError(`${what}: the provider answered something that is not JSON`, false);
  }
}

/** The downloaded bytes with the type the provider gave them (the response's, else `declared`); an empty body is no media. */
export function fetchedMedia(response: EgressResponse, declared: string | null | undefined, what: string): FetchedMedia {
  if (response.body.length === 0) throw new InboundMediaError(`${what} is empty`, false);
  const header = response.headers['content-type'];
  const type = (Array.isArray(header) ? header[0] : header)?.split(';')[0].trim();
  const generic = !type || type === 'application/octet-stream' || type === 'binary/octet-stream';
  return { bytes: response.body, mimeType: generic ? (declared ?? null) : type };
}
