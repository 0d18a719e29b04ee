import { createHmac } from 'node:crypto';
import type { InboundRequest } from '../../../../../plugins/channels';

/**
 * Builds Graph webhooks as Meta sends them, for the driver tests and the channels plugin's
 * end-to-end tests (not a test file itself). The signature is computed here from Meta's
 * documented algorithm, independently of the driver: `X-Hub-Signature-256: sha256=` + hex
 * HMAC-SHA256 of the raw body keyed with the app secret.
 */

export const hubSignature = (rawBody: Buffer | string, appSecret: string): string => `sha256=${createHmac('sha256', appSecret).update(rawBody).digest('hex')}`;

/** A payload serialised once and signed over those bytes: POST `body` with `headers` to the hook. */
export function signedGraphWebhook(payload: unknown, appSecret: string): { body: string; rawBody: Buffer; headers: Record<string, string> } {
  const body = JSON.stringify(payload);
  return { body, rawBody: Buffer.from(body), headers: { 'content-type': 'application/json', 'x-hub-signature-256': hubSignature(body, appSecret) } };
}

/**
 * The InboundRequest a driver sees for a webhook POST: signed with `appSecret`, or unsigned
 * with `null`. `rawBody` replaces the bytes after signing (a body tampered with in transit).
 */
export function graphInboundRequest(payload: unknown, appSecret: string | null, options: { rawBody?: Buffer; signature?: string; url?: string } = {}): InboundRequest {
  const signed = signedGraphWebhook(payload, appSecret ?? 'unused');
  const headers: Record<string, string | undefined> = { 'content-type': 'application/json' };
  if (options.signature !== undefined) headers['x-hub-signature-256'] = options.signature;
  else if (appSecret !== null) headers['x-hub-signature-256'] = signed.headers['x-hub-signature-256'];
  const rawBody = options.rawBody ?? signed.rawBody;
  return {
    method: 'POST',
    url: options.url ?? 'https://switchboard.example/hooks/channels/00000000-0000-4000-8000-000000000000',
    headers,
    rawBody,
    body: JSON.parse(rawBody.toString('utf8')),
    query: {},
  };
}

/** The verification GET Meta sends when a callback URL is saved: `?hub.mode=subscribe&hub.verify_token=…&hub.challenge=…`. */
export function graphChallengeRequest(query: Record<string, string>): InboundRequest {
  const search = new URLSearchParams(query).toString();
  return { method: 'GET', url: `https://switchboard.example/hooks/channels/00000000-0000-4000-8000-000000000000?${search}`, headers: {}, rawBody: Buffer.alloc(0), body: undefined, query };
}

/** A WhatsApp Cloud API `messages` webhook around the given `messages`, `statuses` and `contacts`. */
export function whatsAppWebhook(options: {
  phoneNumberId: string;
  displayPhoneNumber?: string;
  businessAccountId?: string;
  messages?: unknown[];
  statuses?: unknown[];
  contacts?: unknown[];
}): Record<string, unknown> {
  const value: Record<string, unknown> = {
    messaging_product: 'whatsapp',
    metadata: { display_phone_number: options.displayPhoneNumber ?? '15550001111', phone_number_id: options.phoneNumberId },
  };
  if (options.contacts) value.contacts = options.contacts;
  if (options.messages) value.messages = options.messages;
  if (options.statuses) value.statuses = options.statuses;
  return { object: 'whatsapp_business_account', entry: [{ id: options.businessAccountId ?? '102290129340398', changes: [{ value, field: 'messages' }] }] };
}

/** A customer's text message as WhatsApp delivers it (`from` as digits, no `+`). */
export function whatsAppTextWebhook(options: { phoneNumberId: string; from: string; id: string; text: string; name?: string }): Record<string, unknown> {
  const from = options.from.replace(/^\+/, '');
  return whatsAppWebhook({
    phoneNumberId: options.phoneNumberId,
    contacts: [{ profile: { name: options.name ?? 'Customer' }, wa_id: from }],
    messages: [{ from, id: options.id, timestamp: String(Math.floor(Date.now() / 1000)), type: 'text', text: { body: options.text } }],
  });
}

/** A Messenger (`page`) or Instagram webhook around the given `messaging` events. */
export function messengerWebhook(options: { pageId: string; messaging: unknown[]; object?: 'page' | 'instagram' }): Record<string, unknown> {
  return { object: options.object ?? 'page', entry: [{ id: options.pageId, time: Date.now(), messaging: options.messaging }] };
}

/** A customer's text message to a page, as Messenger delivers it. */
export function messengerTextWebhook(options: { pageId: string; psid: string; mid: string; text: string }): Record<string, unknown> {
  return messengerWebhook({
    pageId: options.pageId,
    messaging: [{ sender: { id: options.psid }, recipient: { id: options.pageId }, timestamp: Date.now(), message: { mid: options.mid, text: options.text } }],
  });
}
