import { randomBytes } from 'node:crypto';
import { startVendorServer, type VendorReply, type VendorRequest, type VendorServer } from '../../../../../plugins/flows/testing-kit';

/**
 * The Telegram Bot API as the Telegram driver uses it, played on loopback from its
 * documented shapes: `{base}/bot{token}/{method}` taking JSON (or form) parameters and
 * answering `{ok: true, result}` or `{ok: false, error_code, description, parameters}`.
 * Methods: getMe, sendMessage (to a chat that wrote to the bot: others are "chat not
 * found"), sendChatAction, setWebhook. Every call is recorded. `userMessage` plays a
 * customer writing to the bot: it answers the Update webhook Telegram would post, with
 * the secret-token header, for tests (and end-to-end tests) to post to the hook.
 *
 * Not played: files (getFile), formatting, replies, keyboards, groups.
 */

export interface TelegramBot {
  token: string;
  id: number;
  username: string;
  firstName: string;
  /** The secret_token its webhook sends (set by setWebhook, or given). */
  secretToken: string;
  webhookUrl: string | null;
}

export interface TelegramCall {
  botToken: string;
  method: string;
  params: Record<string, unknown>;
  /** sendMessage: the message_id given. */
  messageId?: number;
}

export interface TelegramState {
  bots: TelegramBot[];
  /** Chats that wrote to a bot (a bot can write only to them); `blocked` ones answer 403. */
  chats: Array<{ id: number; firstName: string; lastName?: string; blocked: boolean }>;
  calls: TelegramCall[];
  /** Answered, in order, instead of handling the next requests; one with `on` waits for a request whose path holds it (`sendMessage`). */
  failures: Array<{ on?: string; reply: VendorReply }>;
}

/** An Update webhook as Telegram would post it. */
export interface SignedTelegramHook {
  headers: Record<string, string>;
  body: string;
}

export interface TelegramServer extends VendorServer<TelegramState> {
  /** A customer writes to the first bot (or `botToken`'s): the chat is known from then on; `content` is the Message's own fields (`{text}`, `{photo: [...]}`...). */
  userMessage(chat: { id: number; firstName: string; lastName?: string }, content: Record<string, unknown>, options?: { botToken?: string }): SignedTelegramHook & { update: TelegramUpdate };
}

export interface TelegramUpdate {
  update_id: number;
  message?: Record<string, unknown>;
  [kind: string]: unknown;
}

let nextUpdateId = 800_000_000 + Math.floor(Math.random() * 1000);
let nextInboundMessageId = 1;

/** The Update of a message from a user in a private chat, per the documented Update and Message objects. */
export function telegramMessageUpdate(chat: { id: number; firstName: string; lastName?: string }, content: Record<string, unknown>, ids: { updateId?: number; messageId?: number } = {}): TelegramUpdate {
  const user = { id: chat.id, is_bot: false, first_name: chat.firstName, ...(chat.lastName ? { last_name: chat.lastName } : {}), language_code: 'en' };
  return {
    update_id: ids.updateId ?? nextUpdateId++,
    message: {
      message_id: ids.messageId ?? nextInboundMessageId++,
      from: user,
      chat: { id: chat.id, first_name: chat.firstName, ...(chat.lastName ? { last_name: chat.lastName } : {}), type: 'private' },
      date: Math.floor(Date.now() / 1000),
      ...content,
    },
  };
}

export function signedTelegramHook(update: TelegramUpdate, secretToken: string | null): SignedTelegramHook {
  return {
    headers: { 'content-type': 'application/json', ...(secretToken !== null ? { 'x-telegram-bot-api-secret-token': secretToken } : {}) },
    body: JSON.stringify(update),
  };
}

const fileId = () => `AgAC${randomBytes(18).toString('base64url')}`;

/** Message contents of each documented kind, for `userMessage` and `telegramMessageUpdate`. */
export const telegramContent = {
  text: (text: string) => ({ text }),
  photo: (caption?: string) => ({
    photo: [90, 320, 800].map((width) => ({ file_id: fileId(), file_unique_id: fileId().slice(0, 12), width, height: Math.round(width * 0.75), file_size: width * 40 })),
    ...(caption ? { caption } : {}),
  }),
  voice: () => ({ voice: { file_id: fileId(), file_unique_id: fileId().slice(0, 12), duration: 3, mime_type: 'audio/ogg', file_size: 9000 } }),
  document: (fileName = 'invoice.pdf', mimeType = 'application/pdf') => ({ document: { file_id: fileId(), file_unique_id: fileId().slice(0, 12), file_name: fileName, mime_type: mimeType, file_size: 20000 } }),
  sticker: () => ({ sticker: { file_id: fileId(), file_unique_id: fileId().slice(0, 12), type: 'regular', width: 512, height: 512, is_animated: false, is_video: false, emoji: '👍' } }),
  location: (latitude: number, longitude: number) => ({ location: { latitude, longitude } }),
};

export const telegramError = (errorCode: number, description: string, parameters?: Record<string, unknown>): VendorReply => ({
  status: errorCode,
  body: { ok: false, error_code: errorCode, description, ...(parameters ? { parameters } : {}) },
});

const ok = (result: unknown): VendorReply => ({ body: { ok: true, result } });

