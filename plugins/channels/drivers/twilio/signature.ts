import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { InboundRequest } from '../../driver';

/**
 * Twilio's webhook signature: base64 of HMAC-SHA1, keyed with the auth token, over the
 * full URL Twilio called followed by each POST parameter's name and value, sorted by name.
 * A JSON webhook instead carries `bodySHA256` (hex SHA-256 of the raw body) in its query
 * and is signed over the URL alone.
 */
export function verifyTwilioSignature(request: InboundRequest, authToken: string): boolean {
  const sent = request.headers['x-twilio-signature'];
  if (!sent) return false;
  const bodyHash = new URLSearchParams(request.url.split('?')[1] ?? '').get('bodySHA256');
  if (bodyHash !== null) {
    const actual = createHash('sha256').update(request.rawBody).digest('hex');
    if (!sameText(actual, bodyHash.toLowerCase())) return false;
  }
  const params = bodyHash !== null ? [] : formParams(request.rawBody);
  // Each variant is compared in full: a match on any is a match, and none is skipped early.
  let valid = false;
  for (const url of urlVariants(request.url)) valid = sameText(sign(authToken, url, params), sent) || valid;
  return valid;
}

function sign(authToken: string, url: string, params: Array<[string, string]>): string {
  const hmac = createHmac('sha1', authToken).update(url, 'utf8');
  for (const [name, value] of params) hmac.update(name + value, 'utf8');
  return hmac.digest('base64');
}

/** The form fields, decoded, sorted by name (then value, for a repeated name) as Twilio sorts them. */
function formParams(rawBody: Buffer): Array<[string, string]> {
  const pairs = [...new URLSearchParams(rawBody.toString('utf8'))];
  return pairs.sort(([nameA, valueA], [nameB, valueB]) => compare(nameA, nameB) || compare(valueA, valueB));
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Twilio signs the URL as it was configured, with or without the scheme's default port
 * (`https://host:443/...`); a proxy in between may have given us either spelling.
 */
function urlVariants(url: string): string[] {
  const match = /^(https?):\/\/([^/?#:]+)(?::(\d+))?(.*)$/i.exec(url);
  if (!match) return [url];
  const [, scheme, host, port, rest] = match;
  const defaultPort = scheme.toLowerCase() === 'https' ? '443' : '80';
  if (port === undefined) return [url, `${scheme}://${host}:${defaultPort}${rest}`];
  if (port === defaultPort) return [url, `${scheme}://${host}${rest}`];
  return [url];
}

/** Constant time over equal lengths; the lengths (of a digest) tell nothing secret. */
function sameText(expected: string, sent: string): boolean {
  const a = Buffer.from(expected, 'utf8');
  const b = Buffer.from(sent, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}
