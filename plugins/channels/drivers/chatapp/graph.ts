import { createHmac, timingSafeEqual } from 'node:crypto';
import { EgressError, EgressRefusedError, type Egress, type EgressResponse } from '../../../../core';
import { ChannelSendError, type DriverContext, type InboundRequest, type InboundMedia } from '../../driver';

/**
 * What the WhatsApp Cloud API (chatapp) and Messenger/Instagram (social) drivers share:
 * both are Meta Graph API products, so webhooks are signed and verified the same way and
 * errors come back in one envelope.
 */

const SIGNATURE_PREFIX = 'sha256=';

/**
 * `X-Hub-Signature-256: sha256=<hex HMAC-SHA256(app secret, raw body)>`, compared in
 * constant time. The raw bytes matter: a body re-serialised from its parsed JSON would not
 * match (Meta escapes non-ASCII characters as \uXXXX).
 */
export function verifyHubSignature(request: InboundRequest, appSecret: string): boolean {
  const header = request.headers['x-hub-signature-256'];
  if (!header || !appSecret || !header.startsWith(SIGNATURE_PREFIX)) return false;
  const given = header.slice(SIGNATURE_PREFIX.length).trim();
  // Hex of a SHA-256: anything else cannot match, and Buffer.from(…, 'hex') would silently truncate it.
  if (!/^[0-9a-fA-F]{64}$/.test(given)) return false;
  const expected = createHmac('sha256', appSecret).update(request.rawBody).digest();
  return timingSafeEqual(expected, Buffer.from(given, 'hex'));
}

/** Equal strings, compared in constant time (over SHA-256 digests, so unequal lengths leak nothing either). */
export function sameSecret(given: string | undefined, expected: string): boolean {
  if (given === undefined || expected === '') return false;
  const digest = (value: string) => createHmac('sha256', 'switchboard.channels').update(value).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

/**
 * The Graph webhook verification handshake: when a callback URL is saved in the app
 * dashboard, Meta sends `GET ?hub.mode=subscribe&hub.verify_token=…&hub.challenge=…` and
 * expects the challenge echoed back as it came. Anything else is refused (403).
 */
export function answerHubChallenge(request: InboundRequest, verifyToken: string): { status: number; contentType: string; body: string } {
  const { query } = request;
  const challenge = query['hub.challenge'];
  if (query['hub.mode'] === 'subscribe' && challenge && sameSecret(query['hub.verify_token'], verifyToken)) {
    return { status: 200, contentType: 'text/plain', body: challenge };
  }
  return { status: 403, contentType: 'text/plain', body: 'webhook verification failed' };
}

/** The Graph error envelope: `{error: {message, type, code, error_subcode, error_data?, fbtrace_id}}`. */
export interface GraphError {
  message?: string;
  type?: string;
  code?: number;
  error_subcode?: number;
  error_user_msg?: string;
  error_data?: { details?: string };
  fbtrace_id?: string;
}

/**
 * Graph codes that mean "slow down" or "try again" whatever the HTTP status (Graph answers
 * most of them with 400): 1 unknown and 2 service (temporary), 4 app, 17 user, 32 page,
 * 613 custom rate limits, 80007 WhatsApp account rate limit, 130429 Cloud API throughput,
 * 131056 WhatsApp pair rate limit, 131000 WhatsApp "something went wrong".
 */
const RETRYABLE_CODES: ReadonlySet<number> = new Set([1, 2, 4, 17, 32, 613, 80007, 130429, 131000, 131056]);

export function graphErrorOf(response: EgressResponse): GraphError | null {
  try {
    const body = response.json<{ error?: unknown }>();
    return body && typeof body.error === 'object' && body.error !== null ? (body.error as GraphError) : null;
  } catch {
    return null;
  }
}

function retryAfterOf(response: EgressResponse): number | null {
  const header = response.headers['retry-after'];
  const value = Array.isArray(header) ? header[0] : header;
  if (!value) return null;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.ceil(seconds);
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, Math.ceil((date - Date.now()) / 1000));
}

/** A failed Graph answer as the channels plugin wants it: Graph's own reason, and whether another try may work. */
export function graphSendError(response: EgressResponse): ChannelSendError {
  const error = graphErrorOf(response);
  const retryable = response.status === 429 || response.status >= 500 || (error?.code !== undefined && RETRYABLE_CODES.has(error.code));
  const reason = error?.message ?? (response.text().slice(0, 200) || `HTTP ${response.status}`);
  const details = error?.error_data?.details;
  const code = error?.code !== undefined ? ` (Graph code ${error.code}${error.error_subcode !== undefined ? `/${error.error_subcode}` : ''})` : '';
  return new ChannelSendError(`${reason}${details && details !== reason ? `: ${details}` : ''}${code}`, retryable, retryAfterOf(response));
}

/**
 * POSTs JSON to a Graph edge with the connection's token, answering the parsed body of a
 * 2xx. Egress does not retry it (a send is not idempotent on Graph, which takes no
 * idempotency key): the channels plugin retries what this marks retryable, with backoff.
 */
export async function graphPost<T>(context: DriverContext<{ access_token: string }>, path: string, body: Record<string, unknown>): Promise<T> {
  let response: EgressResponse;
  try {
    response = await context.egress.request(`${context.apiBaseUrl}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${context.connection.credentials.access_token}` },
      body,
      retries: 0,
    });
  } catch (error) {
    // A refused address is configuration (the base URL): trying again changes nothing.
    if (error instanceof EgressRefusedError) throw new ChannelSendError(error.message, false);
    if (error instanceof EgressError) throw new ChannelSendError(error.message, true);
    throw error;
  }
  if (response.status < 200 || response.status >= 300) throw graphSendError(response);
  try {
    return response.json<T>();
  } catch {
    throw new ChannelSendError(`the Graph API answered ${response.status} with a body that is not JSON`, false);
  }
}

/** Checks a token by reading a node with it (`GET /{id}`): what `test` does on connection create. */
export async function graphCheckNode(
  credentials: { access_token: string },
  context: { egress: Egress; apiBaseUrl: string },
  nodeId: string,
  fields: string,
): Promise<{ valid: true } | { valid: false; message: string }> {
  try {
    const response = await context.egress.request(`${context.apiBaseUrl}/${encodeURIComponent(nodeId)}`, {
      headers: { authorization: `Bearer ${credentials.access_token}` },
      query: { fields },
    });
    if (response.status >= 200 && response.status < 300) return { valid: true };
    return { valid: false, message: graphSendError(response).message };
  } catch (error) {
    return { valid: false, message: error instanceof Error ? error.message : String(error) };
  }
}

/** A location as a `geo:` URI (RFC 5870), the one field InboundMedia has for where it points. */
export function geoUri(latitude: unknown, longitude: unknown): string | undefined {
  return typeof latitude === 'number' && typeof longitude === 'number' ? `geo:${latitude},${longitude}` : undefined;
}

/** Drops undefined members, so parsed events compare and serialise cleanly. */
export function media(item: InboundMedia): InboundMedia {
  return Object.fromEntries(Object.entries(item).filter(([, value]) => value !== undefined)) as unknown as InboundMedia;
}

/** Narrowing helpers for webhook bodies, which are untrusted JSON. */
export const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
export const arrayOf = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
export const stringOf = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : typeof value === 'number' ? String(value) : undefined);
