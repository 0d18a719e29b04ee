import request from 'supertest';
import { waitFor } from '../../../core/testing';
import { signedGraphWebhook, messengerTextWebhook, whatsAppTextWebhook, whatsAppWebhook } from '../../plugins/channels/drivers/chatapp/graph-webhook';
import { telegramContent } from '../../plugins/channels/drivers/telegram/telegram-server';
import { inboundSmsParams, signedTwilioHook } from '../../plugins/channels/drivers/twilio/twilio-server';
import {
  APP_SECRET,
  OUR_NUMBER,
  PAGE_ID,
  PHONE_NUMBER_ID,
  VERIFY_TOKEN,
  agentOn,
  connection,
  conversationWithReply,
  conversationsOf,
  inboundRows,
  messagesOf,
  postHook,
  settle,
  startProvidersRig,
  turnCalls,
  type ProvidersRig,
} from './providers-kit';

/**
 * An agent answers customers on each built-in provider, end to end: the provider's signed
 * webhook reaches the real hook, the real driver reads it, the runtime takes the turn
 * against a scripted model, and the real driver sends the reply to the provider's local
 * fake, which checks it as the provider would. Receipts come back through the same hook.
 */

let rig: ProvidersRig;

beforeAll(async () => {
  rig = await startProvidersRig();
});
afterAll(async () => {
  await rig?.stop();
});

