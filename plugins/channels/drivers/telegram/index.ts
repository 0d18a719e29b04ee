import { defineChannelDriver } from '../../driver';
import { TelegramCredentials } from './credentials';
import { parseTelegramUpdate, verifyTelegramSecret } from './inbound';
import { fetchTelegramFile } from './media';
import { registerTelegramWebhook, sendTelegramMessage, sendTelegramTyping, testTelegramToken } from './outbound';

/**
 * A Telegram bot (Bot API). Its hook is registered through the API (`setWebhook` with the
 * channel's hook URL and the connection's `secret_token`): `POST /api/v1/channel-connections/{uuid}/register-webhook`.
 * Telegram has no delivery receipts for bots.
 */
export const telegramDriver = defineChannelDriver({
  provider: 'telegram',
  name: 'Telegram',
  // There is no `telegram` agent channel type: it can stand behind either messaging type.
  channelTypes: ['chatapp', 'social'],
  // sendMessage takes 1 to 4,096 characters.
  maxTextLength: 4096,
  credentials: TelegramCredentials,
  defaultApiBaseUrl: 'https://api.telegram.org',
  verify: (request, connection) => verifyTelegramSecret(request, connection.credentials.secret_token),
  parse: (request) => parseTelegramUpdate(request),
  send: sendTelegramMessage,
  typing: sendTelegramTyping,
  registerWebhook: registerTelegramWebhook,
  fetchMedia: fetchTelegramFile,
  test: testTelegramToken,
});
