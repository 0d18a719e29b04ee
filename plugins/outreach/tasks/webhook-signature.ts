import crypto from 'node:crypto';

/** Headers of a signed webhook call. */
export const SIGNATURE_HEADER = 'x-switchboard-signature';
export const TIMESTAMP_HEADER = 'x-switchboard-timestamp';

/**
 * `sha256=<hex>`: HMAC-SHA256, keyed by the task's secret, of `<timestamp>.<body>`
 * (the timestamp header's value, a dot, the raw request body). Signing the timestamp
 * lets a receiver refuse replays of old calls (e.g. older than five minutes).
 */
export function signWebhook(secret: string, timestamp: string, body: string): string {
  return `sha256=${crypto.createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}