describe('Twilio SMS', () => {
  let conn: string;
  const account = () => rig.twilio.state.accounts[0];
  /** An inbound SMS to our number, signed over the hook's full public URL as Twilio signs it. */
  const inboundSms = (hookPath: string, from: string, body: string, options: { messageSid?: string; authToken?: string } = {}) =>
    signedTwilioHook(`${rig.kit.url}${hookPath}`, inboundSmsParams({ accountSid: account().sid, from, to: OUR_NUMBER, body, messageSid: options.messageSid }), options.authToken ?? account().authToken);
  const smsTo = (customer: string) => rig.twilio.state.messages.filter((message) => message.to === customer);

  beforeAll(async () => {
    // No from_number: the reply must come from the number the customer wrote to.
    conn = await connection(rig.kit, 'twilio', { account_sid: account().sid, auth_token: account().authToken });
  });

  it('answers an inbound SMS from our number, then a delivered status callback updates the message', async () => {
    const { kit } = rig;
    const { agent, hookPath } = await agentOn(kit, conn, 'sms');
    const customer = '+14155550100';
    rig.answer('When do you open?', 'We open at nine tomorrow.');
    const acked = await postHook(kit, hookPath, inboundSms(hookPath, customer, 'When do you open?')).expect(200);
    // Empty TwiML: Twilio itself sends nothing back.
    expect(acked.headers['content-type']).toMatch(/^text\/xml/);
    expect(acked.text).toContain('<Response></Response>');

    const [sms] = await waitFor(() => smsTo(customer), (found) => found.length === 1);
    expect(sms).toMatchObject({ accountSid: account().sid, from: OUR_NUMBER, to: customer, body: 'We open at nine tomorrow.', statusCallback: `${kit.url}${hookPath}` });

    const { conversation, messages, reply } = await conversationWithReply(kit, agent, 'sent');
    expect(conversation).toMatchObject({ channel: 'sms' });
    expect(conversation.contact_uuid).not.toBeNull();
    expect(messages.find((m) => m.sender === 'customer')).toMatchObject({ content: 'When do you open?', delivery_status: null });
    expect(reply).toMatchObject({ content: 'We open at nine tomorrow.', delivery_status: 'sent', delivery_error: null });

    await postHook(kit, sms.statusCallback!, rig.twilio.statusCallback(sms.sid, 'delivered')).expect(200);
    const delivered = await waitFor(
      async () => (await messagesOf(kit, conversation.uuid)).find((m) => m.message_uuid === reply.message_uuid),
      (message) => message?.delivery_status === 'delivered',
    );
    expect(delivered.delivery_error).toBeNull();
  });

  /** A number the provider delivers but the phone-number library thinks invalid (+1 555): the customer is answered, known by name only. */
  it('answers a customer whose number the phone-number library thinks invalid (+1 555)', async () => {
    const { kit } = rig;
    const { agent, hookPath } = await agentOn(kit, conn, 'sms');
    const customer = '+15559990000';
    rig.answer('Is this the clinic?', 'Yes, this is the clinic.');
    await postHook(kit, hookPath, inboundSms(hookPath, customer, 'Is this the clinic?')).expect(200);
    const [sms] = await waitFor(() => smsTo(customer), (found) => found.length === 1);
    expect(sms).toMatchObject({ from: OUR_NUMBER, body: 'Yes, this is the clinic.' });
    await conversationWithReply(kit, agent, 'sent');
  });

  it('refuses a bad X-Twilio-Signature with 401 and records nothing', async () => {
    const { kit, model } = rig;
    const { agent, channel, hookPath } = await agentOn(kit, conn, 'sms');
    const customer = '+14155550101';
    const calls = model.requests.length;
    const sent = rig.twilio.state.messages.length;
    await postHook(kit, hookPath, inboundSms(hookPath, customer, 'Hi', { authToken: 'not-the-auth-token' })).expect(401);
    // Signed for another URL (the signature covers the URL Twilio called).
    const elsewhere = signedTwilioHook(`${kit.url}/hooks/channels/elsewhere`, inboundSmsParams({ accountSid: account().sid, from: customer, to: OUR_NUMBER, body: 'Hi' }), account().authToken);
    await postHook(kit, hookPath, elsewhere).expect(401);
    // A body changed after it was signed.
    const signed = inboundSms(hookPath, customer, 'Hi');
    await postHook(kit, hookPath, { ...signed, body: signed.body.replace('Body=Hi', 'Body=Hello') }).expect(401);
    await settle(kit);
    expect(await inboundRows(kit, channel)).toBe(0);
    expect(await conversationsOf(kit, agent)).toHaveLength(0);
    expect(model.requests.length).toBe(calls);
    expect(rig.twilio.state.messages.length).toBe(sent);
  });

  it('takes one turn and sends one reply for a MessageSid posted twice', async () => {
    const { kit, model } = rig;
    const { agent, channel, hookPath } = await agentOn(kit, conn, 'sms');
    const customer = '+14155550102';
    rig.answer('Anyone there once?', 'Hello, only once.');
    const turnsBefore = turnCalls(model).length;
    const hook = inboundSms(hookPath, customer, 'Anyone there once?');
    await postHook(kit, hookPath, hook).expect(200);
    await postHook(kit, hookPath, hook).expect(200);
    await waitFor(() => smsTo(customer), (found) => found.length >= 1);
    await settle(kit);
    // Twilio retrying long after.
    await postHook(kit, hookPath, hook).expect(200);
    await settle(kit);
    expect(turnCalls(model).length - turnsBefore).toBe(1);
    expect(smsTo(customer)).toHaveLength(1);
    expect(await inboundRows(kit, channel)).toBe(1);
    const [conversation] = await conversationsOf(kit, agent);
    expect((await messagesOf(kit, conversation.uuid)).filter((m) => m.sender === 'customer')).toHaveLength(1);
  });

  it('sends a reply longer than 1,600 characters as several SMS, in order', async () => {
    const { kit } = rig;
    const { agent, hookPath } = await agentOn(kit, conn, 'sms');
    const customer = '+14155550103';
    // Numbered long words: the order of the parts shows in their text, and few words keep
    // the paced typing time short (the agent "types" at most 1,000 words a minute).
    const long = Array.from({ length: 70 }, (_, index) => `Item-${String(index + 1).padStart(3, '0')}:the-clinic-opens-at-nine-closes-at-eight.`).join(' ');
    expect(long.length).toBeGreaterThan(3200);
    rig.answer('Tell me everything.', long);
    await postHook(kit, hookPath, inboundSms(hookPath, customer, 'Tell me everything.')).expect(200);

    const { reply } = await conversationWithReply(kit, agent, 'sent');
    const parts = smsTo(customer);
    expect(parts.length).toBeGreaterThanOrEqual(3);
    for (const part of parts) {
      expect(part.body.length).toBeLessThanOrEqual(1600);
      expect(part.from).toBe(OUR_NUMBER);
    }
    // Cut at spaces: put back together with one, they are the reply, in order.
    expect(parts.map((part) => part.body).join(' ')).toBe(long);
    expect(parts[0].body.startsWith('Item-001:')).toBe(true);
    // The conversation keeps the reply whole, as one message.
    expect(reply.content).toBe(long);
  });
});

