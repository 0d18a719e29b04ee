import { loopbackEgress, sendFailure } from '../driver-test-kit';
import { Value } from '@sinclair/typebox/value';
import type { Egress } from '../../../../../core/egress';
import { captureLogger } from '../../../../../core/testing';
import type { DriverContext, InboundRequest } from '../../../../../plugins/channels/driver';
import { telegramDriver } from '../../../../../plugins/channels/drivers/telegram';
import type { TelegramCredentials } from '../../../../../plugins/channels/drivers/telegram/credentials';
import { signedTelegramHook, startTelegramServer, telegramContent, telegramError, telegramMessageUpdate, type SignedTelegramHook, type TelegramServer } from './telegram-server';

const HOOK_URL = 'https://switchboard.example.com/hooks/channels/0b7e6f1c-1d2a-4c1b-9a57-3f0e9d1c2b7e';
const CUSTOMER = { id: 48_151_623, firstName: 'Ada', lastName: 'Lovelace' };

let telegram: TelegramServer;
let egress: Egress;
let credentials: TelegramCredentials;

beforeAll(async () => {
  telegram = await startTelegramServer();
  const [bot] = telegram.state.bots;
  credentials = { bot_token: bot.token, secret_token: bot.secretToken };
  // Loopback is refused by default: allow it, as the test kernel does.
  egress = loopbackEgress();
});
afterAll(async () => {
  await egress.close();
  await telegram.close();
});
beforeEach(() => {
  telegram.state.calls.length = 0;
  telegram.state.failures.length = 0;
  telegram.state.chats.length = 0;
  telegram.requests.length = 0;
});

const connection = () => ({ uuid: 'c0ffee00-0000-4000-8000-000000000002', provider: 'telegram', label: 'Bot', credentials });

const context = (creds: TelegramCredentials = credentials): DriverContext<TelegramCredentials> => ({
  connection: { ...connection(), credentials: creds },
  egress,
  apiBaseUrl: telegram.url,
  hookUrl: HOOK_URL,
  logger: captureLogger().logger,
});

function inbound(hook: SignedTelegramHook, change: { body?: string; headers?: Record<string, string | undefined> } = {}): InboundRequest {
  const body = change.body ?? hook.body;
  return { method: 'POST', url: HOOK_URL, headers: change.headers ?? hook.headers, rawBody: Buffer.from(body), body: JSON.parse(body), query: {} };
}


