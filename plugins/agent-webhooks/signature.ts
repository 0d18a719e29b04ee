import crypto from 'node:crypto';

/**
 * Standard Webhooks signing: `v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">`.
 * A `whsec_` secret is base64 after the prefix (the spec's format); any other secret
 * is used as its UTF-8 bytes.
 */
export function signingKey(secret: string): Buffer {
  return secret.startsWith('whsec_') ? Buffer.from(secret.slice('whsec_'.length), 'base64') : Buffer.from(secret, 'utf8');
}

/**
 * Signing keys as KeyObjects, by secret: an HMAC given a Buffer makes a key object on
 * every call, about 30 µs against 5 µs with one made once (measured on Node 24), paid on
 * every delivery. Bounded: emptied once it holds this many.
 */
const KEY_CACHE_LIMIT = 1000;
const keyObjects = new Map<string, crypto.KeyObject>();

function keyObjectOf(secret: string): crypto.KeyObject {
  let key = keyObjects.get(secret);
  if (!key) {
    if (keyObjects.size >= KEY_CACHE_LIMIT) keyObjects.clear();
    key = crypto.createSecretKey(signingKey(secret));
    keyObjects.set(secret, key);
  }
  return key;
}

export function signature(secret: string, id: string, timestamp: number, body: string): string {
  return `v1,${crypto.createHmac('sha256', keyObjectOf(secret)).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

/** The headers of one attempt; no secret, no `webhook-signature`. */
export function webhookHeaders(id: string, body: string, secret: string | null, now = Date.now()): Record<string, string> {
  const timestamp = Math.floor(now / 1000);
  const headers: Record<string, string> = { 'content-type': 'application/json', 'webhook-id': id, 'webhook-timestamp': String(timestamp) };
  if (secret) headers['webhook-signature'] = signature(secret, id, timestamp, body);
  return headers;
}