describe('WhatsApp Cloud API (chatapp)', () => {
  let conn: string;

  beforeAll(async () => {
    conn = await connection(rig.kit, 'chatapp', {
      phone_number_id: PHONE_NUMBER_ID,
      business_account_id: '102290129340398',
      access_token: rig.whatsApp.state.accessToken,
      app_secret: APP_SECRET,
      verify_token: VERIFY_TOKEN,
    });
  });

  it('answers the verification GET with hub.challenge, and 403 to a wrong verify token', async () => {
    const { hookPath } = await agentOn(rig.kit, conn, 'chatapp');
    const query = (token: string) => new URLSearchParams({ 'hub.mode': 'subscribe', 'hub.verify_token': token, 'hub.challenge': '1158201444' }).toString();
    const answered = await request(rig.kit.url).get(`${hookPath}?${query(VERIFY_TOKEN)}`).expect(200);
    expect(answered.text).toBe('1158201444');
    await request(rig.kit.url).get(`${hookPath}?${query('wrong-token')}`).expect(403);
  });

  it('answers a signed text with a typing indicator on it and the reply, then a read status updates the message', async () => {
    const { kit, whatsApp } = rig;
    const { agent, hookPath } = await agentOn(kit, conn, 'chatapp');
    const inboundId = 'wamid.HBgLMzQ2MDAwMDAwMDEVAgASGBQzQUI5';
    // Long enough to type for a moment: the indicator goes out before the reply.
    const answer = 'Yes, we have a free slot on Monday at ten in the morning with Doctor Ruiz.';
    rig.answer('Any slot on Monday?', answer);
    const webhook = signedGraphWebhook(whatsAppTextWebhook({ phoneNumberId: PHONE_NUMBER_ID, from: '34600000001', id: inboundId, text: 'Any slot on Monday?', name: 'Ana' }), APP_SECRET);
    await postHook(kit, hookPath, webhook).expect(200);

    const [sent] = await waitFor(() => whatsApp.state.sent.filter((message) => message.to === '34600000001'), (found) => found.length === 1);
    expect(sent.request).toEqual({ messaging_product: 'whatsapp', recipient_type: 'individual', to: '34600000001', type: 'text', text: { body: answer } });
    const typing = whatsApp.state.typing.find((entry) => entry.messageId === inboundId);
    expect(typing?.request).toEqual({ messaging_product: 'whatsapp', status: 'read', message_id: inboundId, typing_indicator: { type: 'text' } });
    const posts = whatsApp.requests.filter((r) => r.method === 'POST').map((r) => r.body);
    expect(posts.findIndex((body) => body.includes('typing_indicator'))).toBeLessThan(posts.findIndex((body) => body.includes(answer)));

    const { conversation, messages, reply } = await conversationWithReply(kit, agent, 'sent');
    expect(conversation).toMatchObject({ channel: 'chatapp' });
    expect(messages.find((m) => m.sender === 'customer')).toMatchObject({ content: 'Any slot on Monday?' });
    expect(reply.content).toBe(answer);

    const read = whatsAppWebhook({
      phoneNumberId: PHONE_NUMBER_ID,
      statuses: [{ id: sent.id, status: 'read', timestamp: String(Math.floor(Date.now() / 1000)), recipient_id: '34600000001' }],
    });
    await postHook(kit, hookPath, signedGraphWebhook(read, APP_SECRET)).expect(200);
    await waitFor(
      async () => (await messagesOf(kit, conversation.uuid)).find((m) => m.message_uuid === reply.message_uuid),
      (message) => message?.delivery_status === 'read',
    );
  });

  it('refuses a webhook signed with another secret', async () => {
    const { kit, model } = rig;
    const { agent, channel, hookPath } = await agentOn(kit, conn, 'chatapp');
    const calls = model.requests.length;
    const webhook = signedGraphWebhook(whatsAppTextWebhook({ phoneNumberId: PHONE_NUMBER_ID, from: '34600000002', id: 'wamid.forged', text: 'Hi' }), 'another-app-secret');
    await postHook(kit, hookPath, webhook).expect(401);
    await settle(kit);
    expect(await inboundRows(kit, channel)).toBe(0);
    expect(await conversationsOf(kit, agent)).toHaveLength(0);
    expect(model.requests.length).toBe(calls);
  });
});