describe('verify (X-Telegram-Bot-Api-Secret-Token)', () => {
  it('accepts the secret token given to setWebhook', () => {
    expect(telegramDriver.verify(inbound(telegram.userMessage(CUSTOMER, telegramContent.text('hi'))), connection())).toBe(true);
  });

  it('refuses a wrong, a missing, an empty or a prefix of the token', () => {
    const hook = telegram.userMessage(CUSTOMER, telegramContent.text('hi'));
    const withToken = (token: string | undefined) => inbound(hook, { headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': token } });
    expect(telegramDriver.verify(withToken('not-the-secret'), connection())).toBe(false);
    expect(telegramDriver.verify(withToken(undefined), connection())).toBe(false);
    expect(telegramDriver.verify(withToken(''), connection())).toBe(false);
    expect(telegramDriver.verify(withToken(credentials.secret_token.slice(0, -1)), connection())).toBe(false);
    expect(telegramDriver.verify(withToken(`${credentials.secret_token}x`), connection())).toBe(false);
  });

  it('refuses an update signed for another bot', () => {
    const hook = signedTelegramHook(telegramMessageUpdate(CUSTOMER, telegramContent.text('hi')), 'another-bots-secret');
    expect(telegramDriver.verify(inbound(hook), connection())).toBe(false);
  });
});

describe('parse', () => {
  it('reads a text message: the chat is who wrote, update and message ids make the id', () => {
    const hook = telegram.userMessage(CUSTOMER, telegramContent.text('Do you deliver on Sundays?'));
    const message = hook.update.message!;
    expect(telegramDriver.parse(inbound(hook), connection())).toEqual([
      { kind: 'message', externalId: `${hook.update.update_id}:${message.message_id}`, from: String(CUSTOMER.id), text: 'Do you deliver on Sundays?', profileName: 'Ada Lovelace' },
    ]);
  });

  it('reads a photo as its largest size, with its caption as the text', () => {
    const content = telegramContent.photo('my order');
    const [event] = telegramDriver.parse(inbound(telegram.userMessage(CUSTOMER, content)), connection());
    expect(event).toMatchObject({ kind: 'message', text: 'my order', media: [{ type: 'image', id: content.photo[2].file_id }] });
  });

  it('reads voice, document, sticker and location messages as media without text', () => {
    const voice = telegramContent.voice();
    const document = telegramContent.document('invoice.pdf', 'application/pdf');
    const sticker = telegramContent.sticker();
    const parse = (content: Record<string, unknown>) => telegramDriver.parse(inbound(telegram.userMessage(CUSTOMER, content)), connection())[0];
    expect(parse(voice)).toMatchObject({ text: null, media: [{ type: 'audio', id: voice.voice.file_id, mimeType: 'audio/ogg' }] });
    expect(parse(document)).toMatchObject({ text: null, media: [{ type: 'document', id: document.document.file_id, mimeType: 'application/pdf' }] });
    expect(parse(sticker)).toMatchObject({ text: null, media: [{ type: 'sticker', id: sticker.sticker.file_id }] });
    expect(parse(telegramContent.location(48.8584, 2.2945))).toMatchObject({ text: null, media: [{ type: 'location', url: 'geo:48.8584,2.2945' }] });
  });

  it('gives the same id to a retried update', () => {
    const update = telegramMessageUpdate(CUSTOMER, telegramContent.text('hi'));
    const first = telegramDriver.parse(inbound(signedTelegramHook(update, credentials.secret_token)), connection());
    const again = telegramDriver.parse(inbound(signedTelegramHook(update, credentials.secret_token)), connection());
    expect(again).toEqual(first);
  });

  it('leaves out updates that are not a new message, and refuses a body that is not an Update', () => {
    const edited = { update_id: 1, edited_message: telegramMessageUpdate(CUSTOMER, telegramContent.text('edit')).message };
    expect(telegramDriver.parse(inbound(signedTelegramHook(edited, credentials.secret_token)), connection())).toEqual([]);
    const callback = { update_id: 2, callback_query: { id: '1', from: { id: CUSTOMER.id, is_bot: false, first_name: 'Ada' }, data: 'x' } };
    expect(telegramDriver.parse(inbound(signedTelegramHook(callback, credentials.secret_token)), connection())).toEqual([]);
    expect(() => telegramDriver.parse(inbound({ headers: {}, body: '{"message":{}}' }), connection())).toThrow(/not an Update/);
    expect(() => telegramDriver.parse(inbound({ headers: {}, body: '{"update_id":3,"message":{"text":"x"}}' }), connection())).toThrow(/message_id/);
  });

  it('answers no receipts (Telegram has none for bots)', () => {
    const events = telegramDriver.parse(inbound(telegram.userMessage(CUSTOMER, telegramContent.text('hi'))), connection());
    expect(events.every((event) => event.kind === 'message')).toBe(true);
    expect(telegramDriver.acknowledge).toBeUndefined();
  });
});

describe('send', () => {
  it('sends the text to the chat with sendMessage and answers the chat-scoped message id', async () => {
    telegram.userMessage(CUSTOMER, telegramContent.text('hi'));
    const { externalId } = await telegramDriver.send(context(), { to: String(CUSTOMER.id), text: 'Yes, 9 to 5.', idempotencyKey: 'k1' });
    expect(telegram.state.calls).toEqual([{ botToken: credentials.bot_token, method: 'sendMessage', params: { chat_id: String(CUSTOMER.id), text: 'Yes, 9 to 5.' }, messageId: expect.any(Number) }]);
    expect(externalId).toBe(`${CUSTOMER.id}:${telegram.state.calls[0].messageId}`);
    expect(telegram.requests[0].headers['content-type']).toMatch(/^application\/json/);
  });

  it("fails for good with Telegram's description on a 4xx", async () => {
    const unknownChat = await sendFailure(telegramDriver.send(context(), { to: '777', text: 'hello', idempotencyKey: 'k2' }));
    expect(unknownChat).toMatchObject({ retryable: false, retryAfterSeconds: null, message: 'Telegram: Bad Request: chat not found' });
    telegram.userMessage(CUSTOMER, telegramContent.text('hi'));
    telegram.state.chats[0].blocked = true;
    const blocked = await sendFailure(telegramDriver.send(context(), { to: String(CUSTOMER.id), text: 'hello', idempotencyKey: 'k3' }));
    expect(blocked).toMatchObject({ retryable: false, message: 'Telegram: Forbidden: bot was blocked by the user' });
    const badToken = await sendFailure(telegramDriver.send(context({ ...credentials, bot_token: '1:wrong' }), { to: String(CUSTOMER.id), text: 'hello', idempotencyKey: 'k4' }));
    expect(badToken).toMatchObject({ retryable: false, message: 'Telegram: Unauthorized' });
    // The token is in the URL, never in the reason.
    expect(badToken.message).not.toContain('1:wrong');
  });

  it('is retryable on flood control (429), after parameters.retry_after', async () => {
    telegram.state.failures.push({ on: 'sendMessage', reply: telegramError(429, 'Too Many Requests: retry after 12', { retry_after: 12 }) });
    const error = await sendFailure(telegramDriver.send(context(), { to: String(CUSTOMER.id), text: 'hello', idempotencyKey: 'k5' }));
    expect(error).toMatchObject({ retryable: true, retryAfterSeconds: 12, message: 'Telegram: Too Many Requests: retry after 12' });
  });

  it('is retryable on a 5xx, sent once', async () => {
    telegram.state.failures.push({ reply: telegramError(502, 'Bad Gateway') });
    const error = await sendFailure(telegramDriver.send(context(), { to: String(CUSTOMER.id), text: 'hello', idempotencyKey: 'k6' }));
    expect(error).toMatchObject({ retryable: true, retryAfterSeconds: null });
    expect(telegram.requests).toHaveLength(1);
  });

  it('is retryable when Telegram cannot be reached', async () => {
    const closed = await startTelegramServer();
    await closed.close();
    const error = await sendFailure(telegramDriver.send({ ...context(), apiBaseUrl: closed.url }, { to: String(CUSTOMER.id), text: 'hello', idempotencyKey: 'k7' }));
    expect(error.retryable).toBe(true);
  });
});

describe('typing', () => {
  it('sends the typing chat action to the chat', async () => {
    telegram.userMessage(CUSTOMER, telegramContent.text('hi'));
    await telegramDriver.typing!(context(), String(CUSTOMER.id));
    expect(telegram.state.calls).toEqual([{ botToken: credentials.bot_token, method: 'sendChatAction', params: { chat_id: String(CUSTOMER.id), action: 'typing' } }]);
  });

  it('fails like a send when Telegram refuses', async () => {
    const error = await sendFailure(telegramDriver.typing!(context(), '777'));
    expect(error).toMatchObject({ retryable: false, message: 'Telegram: Bad Request: chat not found' });
  });
});

describe('registerWebhook (setWebhook)', () => {
  it('gives Telegram the hook URL and the connection’s secret_token', async () => {
    const url = 'https://switchboard.example/hooks/channels/0b5c0f0e-1111-4222-8333-444455556666';
    await telegramDriver.registerWebhook!(context(), { url });
    expect(telegram.state.calls).toEqual([{ botToken: credentials.bot_token, method: 'setWebhook', params: { url, secret_token: credentials.secret_token } }]);
  });

  it('fails like a send when Telegram refuses the URL', async () => {
    telegram.state.failures.push({ on: 'setWebhook', reply: telegramError(400, 'Bad Request: bad webhook: An HTTPS URL must be provided for webhook') });
    const error = await sendFailure(telegramDriver.registerWebhook!(context(), { url: 'http://switchboard.example/hooks/channels/x' }));
    expect(error).toMatchObject({ retryable: false, message: 'Telegram: Bad Request: bad webhook: An HTTPS URL must be provided for webhook' });
  });
});

describe('test (credentials)', () => {
  it('accepts a bot token Telegram knows (getMe)', async () => {
    await expect(telegramDriver.test!(credentials, { egress, apiBaseUrl: telegram.url })).resolves.toEqual({ valid: true });
    expect(telegram.state.calls.map((call) => call.method)).toEqual(['getMe']);
  });

  it('refuses an unknown token, with a message that does not repeat it', async () => {
    const result = await telegramDriver.test!({ ...credentials, bot_token: '42:unknown' }, { egress, apiBaseUrl: telegram.url });
    expect(result).toEqual({ valid: false, message: 'Telegram refused the bot token (Unauthorized)' });
  });

  it('says when Telegram cannot be reached', async () => {
    const closed = await startTelegramServer();
    await closed.close();
    expect(await telegramDriver.test!(credentials, { egress, apiBaseUrl: closed.url })).toEqual({ valid: false, message: expect.stringMatching(/^Telegram could not be reached/) });
  });
});

describe('credentials schema', () => {
  it('takes the secret token only in the characters setWebhook allows', () => {
    expect(Value.Check(telegramDriver.credentials, credentials)).toBe(true);
    expect(Value.Check(telegramDriver.credentials, { ...credentials, secret_token: 'has space' })).toBe(false);
    expect(Value.Check(telegramDriver.credentials, { ...credentials, bot_token: 'no-colon' })).toBe(false);
  });
});
