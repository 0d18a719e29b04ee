import type { InboundEvent, InboundMedia, InboundMessage, WatermarkReceipt } from '../../driver';
import { arrayOf, geoUri, isRecord, media, stringOf } from '../chatapp/graph';

/**
 * Reads a Messenger (`object: 'page'`) or Instagram (`object: 'instagram'`) messaging
 * webhook: `{object, entry: [{id, time, messaging: [event]}]}`, each event
 * `{sender: {id}, recipient: {id}, timestamp, message | delivery | read | …}`.
 *
 * - `message` (not an echo of ours): an InboundMessage from `sender.id` (the page-scoped id).
 * - `delivery`: a `delivered` receipt per mid in `mids` (older clients leave them out), and
 *   one for its `watermark` (always there: every message to the sender up to that time).
 * - `read`: Messenger's names no message, only a `watermark`, a receipt of every message to
 *   the sender up to it; Instagram's `messaging_seen` names the `mid` read.
 * - Everything else (postbacks, reactions, standby, optins) is left out.
 */
export function parseMessagingWebhook(body: unknown, pageId: string): InboundEvent[] {
  if (!isRecord(body) || !Array.isArray(body.entry)) throw new Error('not a Messenger webhook: `entry` must be an array');
  const events: InboundEvent[] = [];
  for (const entry of body.entry) {
    if (!isRecord(entry)) continue;
    // One app's webhook carries every page subscribed to it: this connection answers for
    // its own page only. Instagram entries name the Instagram account, not the page.
    if (body.object === 'page' && stringOf(entry.id) !== undefined && stringOf(entry.id) !== pageId) continue;
    for (const event of arrayOf(entry.messaging)) {
      if (isRecord(event)) events.push(...parseEvent(event));
    }
  }
  return events;
}

function parseEvent(event: Record<string, unknown>): InboundEvent[] {
  if (isRecord(event.message)) {
    const message = parseMessage(event, event.message);
    return message ? [message] : [];
  }
  if (isRecord(event.delivery)) {
    const receipts: InboundEvent[] = arrayOf(event.delivery.mids)
      .map(stringOf)
      .filter((mid): mid is string => mid !== undefined)
      .map((externalId) => ({ kind: 'receipt', externalId, status: 'delivered' }));
    const watermark = watermarkReceipt(event, event.delivery.watermark, 'delivered');
    return watermark ? [...receipts, watermark] : receipts;
  }
  if (isRecord(event.read)) {
    const mid = stringOf(event.read.mid);
    if (mid) return [{ kind: 'receipt', externalId: mid, status: 'read' }];
    const watermark = watermarkReceipt(event, event.read.watermark, 'read');
    return watermark ? [watermark] : [];
  }
  return [];
}

/** `watermark` (epoch milliseconds) of the customer who sent the event: null when either is missing. */
function watermarkReceipt(event: Record<string, unknown>, watermark: unknown, status: WatermarkReceipt['status']): WatermarkReceipt | null {
  const to = isRecord(event.sender) ? stringOf(event.sender.id) : undefined;
  const at = typeof watermark === 'number' ? watermark : typeof watermark === 'string' && /^\d+$/.test(watermark) ? Number(watermark) : NaN;
  if (!to || !Number.isFinite(at) || at <= 0) return null;
  return { kind: 'receipt', to, watermark: new Date(at), status };
}

function parseMessage(event: Record<string, unknown>, message: Record<string, unknown>): InboundMessage | null {
  // Echoes are our own page's messages coming back: answering them would loop.
  if (message.is_echo === true) return null;
  const externalId = stringOf(message.mid);
  const from = isRecord(event.sender) ? stringOf(event.sender.id) : undefined;
  if (!externalId || !from) return null;
  const to = isRecord(event.recipient) ? stringOf(event.recipient.id) : undefined;
  const text = stringOf(message.text) ?? null;
  const attached = attachmentsOf(message.attachments);
  if (text === null && attached.length === 0) return null;
  return { kind: 'message', externalId, from, ...(to ? { to } : {}), text, ...(attached.length > 0 ? { media: attached } : {}) };
}

const TYPES: Record<string, InboundMedia['type']> = { image: 'image', audio: 'audio', video: 'video', file: 'document', sticker: 'sticker', location: 'location' };

/**
 * `attachments: [{type, payload: {url, sticker_id?, coordinates?}}]`. A sticker may come
 * twice while Meta moves stickers from `image` (with `sticker_id`) to their own type: both
 * are read as the sticker and the copy dropped.
 */
function attachmentsOf(attachments: unknown): InboundMedia[] {
  const seen = new Set<string>();
  const found: InboundMedia[] = [];
  for (const attachment of arrayOf(attachments)) {
    if (!isRecord(attachment)) continue;
    const payload = isRecord(attachment.payload) ? attachment.payload : {};
    const declared = stringOf(attachment.type) ?? 'other';
    const type = payload.sticker_id !== undefined ? 'sticker' : (TYPES[declared] ?? 'other');
    const coordinates = isRecord(payload.coordinates) ? payload.coordinates : {};
    const url = type === 'location' ? geoUri(coordinates.lat, coordinates.long) : stringOf(payload.url);
    const id = type === 'sticker' ? stringOf(payload.sticker_id) : undefined;
    const key = `${type} ${url ?? ''} ${id ?? ''}`;
    if (seen.has(key)) continue;
    seen.add(key);
    found.push(media({ type, url, id }));
  }
  return found;
}