describe('Messenger (social)', () => {
  it('answers a signed text to the page with a RESPONSE to the sender', async () => {
    const { kit, messenger } = rig;
    const conn = await connection(kit, 'social', { page_id: PAGE_ID, access_token: messenger.state.accessToken, app_secret: APP_SECRET, verify_token: VERIFY_TOKEN });
    const { agent, hookPath } = await agentOn(kit, conn, 'social');
    const psid = '6789012345678901';
    rig.answer('Can I book a cleaning?', 'Thanks for writing, we will book you in.');
    const webhook = signedGraphWebhook(messengerTextWebhook({ pageId: PAGE_ID, psid, mid: 'm_in-messenger-1', text: 'Can I book a cleaning?' }), APP_SECRET);
    await postHook(kit, hookPath, webhook).expect(200);

    const [sent] = await waitFor(() => messenger.state.sent.filter((message) => message.recipientId === psid), (found) => found.length === 1);
    expect(sent.request).toEqual({ recipient: { id: psid }, messaging_type: 'RESPONSE', message: { text: 'Thanks for writing, we will book you in.' } });

    const { conversation, messages, reply } = await conversationWithReply(kit, agent, 'sent');
    expect(conversation).toMatchObject({ channel: 'social' });
    expect(messages.find((m) => m.sender === 'customer')).toMatchObject({ content: 'Can I book a cleaning?' });
    expect(reply.content).toBe('Thanks for writing, we will book you in.');
  });

  it('moves the customer’s sent messages to delivered, then read, by the watermarks of delivery and read events', async () => {
    const { kit, messenger } = rig;
    const conn = await connection(kit, 'social', { page_id: PAGE_ID, access_token: messenger.state.accessToken, app_secret: APP_SECRET, verify_token: VERIFY_TOKEN });
    const { agent, hookPath } = await agentOn(kit, conn, 'social');
    const psid = '6789012345678902';
    const other = '6789012345678903';
    rig.answer('Do you do whitening?', 'Yes, we do whitening on Tuesdays.');
    await postHook(kit, hookPath, signedGraphWebhook(messengerTextWebhook({ pageId: PAGE_ID, psid, mid: 'm_in-watermark-1', text: 'Do you do whitening?' }), APP_SECRET)).expect(200);
    const { conversation, reply } = await conversationWithReply(kit, agent, 'sent');
    const replyOf = async () => (await messagesOf(kit, conversation.uuid)).find((m) => m.message_uuid === reply.message_uuid);
    const event = (sender: string, extra: Record<string, unknown>) => ({ sender: { id: sender }, recipient: { id: PAGE_ID }, timestamp: Date.now(), ...extra });
    const post = (messaging: unknown[]) => postHook(kit, hookPath, signedGraphWebhook({ object: 'page', entry: [{ id: PAGE_ID, time: Date.now(), messaging }] }, APP_SECRET)).expect(200);

    // A watermark from before the reply went out, and one of another customer, cover nothing of it.
    await post([event(psid, { read: { watermark: Date.now() - 60_000 } }), event(other, { read: { watermark: Date.now() } })]);
    await settle(kit);
    expect((await replyOf()).delivery_status).toBe('sent');

    // Older clients send a delivery with no mids: its watermark alone says the reply arrived.
    await post([event(psid, { delivery: { watermark: Date.now() } })]);
    await waitFor(replyOf, (message) => message?.delivery_status === 'delivered');
    await post([event(psid, { read: { watermark: Date.now() } })]);
    await waitFor(replyOf, (message) => message?.delivery_status === 'read');
    // The customer's own message is no delivery of ours.
    expect((await messagesOf(kit, conversation.uuid)).find((m) => m.sender === 'customer').delivery_status).toBeNull();
  });
});

