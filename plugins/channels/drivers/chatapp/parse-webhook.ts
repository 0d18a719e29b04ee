import type { DeliveryReceipt, InboundEvent, InboundMedia, InboundMessage, TemplateStatusUpdate } from '../../driver';
import { arrayOf, geoUri, isRecord, media, stringOf } from './graph';

/**
 * Reads a WhatsApp Cloud API `messages` webhook:
 * `{object: 'whatsapp_business_account', entry: [{id, changes: [{field: 'messages', value:
 * {metadata: {display_phone_number, phone_number_id}, contacts?, messages?, statuses?}}]}]}`.
 * Customer messages become InboundMessages, `statuses` of ours become receipts; what
 * carries nothing to answer (reactions, system notices, unsupported types) is left out.
 * A `message_template_status_update` change of the connection's business account (the
 * entry's id) becomes a TemplateStatusUpdate.
 */
export function parseWhatsAppWebhook(body: unknown, phoneNumberId: string, businessAccountId?: string): InboundEvent[] {
  if (!isRecord(body) || !Array.isArray(body.entry)) throw new Error('not a WhatsApp webhook: `entry` must be an array');
  const events: InboundEvent[] = [];
  for (const entry of body.entry) {
    for (const change of arrayOf(isRecord(entry) ? entry.changes : undefined)) {
      if (isRecord(change) && change.field === 'message_template_status_update' && isRecord(change.value)) {
        const update = parseTemplateStatus(change.value, isRecord(entry) ? stringOf(entry.id) : undefined, businessAccountId);
        if (update) events.push(update);
        continue;
      }
      if (!isRecord(change) || (change.field !== undefined && change.field !== 'messages') || !isRecord(change.value)) continue;
      const value = change.value;
      const metadata = isRecord(value.metadata) ? value.metadata : {};
      // One app's webhook may carry several numbers of the business account: this
      // connection answers for its own number only (its token could not reply from another).
      const valueNumber = stringOf(metadata.phone_number_id);
      if (valueNumber !== undefined && valueNumber !== phoneNumberId) continue;
      const to = stringOf(metadata.display_phone_number);
      const names = profileNames(value.contacts);
      for (const message of arrayOf(value.messages)) {
        const parsed = isRecord(message) ? parseMessage(message, names, to) : null;
        if (parsed) events.push(parsed);
      }
      for (const status of arrayOf(value.statuses)) {
        const parsed = isRecord(status) ? parseStatus(status) : null;
        if (parsed) events.push(parsed);
      }
    }
  }
  return events;
}

/** `contacts[]`: the WhatsApp profile name of each sender, by `wa_id`. */
function profileNames(contacts: unknown): Map<string, string> {
  const names = new Map<string, string>();
  for (const contact of arrayOf(contacts)) {
    if (!isRecord(contact) || !isRecord(contact.profile)) continue;
    const id = stringOf(contact.wa_id);
    const name = stringOf(contact.profile.name);
    if (id && name) names.set(id, name);
  }
  return names;
}

/** A sender's number as E.164: WhatsApp gives it as digits without the `+`. Other ids (usernames) stay as they are. */
export const e164 = (from: string): string => (/^\d+$/.test(from) ? `+${from}` : from);

const MEDIA_TYPES = ['image', 'audio', 'video', 'document', 'sticker'] as const;

function parseMessage(message: Record<string, unknown>, names: Map<string, string>, to: string | undefined): InboundMessage | null {
  const externalId = stringOf(message.id);
  const sender = stringOf(message.from);
  if (!externalId || !sender) return null;
  const type = stringOf(message.type);
  const content = type && isRecord(message[type]) ? (message[type] as Record<string, unknown>) : {};
  let text: string | null = null;
  let attached: InboundMedia[] | undefined;
  if (type === 'text') {
    text = stringOf(content.body) ?? null;
  } else if ((MEDIA_TYPES as readonly string[]).includes(type ?? '')) {
    // Media arrive as ids to fetch from `GET /{media-id}` with the token (newer versions add a url).
    attached = [media({ type: type as InboundMedia['type'], id: stringOf(content.id), url: stringOf(content.url), mimeType: stringOf(content.mime_type) })];
    text = stringOf(content.caption) ?? null;
  } else if (type === 'location') {
    attached = [media({ type: 'location', url: geoUri(content.latitude, content.longitude) })];
    text = [stringOf(content.name), stringOf(content.address)].filter(Boolean).join(', ') || null;
  } else if (type === 'button') {
    // A tap on a template's quick-reply button: its label is what the customer said.
    text = stringOf(content.text) ?? null;
  } else if (type === 'interactive') {
    const reply = isRecord(content.button_reply) ? content.button_reply : isRecord(content.list_reply) ? content.list_reply : {};
    text = stringOf(reply.title) ?? null;
  } else {
    return null;
  }
  if (text === null && !attached) return null;
  const profileName = names.get(sender);
  return {
    kind: 'message',
    externalId,
    from: e164(sender),
    ...(to ? { to: e164(to) } : {}),
    text,
    ...(attached ? { media: attached } : {}),
    ...(profileName ? { profileName } : {}),
  };
}

const RECEIPT_STATUSES: ReadonlySet<string> = new Set(['sent', 'delivered', 'read', 'failed']);

/** `statuses[]`: `{id, status, recipient_id, errors?: [{code, title, message, error_data: {details}}]}`. */
function parseStatus(status: Record<string, unknown>): DeliveryReceipt | null {
  const externalId = stringOf(status.id);
  const state = stringOf(status.status);
  if (!externalId || !state || !RECEIPT_STATUSES.has(state)) return null;
  const receipt: DeliveryReceipt = { kind: 'receipt', externalId, status: state as DeliveryReceipt['status'] };
  if (state === 'failed') receipt.reason = failureReason(status.errors);
  return receipt;
}

function failureReason(errors: unknown): string {
  const reasons = arrayOf(errors)
    .filter(isRecord)
    .map((error) => {
      const said = stringOf(error.message) ?? stringOf(error.title) ?? 'failed';
      const details = isRecord(error.error_data) ? stringOf(error.error_data.details) : undefined;
      const code = stringOf(error.code);
      return `${said}${details && details !== said ? `: ${details}` : ''}${code ? ` (code ${code})` : ''}`;
    });
  return reasons.length > 0 ? reasons.join('; ') : 'failed without a reason from WhatsApp';
}

/** The review statuses a template status webhook's `event` may set; its other events (archived, locked, ...) change no status we keep. */
const TEMPLATE_STATUSES: ReadonlySet<string> = new Set(['APPROVED', 'REJECTED', 'PENDING', 'PAUSED', 'DISABLED', 'FLAGGED', 'IN_APPEAL', 'PENDING_DELETION', 'DELETED']);

/**
 * `{event, message_template_id, message_template_name, message_template_language, reason}`
 * under an entry whose id is the business account. One of another business account than
 * the connection's (an app's webhook may carry several) is left out; `reason` `NONE` is none.
 */
function parseTemplateStatus(value: Record<string, unknown>, entryAccount: string | undefined, ownAccount: string | undefined): TemplateStatusUpdate | null {
  const templateId = stringOf(value.message_template_id);
  const status = stringOf(value.event)?.toUpperCase();
  if (!templateId || !status || !TEMPLATE_STATUSES.has(status) || !entryAccount) return null;
  if (ownAccount !== undefined && entryAccount !== ownAccount) return null;
  const reason = stringOf(value.reason);
  return { kind: 'template_status', businessAccountId: entryAccount, templateId, status, reason: reason && reason.toUpperCase() !== 'NONE' ? reason : null };
}
