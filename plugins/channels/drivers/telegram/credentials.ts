import { Type, type Static } from '../../../../core';

/**
 * A Telegram bot: its token from @BotFather (API calls go to `/bot{token}/...`) and the
 * `secret_token` given to `setWebhook`, which Telegram sends back on every update in
 * `X-Telegram-Bot-Api-Secret-Token` (1-256 of A-Z, a-z, 0-9, `_`, `-`, as Telegram allows).
 */
export const TelegramCredentials = Type.Object(
  {
    bot_token: Type.String({ pattern: '^[0-9]+:[A-Za-z0-9_-]+$', description: 'The bot token (123456:ABC-...).' }),
    secret_token: Type.String({ pattern: '^[A-Za-z0-9_-]{1,256}$', description: 'The secret_token set with setWebhook.' }),
  },
  { additionalProperties: false },
);

export type TelegramCredentials = Static<typeof TelegramCredentials>;