describe('Telegram', () => {
  let conn: string;
  const bot = () => rig.telegram.state.bots[0];

  beforeAll(async () => {
    conn = await connection(rig.kit, 'telegram', { bot_token: bot().token, secret_token: bot().secretToken });
  });

  it('answers an update carrying the secret token with sendMessage to the chat', async () => {
    const { kit, telegram } = rig;
    const { agent, hookPath } = await agentOn(kit, conn, 'chatapp');
    const chat = { id: 424242001, firstName: 'Ana', lastName: 'García' };
    rig.answer('Hello there', 'Hello Ana, how can I help?');
    await postHook(kit, hookPath, telegram.userMessage(chat, telegramContent.text('Hello there'))).expect(200);

    const [call] = await waitFor(() => telegram.state.calls.filter((c) => c.method === 'sendMessage'), (found) => found.length === 1);
    expect(call.botToken).toBe(bot().token);
    // The Bot API takes chat_id as an integer or a string.
    expect(String(call.params.chat_id)).toBe(String(chat.id));
    expect(call.params.text).toBe('Hello Ana, how can I help?');

    const { conversation, messages, reply } = await conversationWithReply(kit, agent, 'sent');
    expect(conversation).toMatchObject({ channel: 'chatapp' });
    expect(messages.find((m) => m.sender === 'customer')).toMatchObject({ content: 'Hello there' });
    expect(reply.content).toBe('Hello Ana, how can I help?');
  });

  it('registers a channel’s hook with setWebhook (url and secret_token), and the updates Telegram then posts there are answered', async () => {
    const { kit, telegram } = rig;
    const { agent, channel, hookPath } = await agentOn(kit, conn, 'chatapp');
    const registered = await kit.api.post(`/api/v1/channel-connections/${conn}/register-webhook`).send({ channel_uuid: channel }).expect(200);
    expect(registered.body.data).toEqual({ connection_uuid: conn, channel_uuid: channel, url: `${kit.url}${hookPath}` });
    const calls = telegram.state.calls.filter((c) => c.method === 'setWebhook' && c.params.url === `${kit.url}${hookPath}`);
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ botToken: bot().token, params: { url: `${kit.url}${hookPath}`, secret_token: bot().secretToken } });
    expect(bot().webhookUrl).toBe(`${kit.url}${hookPath}`);

    // Telegram posting an update to the URL it was given, with the secret it was given.
    rig.answer('Registered hello', 'Hello through the registered hook.');
    const update = telegram.userMessage({ id: 424242003, firstName: 'Cy' }, telegramContent.text('Registered hello'));
    await postHook(kit, new URL(bot().webhookUrl!).pathname, update).expect(200);
    await waitFor(() => telegram.state.calls.filter((c) => c.method === 'sendMessage' && String(c.params.chat_id) === '424242003'), (found) => found.length === 1);
    await conversationWithReply(kit, agent, 'sent');
  });

  it('refuses to register a hook: a channel not on the connection 422, a provider without the call 409, Telegram refusing 422 and failing 502', async () => {
    const { kit, telegram } = rig;
    const { channel } = await agentOn(kit, conn, 'chatapp');
    const otherConn = await connection(kit, 'telegram', { bot_token: bot().token, secret_token: bot().secretToken });
    const { channel: elsewhere } = await agentOn(kit, otherConn, 'chatapp');
    const register = (connectionUuid: string, channelUuid: string) => kit.api.post(`/api/v1/channel-connections/${connectionUuid}/register-webhook`).send({ channel_uuid: channelUuid });

    expect(Object.keys((await register(conn, elsewhere).expect(422)).body.errors)).toEqual(['channel_uuid']);
    expect(Object.keys((await register(conn, '0b5c0f0e-1111-4222-8333-444455556666').expect(422)).body.errors)).toEqual(['channel_uuid']);
    // Another tenant's channel on its own connection to the same bot: not this connection's, and Telegram is not called.
    const tenant = await kit.createTenant();
    const theirs = await agentOn(tenant, await connection(tenant, 'telegram', { bot_token: bot().token, secret_token: bot().secretToken }), 'chatapp');
    const setWebhooks = telegram.state.calls.filter((c) => c.method === 'setWebhook').length;
    expect(Object.keys((await register(conn, theirs.channel).expect(422)).body.errors)).toEqual(['channel_uuid']);
    expect(telegram.state.calls.filter((c) => c.method === 'setWebhook')).toHaveLength(setWebhooks);
    await register('0b5c0f0e-1111-4222-8333-444455556666', channel).expect(404);
    const account = rig.twilio.state.accounts[0];
    const twilioConn = await connection(kit, 'twilio', { account_sid: account.sid, auth_token: account.authToken });
    const { channel: sms } = await agentOn(kit, twilioConn, 'sms');
    expect((await register(twilioConn, sms).expect(409)).body.message).toMatch(/console/);

    telegram.state.failures.push({ on: 'setWebhook', reply: { status: 400, body: { ok: false, error_code: 400, description: 'Bad Request: bad webhook: An HTTPS URL must be provided for webhook' } } });
    const refused = await register(conn, channel).expect(422);
    expect(refused.body.errors.channel_uuid[0]).toMatch(/HTTPS URL must be provided/);
    telegram.state.failures.push({ on: 'setWebhook', reply: { status: 502, body: { ok: false, error_code: 502, description: 'Bad Gateway' } } });
    await register(conn, channel).expect(502);
  });

  it('refuses an update with a wrong secret token (401) and records nothing', async () => {
    const { kit, model, telegram } = rig;
    const { agent, channel, hookPath } = await agentOn(kit, conn, 'chatapp');
    const calls = model.requests.length;
    const sends = telegram.state.calls.filter((c) => c.method === 'sendMessage').length;
    const update = telegram.userMessage({ id: 424242002, firstName: 'Bo' }, telegramContent.text('Hi'));
    await postHook(kit, hookPath, { ...update, headers: { ...update.headers, 'x-telegram-bot-api-secret-token': 'not-the-secret' } }).expect(401);
    const { 'x-telegram-bot-api-secret-token': _omitted, ...unsigned } = update.headers;
    await postHook(kit, hookPath, { ...update, headers: unsigned }).expect(401);
    await settle(kit);
    expect(await inboundRows(kit, channel)).toBe(0);
    expect(await conversationsOf(kit, agent)).toHaveLength(0);
    expect(model.requests.length).toBe(calls);
    expect(telegram.state.calls.filter((c) => c.method === 'sendMessage')).toHaveLength(sends);
  });
});
