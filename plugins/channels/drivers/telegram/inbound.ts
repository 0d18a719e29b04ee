import { createHash, timingSafeEqual } from 'node:crypto';
import type { InboundEvent, InboundMedia, InboundRequest } from '../../driver';

/**
 * Telegram signs nothing: the webhook carries the `secret_token` given to `setWebhook` in
 * `X-Telegram-Bot-Api-Secret-Token`. Both sides are hashed first so the constant-time
 * comparison runs over equal lengths whatever was sent.
 */
export function verifyTelegramSecret(request: InboundRequest, secretToken: string): boolean {
  const sent = request.headers['x-telegram-bot-api-secret-token'];
  if (!sent) return false;
  const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();
  return timingSafeEqual(digest(sent), digest(secretToken));
}

interface TelegramFile {
  file_id?: unknown;
  mime_type?: unknown;
}

/** The parts of Telegram's Message object the channel reads. */
interface TelegramMessage {
  message_id?: unknown;
  from?: { first_name?: unknown; last_name?: unknown };
  chat?: { id?: unknown };
  text?: unknown;
  caption?: unknown;
  photo?: TelegramFile[];
  voice?: TelegramFile;
  audio?: TelegramFile;
  video?: TelegramFile;
  video_note?: TelegramFile;
  animation?: TelegramFile;
  document?: TelegramFile;
  sticker?: TelegramFile;
  location?: { latitude?: unknown; longitude?: unknown };
}

/**
 * One Update per webhook. Only `message` (a customer writing to the bot) is a turn; edits,
 * channel posts, callback queries and the rest are left out.
 */
export function parseTelegramUpdate(request: InboundRequest): InboundEvent[] {
  const update = request.body;
  if (typeof update !== 'object' || update === null || typeof (update as { update_id?: unknown }).update_id !== 'number') {
    throw new Error('the Telegram webhook body is not an Update');
  }
  const { update_id: updateId, message } = update as { update_id: number; message?: TelegramMessage };
  if (typeof message !== 'object' || message === null) return [];
  const chatId = message.chat?.id;
  if (typeof message.message_id !== 'number' || (typeof chatId !== 'number' && typeof chatId !== 'string')) {
    throw new Error('the Telegram message has no message_id or chat.id');
  }
  const media = mediaOf(message);
  const text = typeof message.text === 'string' ? message.text : typeof message.caption === 'string' ? message.caption : null;
  const name = [message.from?.first_name, message.from?.last_name].filter((part): part is string => typeof part === 'string' && part !== '').join(' ');
  return [
    {
      kind: 'message',
      // Telegram retries an update with the same update_id; message ids are only unique within a chat.
      externalId: `${updateId}:${message.message_id}`,
      // Replies go to the chat (a private chat's id is the user's).
      from: String(chatId),
      text,
      ...(media.length > 0 ? { media } : {}),
      ...(name ? { profileName: name } : {}),
    },
  ];
}

function mediaOf(message: TelegramMessage): InboundMedia[] {
  const media: InboundMedia[] = [];
  const add = (type: InboundMedia['type'], file: TelegramFile | undefined) => {
    if (typeof file?.file_id !== 'string') return;
    media.push({ type, id: file.file_id, ...(typeof file.mime_type === 'string' ? { mimeType: file.mime_type } : {}) });
  };
  // Telegram sends every size of a photo, smallest first: the largest is the picture.
  if (Array.isArray(message.photo)) add('image', message.photo.at(-1));
  add('audio', message.voice);
  add('audio', message.audio);
  add('video', message.video);
  add('video', message.video_note);
  // An animation also fills `document` (Telegram's backward compatibility): count it once.
  if (message.animation) add('video', message.animation);
  else add('document', message.document);
  add('sticker', message.sticker);
  const { latitude, longitude } = message.location ?? {};
  // A place has no file: a geo URI (RFC 5870) says where it is.
  if (typeof latitude === 'number' && typeof longitude === 'number') media.push({ type: 'location', url: `geo:${latitude},${longitude}` });
  return media;
}
