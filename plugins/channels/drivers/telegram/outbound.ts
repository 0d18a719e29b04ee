import { EgressError, EgressNetworkError, EgressTimeoutError, type Egress, type EgressResponse } from '../../../../core';
import { ChannelSendError, type DriverContext, type OutboundMessage } from '../../driver';
import type { TelegramCredentials } from './credentials';

/**
 * The Telegram Bot API as the driver uses it: `POST {base}/bot{token}/{method}` with a JSON
 * body, answered `{ok: true, result}` or `{ok: false, error_code, description, parameters}`
 * (`parameters.retry_after` on flood control). The URL holds the token: it is never put in
 * an error message (the egress client logs the host alone).
 */

interface TelegramAnswer {
  ok?: unknown;
  result?: unknown;
  description?: unknown;
  parameters?: { retry_after?: unknown };
}

async function callTelegram(egress: Egress, apiBaseUrl: string, token: string, method: string, body?: Record<string, unknown>): Promise<EgressResponse> {
  return egress.request(`${apiBaseUrl}/bot${token}/${method}`, body ? { method: 'POST', body } : { method: 'GET' });
}

function answerOf(response: EgressResponse): TelegramAnswer | null {
  try {
    const value = response.json();
    return typeof value === 'object' && value !== null ? (value as TelegramAnswer) : null;
  } catch {
    return null;
  }
}

/** A refusal or a failure as the channels plugin retries it: 429 and 5xx again later, other 4xx never. */
function failureOf(response: EgressResponse, answer: TelegramAnswer | null): ChannelSendError {
  const reason = typeof answer?.description === 'string' ? `Telegram: ${answer.description}` : `Telegram answered HTTP ${response.status}`;
  const retryAfter = answer?.parameters?.retry_after;
  if (response.status === 429) return new ChannelSendError(reason, true, typeof retryAfter === 'number' ? retryAfter : null);
  if (response.status >= 500) return new ChannelSendError(reason, true);
  return new ChannelSendError(reason, false);
}

function unreachable(error: unknown): unknown {
  if (error instanceof EgressNetworkError || error instanceof EgressTimeoutError) return new ChannelSendError(`Telegram could not be reached: ${error.message}`, true);
  if (error instanceof EgressError) return new ChannelSendError(`Telegram could not be called: ${error.message}`, false);
  return error;
}

async function post(context: DriverContext<TelegramCredentials>, method: string, body: Record<string, unknown>): Promise<unknown> {
  let response: EgressResponse;
  try {
    response = await callTelegram(context.egress, context.apiBaseUrl, context.connection.credentials.bot_token, method, body);
  } catch (error) {
    throw unreachable(error);
  }
  const answer = answerOf(response);
  if (response.status === 200 && answer?.ok === true) return answer.result;
  throw failureOf(response, answer);
}

export async function sendTelegramMessage(context: DriverContext<TelegramCredentials>, message: OutboundMessage): Promise<{ externalId: string }> {
  const result = (await post(context, 'sendMessage', { chat_id: message.to, text: message.text })) as { message_id?: unknown } | null;
  const messageId = result?.message_id;
  if (typeof messageId !== 'number') throw new ChannelSendError('Telegram answered without a message_id', false);
  // Message ids are only unique within a chat: the chat makes the id the connection's own.
  return { externalId: `${message.to}:${messageId}` };
}

export async function sendTelegramTyping(context: DriverContext<TelegramCredentials>, to: string): Promise<void> {
  await post(context, 'sendChatAction', { chat_id: to, action: 'typing' });
}

/**
 * `setWebhook` with the hook's `url` and the connection's `secret_token`, which Telegram
 * then sends on every update (X-Telegram-Bot-Api-Secret-Token), as the hook checks.
 * A bot has one webhook: registering another channel's hook moves the bot there.
 */
export async function registerTelegramWebhook(context: DriverContext<TelegramCredentials>, hook: { url: string }): Promise<void> {
  await post(context, 'setWebhook', { url: hook.url, secret_token: context.connection.credentials.secret_token });
}

export async function testTelegramToken(credentials: TelegramCredentials, context: { egress: Egress; apiBaseUrl: string }): Promise<{ valid: true } | { valid: false; message: string }> {
  let response: EgressResponse;
  try {
    response = await callTelegram(context.egress, context.apiBaseUrl, credentials.bot_token, 'getMe');
  } catch (error) {
    if (error instanceof EgressError) return { valid: false, message: `Telegram could not be reached: ${error.message}` };
    throw error;
  }
  const answer = answerOf(response);
  if (response.status === 200 && answer?.ok === true) return { valid: true };
  const reason = typeof answer?.description === 'string' ? answer.description : `HTTP ${response.status}`;
  // A wrong token is 401; a malformed one 404.
  if (response.status === 401 || response.status === 404) return { valid: false, message: `Telegram refused the bot token (${reason})` };
  return { valid: false, message: `Telegram could not check the bot token (${reason})` };
}
