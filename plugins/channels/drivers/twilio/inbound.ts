import type { DeliveryReceipt, InboundEvent, InboundMedia, InboundRequest } from '../../driver';

/**
 * What Twilio posts to the channel's hook, form-encoded: an incoming message (`MessageSid`,
 * `From`, `To`, `Body`, `NumMedia` with `MediaUrl{i}` and `MediaContentType{i}`) or the
 * status callback of one of ours (`MessageSid`, `MessageStatus`, `ErrorCode`).
 */
export function parseTwilioWebhook(request: InboundRequest): InboundEvent[] {
  const field = fieldReader(request.body);
  const sid = field('MessageSid') ?? field('SmsSid');
  // Not a messaging webhook (a voice callback pointed here): nothing for the channel.
  if (!sid) return [];
  const status = field('MessageStatus');
  // An inbound message's own status is `received`; any other is what became of ours.
  if (status && status !== 'received' && status !== 'receiving') {
    const receipt = receiptOf(sid, status, field('ErrorCode'), field('ErrorMessage'));
    return receipt ? [receipt] : [];
  }
  const from = field('From');
  if (!from) throw new Error('the Twilio message has no From');
  const media = mediaOf(field);
  const body = field('Body') ?? '';
  const profileName = field('ProfileName');
  return [
    {
      kind: 'message',
      externalId: sid,
      from,
      ...(field('To') ? { to: field('To') } : {}),
      // An MMS that is only a picture has an empty Body.
      text: body === '' && media.length > 0 ? null : body,
      ...(media.length > 0 ? { media } : {}),
      ...(profileName ? { profileName } : {}),
    },
  ];
}

type FieldReader = (name: string) => string | undefined;

function fieldReader(body: unknown): FieldReader {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new Error('the Twilio webhook body is not a form');
  const fields = body as Record<string, unknown>;
  return (name) => {
    const value = fields[name];
    const first = Array.isArray(value) ? value[0] : value;
    return typeof first === 'string' ? first : undefined;
  };
}

/** Twilio's statuses on the way (queued, accepted, sending, scheduled) are not receipts: only where a message ended up. */
function receiptOf(externalId: string, status: string, errorCode: string | undefined, errorMessage: string | undefined): DeliveryReceipt | null {
  switch (status) {
    case 'sent':
    case 'delivered':
    case 'read':
      return { kind: 'receipt', externalId, status };
    case 'failed':
    case 'undelivered':
    case 'canceled': {
      const code = errorCode ? `Twilio error ${errorCode}` : `Twilio status ${status}`;
      return { kind: 'receipt', externalId, status: 'failed', reason: errorMessage ? `${code}: ${errorMessage}` : code };
    }
    default:
      return null;
  }
}

function mediaOf(field: FieldReader): InboundMedia[] {
  const count = Number.parseInt(field('NumMedia') ?? '0', 10);
  const media: InboundMedia[] = [];
  // Twilio attaches at most 10 media to a message; a larger count is not Twilio's.
  for (let index = 0; index < Math.min(Number.isFinite(count) ? count : 0, 10); index++) {
    const url = field(`MediaUrl${index}`);
    if (!url) continue;
    const mimeType = field(`MediaContentType${index}`);
    media.push({ type: mediaType(mimeType), url, ...(mimeType ? { mimeType } : {}) });
  }
  return media;
}

function mediaType(mimeType: string | undefined): InboundMedia['type'] {
  const major = mimeType?.split('/')[0];
  if (major === 'image' || major === 'audio' || major === 'video') return major;
  if (major === 'application' || major === 'text') return 'document';
  return 'other';
}