const CHAT_ACTIONS = new Set(['typing', 'upload_photo', 'record_video', 'upload_video', 'record_voice', 'upload_voice', 'upload_document', 'choose_sticker', 'find_location', 'record_video_note', 'upload_video_note']);

/** Telegram takes parameters as JSON, a form, or the query string. */
function paramsOf(request: VendorRequest): Record<string, unknown> {
  const type = String(request.headers['content-type'] ?? '');
  if (type.startsWith('application/json')) return request.json<Record<string, unknown>>();
  const params: Record<string, unknown> = Object.fromEntries(request.query);
  if (type.startsWith('application/x-www-form-urlencoded')) Object.assign(params, Object.fromEntries(new URLSearchParams(request.body)));
  return params;
}

type Method = (bot: TelegramBot, params: Record<string, unknown>, state: TelegramState, call: TelegramCall) => VendorReply;

function chatOf(params: Record<string, unknown>, state: TelegramState): TelegramState['chats'][number] | VendorReply {
  if (params.chat_id === undefined || params.chat_id === '') return telegramError(400, 'Bad Request: chat_id is empty');
  const chat = state.chats.find((candidate) => String(candidate.id) === String(params.chat_id));
  if (!chat) return telegramError(400, 'Bad Request: chat not found');
  if (chat.blocked) return telegramError(403, 'Forbidden: bot was blocked by the user');
  return chat;
}

const isReply = (value: object): value is VendorReply => 'status' in value || 'body' in value;

let nextOutboundMessageId = 5000;

const methods: Record<string, Method> = {
  getMe: (bot) => ok({ id: bot.id, is_bot: true, first_name: bot.firstName, username: bot.username, can_join_groups: true, can_read_all_group_messages: false, supports_inline_queries: false }),
  sendMessage: (bot, params, state, call) => {
    const chat = chatOf(params, state);
    if (isReply(chat)) return chat;
    const text = typeof params.text === 'string' ? params.text : '';
    if (text.trim() === '') return telegramError(400, 'Bad Request: message text is empty');
    if (text.length > 4096) return telegramError(400, 'Bad Request: message is too long');
    call.messageId = nextOutboundMessageId++;
    return ok({
      message_id: call.messageId,
      from: { id: bot.id, is_bot: true, first_name: bot.firstName, username: bot.username },
      chat: { id: chat.id, first_name: chat.firstName, type: 'private' },
      date: Math.floor(Date.now() / 1000),
      text,
    });
  },
  sendChatAction: (_bot, params, state) => {
    const chat = chatOf(params, state);
    if (isReply(chat)) return chat;
    if (typeof params.action !== 'string' || !CHAT_ACTIONS.has(params.action)) return telegramError(400, 'Bad Request: wrong parameter action in request');
    return ok(true);
  },
  setWebhook: (bot, params) => {
    if (typeof params.url !== 'string') return telegramError(400, 'Bad Request: bad webhook: URL must be provided');
    bot.webhookUrl = params.url;
    if (typeof params.secret_token === 'string') bot.secretToken = params.secret_token;
    return ok(true);
  },
};

function handle(request: VendorRequest, state: TelegramState): VendorReply {
  const index = state.failures.findIndex((failure) => !failure.on || request.path.includes(failure.on));
  if (index >= 0) return state.failures.splice(index, 1)[0].reply;
  const token = request.params.bot.startsWith('bot') ? request.params.bot.slice(3) : null;
  // Method names are case-insensitive in the Bot API.
  const name = Object.keys(methods).find((candidate) => candidate.toLowerCase() === request.params.method.toLowerCase());
  if (token === null || !name) return telegramError(404, 'Not Found');
  const bot = state.bots.find((candidate) => candidate.token === token);
  if (!bot) return telegramError(401, 'Unauthorized');
  const params = paramsOf(request);
  const call: TelegramCall = { botToken: token, method: name, params };
  state.calls.push(call);
  return methods[name](bot, params, state, call);
}

export async function startTelegramServer(options: { bots?: Array<Partial<TelegramBot>> } = {}): Promise<TelegramServer> {
  const state: TelegramState = {
    bots: (options.bots ?? [{}]).map((bot) => {
      const id = bot.id ?? 6_000_000_000 + Math.floor(Math.random() * 1_000_000);
      return {
        id,
        token: bot.token ?? `${id}:AA${randomBytes(24).toString('base64url')}`,
        username: bot.username ?? 'switchboard_test_bot',
        firstName: bot.firstName ?? 'Switchboard',
        secretToken: bot.secretToken ?? randomBytes(24).toString('base64url'),
        webhookUrl: bot.webhookUrl ?? null,
      };
    }),
    chats: [],
    calls: [],
    failures: [],
  };
  const server = await startVendorServer<TelegramState>({ 'POST /:bot/:method': handle, 'GET /:bot/:method': handle }, { state });
  return Object.assign(server, {
    userMessage(chat: { id: number; firstName: string; lastName?: string }, content: Record<string, unknown>, messageOptions: { botToken?: string } = {}) {
      const bot = state.bots.find((candidate) => candidate.token === (messageOptions.botToken ?? state.bots[0].token));
      if (!bot) throw new Error('no such bot');
      if (!state.chats.some((known) => known.id === chat.id)) state.chats.push({ ...chat, blocked: false });
      const update = telegramMessageUpdate(chat, content);
      return { ...signedTelegramHook(update, bot.secretToken), update };
    },
  }) as TelegramServer;
}
