import path from 'node:path';
import { startFakeLlmServer, startTestKernel, transactionsOpenLongerThan, waitFor, type FakeLlmRequest, type FakeLlmServer, type TestKernel } from '../../../core/testing';
import { messengerWebhook, signedGraphWebhook, whatsAppWebhook } from '../channels/drivers/chatapp/graph-webhook';
import { startWhatsAppServer, type WhatsAppServer } from '../channels/drivers/chatapp/whatsapp-server';
import { startMessengerServer, type MessengerServer } from '../channels/drivers/social/messenger-server';
import { startTelegramServer, type TelegramServer } from '../channels/drivers/telegram/telegram-server';
import { inboundSmsParams, newSid, signedTwilioHook, startTwilioServer, type TwilioServer } from '../channels/drivers/twilio/twilio-server';
import { RUNTIME_PLUGINS, isGuardCheck } from '../runtime/runtime-test-kit';
import { startFakeTranscriptionServer, type FakeTranscriptionServer, type TranscriptionRequest } from '../transcriptions/fake-transcription-server';
import { agentOn, connection, conversationsOf, freePort, messagesOf, postHook } from '../../e2e/channels/providers-kit';
import { startMediaStore, startTelegramMediaFront, startTwilioMediaFront, startWhatsAppMediaFront, voiceClip, voiceNote, type MediaFront, type MediaStore } from './voice-note-kit';

/**
 * Voice notes answered by what the customer said: the real channels plugin, its real
 * WhatsApp, Telegram, Twilio and Messenger drivers (pointed at the providers' local fakes, with their media
 * downloads played in front of them), the real transcriptions plugin's provider client
 * (pointed at a local OpenAI-shaped server) linked by channels-transcriptions, and a
 * scripted model that answers by the customer's words.
 */

const PLUGINS = [...RUNTIME_PLUGINS, 'channels', 'storage', 'agent-webhooks', 'transcriptions', 'channels-transcriptions'].map((id) => (path.isAbsolute(id) ? id : path.resolve(__dirname, '../../../plugins', id)));
const PHONE_NUMBER_ID = '106540352242922';
const PAGE_ID = '1234567890123456';
const OUR_NUMBER = '+15550001111';
const APP_SECRET = 'voice-graph-app-secret';
const VERIFY_TOKEN = 'voice-verify-token';
const SPOKEN = 'I would like to book a table for two tomorrow evening.';
const UNHEARD = '[The customer sent a voice message that could not be transcribed.]';

let kit: TestKernel;
let model: FakeLlmServer;
let whatsApp: WhatsAppServer;
let telegram: TelegramServer;
let whatsAppMedia: MediaFront;
let telegramMedia: MediaFront;
let twilio: TwilioServer;
let twilioMedia: MediaFront;
let twilioStore: MediaStore;
let messenger: MessengerServer;
let metaCdn: MediaStore;
let speech: FakeTranscriptionServer;
let voice: Buffer;
/** A Messenger voice clip (AAC in MP4): other bytes than the voice note's. */
let clip: Buffer;

/** The text of the last customer message the model was given. */
function lastUserText(call: FakeLlmRequest): string {
  const users = (call.body?.messages ?? []).filter((message: any) => message.role === 'user');
  const content = users.at(-1)?.content;
  return typeof content === 'string' ? content : JSON.stringify(content ?? '');
}

const turnCalls = () => model.requests.filter((call) => !isGuardCheck(call));

/** The transcription server hears the voice note only when it gets exactly the bytes the provider served (`served`, the voice note unless told). */
const hears = (text: string, served?: Buffer) => (request: TranscriptionRequest) =>
  request.file?.bytes.equals(served ?? voice) ? { verbose: { text, language: 'english', duration: 3, segments: [{ start: 0, end: 3, text }] } } : { status: 400, message: 'not the voice note the provider served' };


beforeAll(async () => {
  voice = voiceNote(SPOKEN);
  clip = voiceClip(SPOKEN);
  model = await startFakeLlmServer({
    fallback: (call) => {
      if (isGuardCheck(call)) return { json: { rule_uuid: null } };
      const said = lastUserText(call);
      if (said.includes('book a table')) return { content: 'Booked: a table for two tomorrow evening.' };
      if (said.includes('by the window')) return { content: 'Window seat noted.' };
      if (said.includes('could not be transcribed')) return { content: 'Sorry, I could not listen to that. Could you write it?' };
      return { content: 'Unscripted.' };
    },
  });
  whatsApp = await startWhatsAppServer({ phoneNumberId: PHONE_NUMBER_ID });
  telegram = await startTelegramServer();
  whatsAppMedia = await startWhatsAppMediaFront(whatsApp.url, () => whatsApp.state.accessToken);
  telegramMedia = await startTelegramMediaFront(telegram.url, () => telegram.state.bots[0].token);
  twilio = await startTwilioServer({ accounts: [{ numbers: [OUR_NUMBER] }] });
  twilioStore = await startMediaStore('s3');
  twilioMedia = await startTwilioMediaFront(twilio.url, () => twilio.state.accounts[0], twilioStore);
  messenger = await startMessengerServer({ pageId: PAGE_ID });
  metaCdn = await startMediaStore('cdn');
  speech = await startFakeTranscriptionServer();
  const port = await freePort();
  kit = await startTestKernel({
    plugins: PLUGINS,
    config: {
      port,
      llmBaseUrl: model.url,
      llmModel: 'test-model',
      llmMaxRetries: 0,
      channels: {
        chatappApiBaseUrl: `${whatsAppMedia.url}/v21.0`,
        telegramApiBaseUrl: telegramMedia.url,
        twilioApiBaseUrl: twilioMedia.url,
        socialApiBaseUrl: messenger.apiBaseUrl,
        publicBaseUrl: `http://127.0.0.1:${port}`,
        sendBackoffMs: 50,
        audioAttempts: 3,
        audioBackoffMs: 20,
      },
      transcriptions: { baseUrl: speech.url, apiKey: speech.apiKey },
    },
  });
});
afterAll(async () => {
  await kit?.stop();
  await Promise.all(
    [model, whatsApp, telegram, whatsAppMedia, telegramMedia, twilio, twilioMedia, twilioStore, messenger, metaCdn, speech].map((server) => server?.close()),
  );
});

/** The agent's one conversation once the agent's reply is recorded, with its messages. */
async function answered(agent: string): Promise<any[]> {
  return waitFor(
    async () => {
      const [conversation] = await conversationsOf(kit, agent);
      return conversation ? messagesOf(kit, conversation.uuid) : [];
    },
    (messages) => messages.some((m) => m.sender === 'agent' && m.message_type === 'text'),
  );
}

describe('a WhatsApp voice note', () => {
  let conn: string;
  let nextMedia = 1;
  const voiceWebhook = (from: string, mediaId: string) =>
    signedGraphWebhook(
      whatsAppWebhook({
        phoneNumberId: PHONE_NUMBER_ID,
        contacts: [{ wa_id: from, profile: { name: 'Vera' } }],
        messages: [{ from, id: `wamid.voice${Date.now()}${nextMedia}`, timestamp: String(Math.floor(Date.now() / 1000)), type: 'audio', audio: { id: mediaId, mime_type: 'audio/ogg; codecs=opus', voice: true } }],
      }),
      APP_SECRET,
    );

  beforeAll(async () => {
    conn = await connection(kit, 'chatapp', {
      phone_number_id: PHONE_NUMBER_ID,
      business_account_id: whatsApp.state.wabaId,
      access_token: whatsApp.state.accessToken,
      app_secret: APP_SECRET,
      verify_token: VERIFY_TOKEN,
    });
  });

  it('is fetched from the Cloud API with the token, transcribed, and answered by what was said', async () => {
    const { agent, hookPath } = await agentOn(kit, conn, 'chatapp');
    const mediaId = `media-${nextMedia++}`;
    whatsAppMedia.media.set(mediaId, { bytes: voice, mimeType: 'audio/ogg' });
    speech.script(hears(SPOKEN));
    const transcriptionsBefore = speech.requests.length;
    await postHook(kit, hookPath, voiceWebhook('34600111222', mediaId)).expect(200);

    const [sent] = await waitFor(() => whatsApp.state.sent.filter((message) => message.to === '34600111222'), (found) => found.length === 1);
    expect(sent.body).toBe('Booked: a table for two tomorrow evening.');
    // Meta's two steps, each with the bearer token: the media node, then its URL.
    const fetched = whatsAppMedia.fetches.filter((fetch) => fetch.path.includes(mediaId));
    expect(fetched.map((fetch) => fetch.path)).toEqual([`/v21.0/${mediaId}`, `/whatsapp-media/${mediaId}`]);
    expect(fetched.every((fetch) => fetch.authorization === `Bearer ${whatsApp.state.accessToken}`)).toBe(true);
    // One transcription, of the bytes the provider served, with the plugin's key and model.
    expect(speech.requests.length).toBe(transcriptionsBefore + 1);
    expect(speech.requests.at(-1)!.authorization).toBe(`Bearer ${speech.apiKey}`);
    // The model was given the transcript as the customer's message.
    const turn = turnCalls().find((call) => lastUserText(call).includes('book a table'))!;
    expect(lastUserText(turn)).toBe(SPOKEN);

    const messages = await answered(agent);
    const customer = messages.filter((m) => m.sender === 'customer');
    // One customer message: the voice note, recorded as audio with the words the agent answered.
    expect(customer).toHaveLength(1);
    expect(customer[0]).toMatchObject({ content: SPOKEN, message_type: 'audio' });
    expect(messages.find((m) => m.sender === 'agent')).toMatchObject({ content: 'Booked: a table for two tomorrow evening.' });
  });

  it('is answered before a text its sender wrote just after it, while another customer is not held', async () => {
    const { agent, hookPath } = await agentOn(kit, conn, 'chatapp');
    const mediaId = `media-${nextMedia++}`;
    whatsAppMedia.media.set(mediaId, { bytes: voice, mimeType: 'audio/ogg' });
    // The transcription takes its time: the text behind the voice note arrives and waits meanwhile.
    speech.script((request) => new Promise((resolve) => setTimeout(() => resolve(hears(SPOKEN)(request)), 3000)));
    const from = '34600111666';
    const someoneElse = '34600111667';
    await postHook(kit, hookPath, voiceWebhook(from, mediaId)).expect(200);
    const text = (sender: string, id: string) =>
      signedGraphWebhook(
        whatsAppWebhook({
          phoneNumberId: PHONE_NUMBER_ID,
          contacts: [{ wa_id: sender, profile: { name: 'Vera' } }],
          messages: [{ from: sender, id, timestamp: String(Math.floor(Date.now() / 1000)), type: 'text', text: { body: 'Also, can we sit by the window?' } }],
        }),
        APP_SECRET,
      );
    await postHook(kit, hookPath, text(from, `wamid.text${Date.now()}a`)).expect(200);
    await postHook(kit, hookPath, text(someoneElse, `wamid.text${Date.now()}b`)).expect(200);

    // The other customer's thread has no voice note before its text: answered at once, while the note is still being transcribed.
    const [other] = await waitFor(() => whatsApp.state.sent.filter((message) => message.to === someoneElse), (found) => found.length === 1);
    expect(other.body).toBe('Window seat noted.');
    expect(whatsApp.state.sent.filter((message) => message.to === from)).toEqual([]);

    const sent = await waitFor(() => whatsApp.state.sent.filter((message) => message.to === from), (found) => found.length === 2);
    // Both answered (each reply then goes out as its own pacing says: a short one may overtake a long one).
    expect(sent.map((message) => message.body).sort()).toEqual(['Booked: a table for two tomorrow evening.', 'Window seat noted.']);
    // The text's turn came after the voice note's, with its answer in the history the model was given.
    const windowTurns = turnCalls().filter((call) => lastUserText(call) === 'Also, can we sit by the window?');
    const ownWindowTurn = windowTurns.find((call) => (call.body?.messages ?? []).some((message: any) => message.role === 'user' && message.content === SPOKEN));
    expect(ownWindowTurn).toBeDefined();
    expect(ownWindowTurn!.body.messages.map((message: any) => [message.role, message.content]).filter(([role]: string[]) => role !== 'system')).toEqual([
      ['user', SPOKEN],
      ['assistant', 'Booked: a table for two tomorrow evening.'],
      ['user', 'Also, can we sit by the window?'],
    ]);
    // The voice note's conversation holds both, in the order they came, each followed by its answer.
    const thread = await waitFor(
      async () => {
        for (const conversation of await conversationsOf(kit, agent)) {
          const messages = await messagesOf(kit, conversation.uuid);
          if (messages.some((m) => m.message_type === 'audio')) return messages;
        }
        return [];
      },
      (messages) => messages.filter((m) => m.sender === 'agent').length === 2,
    );
    expect(thread.map((m) => [m.sender, m.message_type, m.content])).toEqual([
      ['customer', 'audio', SPOKEN],
      ['agent', 'text', 'Booked: a table for two tomorrow evening.'],
      ['customer', 'text', 'Also, can we sit by the window?'],
      ['agent', 'text', 'Window seat noted.'],
    ]);
  });

  it('tries again when the transcription server fails for a moment', async () => {
    const { hookPath } = await agentOn(kit, conn, 'chatapp');
    const mediaId = `media-${nextMedia++}`;
    whatsAppMedia.media.set(mediaId, { bytes: voice, mimeType: 'audio/ogg' });
    speech.script({ status: 503, message: 'overloaded' }, hears(SPOKEN));
    await postHook(kit, hookPath, voiceWebhook('34600111333', mediaId)).expect(200);
    const [sent] = await waitFor(() => whatsApp.state.sent.filter((message) => message.to === '34600111333'), (found) => found.length === 1);
    expect(sent.body).toBe('Booked: a table for two tomorrow evening.');
    // The media was fetched again for the second try (its URL lasts 5 minutes).
    expect(whatsAppMedia.fetches.filter((fetch) => fetch.path === `/v21.0/${mediaId}`)).toHaveLength(2);
  });

  it('answers a placeholder when the Cloud API cannot give the media, and keeps the audio on record', async () => {
    const { agent, hookPath } = await agentOn(kit, conn, 'chatapp');
    const transcriptionsBefore = speech.requests.length;
    // Never stored on the fake: Graph answers 400 "does not exist", which no retry changes.
    await postHook(kit, hookPath, voiceWebhook('34600111444', 'media-gone')).expect(200);
    const [sent] = await waitFor(() => whatsApp.state.sent.filter((message) => message.to === '34600111444'), (found) => found.length === 1);
    expect(sent.body).toBe('Sorry, I could not listen to that. Could you write it?');
    expect(speech.requests.length).toBe(transcriptionsBefore);
    const turn = turnCalls().find((call) => lastUserText(call) === UNHEARD);
    expect(turn).toBeDefined();

    const messages = await answered(agent);
    expect(messages.map((m) => [m.sender, m.message_type, m.content])).toEqual([
      ['customer', 'audio', 'media-gone'],
      ['customer', 'text', UNHEARD],
      ['agent', 'text', 'Sorry, I could not listen to that. Could you write it?'],
    ]);
  });

  it('falls back to the placeholder once the media download keeps failing', async () => {
    const { hookPath } = await agentOn(kit, conn, 'chatapp');
    const mediaId = `media-${nextMedia++}`;
    whatsAppMedia.media.set(mediaId, { bytes: voice, mimeType: 'audio/ogg' });
    const before = whatsAppMedia.fetches.length;
    // A 500 on each of the three tries (CHANNELS_AUDIO_ATTEMPTS here).
    whatsAppMedia.failures.push(500, 500, 500);
    await postHook(kit, hookPath, voiceWebhook('34600111555', mediaId)).expect(200);
    const [sent] = await waitFor(() => whatsApp.state.sent.filter((message) => message.to === '34600111555'), (found) => found.length === 1);
    expect(sent.body).toBe('Sorry, I could not listen to that. Could you write it?');
    expect(whatsAppMedia.fetches.length - before).toBe(3);
  });
});

describe('a Telegram voice message', () => {
  it('is fetched with getFile and the file path, transcribed, and answered by what was said', async () => {
    const bot = telegram.state.bots[0];
    const conn = await connection(kit, 'telegram', { bot_token: bot.token, secret_token: bot.secretToken });
    const { agent, hookPath } = await agentOn(kit, conn, 'chatapp');
    const fileId = `AwACAgQAAx${Date.now()}`;
    telegramMedia.media.set(fileId, { bytes: voice, mimeType: 'audio/ogg' });
    // The server takes its time: no transaction may stay open while the bus waits for it.
    speech.script((request) => new Promise((resolve) => setTimeout(() => resolve(hears(SPOKEN)(request)), 1500)));
    const transcriptionsBefore = speech.requests.length;
    const chat = { id: 515151001, firstName: 'Tom' };
    const hook = telegram.userMessage(chat, { voice: { file_id: fileId, file_unique_id: fileId.slice(0, 12), duration: 3, mime_type: 'audio/ogg', file_size: voice.length } });
    await postHook(kit, hookPath, hook).expect(200);
    await waitFor(async () => speech.requests.length, (count) => count > transcriptionsBefore);
    expect(await transactionsOpenLongerThan(kit, 300, { samples: 4 })).toEqual([]);

    const [call] = await waitFor(() => telegram.state.calls.filter((c) => c.method === 'sendMessage' && String(c.params.chat_id) === String(chat.id)), (found) => found.length === 1);
    expect(call.params.text).toBe('Booked: a table for two tomorrow evening.');
    expect(telegramMedia.fetches.map((fetch) => fetch.path)).toEqual([`/bot${bot.token}/getFile`, `/file/bot${bot.token}/voice/${fileId}.oga`]);
    expect(lastUserText(turnCalls().at(-1)!)).toBe(SPOKEN);
    const customer = (await answered(agent)).filter((m) => m.sender === 'customer');
    expect(customer.map((m) => [m.message_type, m.content])).toEqual([['audio', SPOKEN]]);
  });
});

describe('a Twilio MMS voice note', () => {
  let conn: string;
  const account = () => twilio.state.accounts[0];
  const basic = () => `Basic ${Buffer.from(`${account().sid}:${account().authToken}`).toString('base64')}`;
  /** Twilio's media URL of an MMS on the Twilio API's origin (the configured one unless told). */
  const mediaUrl = (messageSid: string, mediaSid: string, origin = twilioMedia.url) => `${origin}/2010-04-01/Accounts/${account().sid}/Messages/${messageSid}/Media/${mediaSid}`;
  /** An inbound MMS with one audio medium and no text, signed over the hook's public URL as Twilio signs it. */
  const mms = (hookPath: string, from: string, messageSid: string, url: string) =>
    signedTwilioHook(`${kit.url}${hookPath}`, inboundSmsParams({ accountSid: account().sid, from, to: OUR_NUMBER, body: '', messageSid, media: [{ url, contentType: 'audio/ogg' }] }), account().authToken);
  const smsTo = (customer: string) => twilio.state.messages.filter((message) => message.to === customer);

  beforeAll(async () => {
    conn = await connection(kit, 'twilio', { account_sid: account().sid, auth_token: account().authToken });
  });

  it('the local Twilio refuses the media without the account’s Basic credentials', async () => {
    const messageSid = newSid('MM');
    const mediaSid = newSid('ME');
    twilioMedia.media.set(mediaSid, { bytes: voice, mimeType: 'audio/ogg' });
    const url = mediaUrl(messageSid, mediaSid);
    expect((await fetch(url, { redirect: 'manual' })).status).toBe(401);
    const wrong = `Basic ${Buffer.from(`${account().sid}:not-the-token`).toString('base64')}`;
    expect((await fetch(url, { redirect: 'manual', headers: { authorization: wrong } })).status).toBe(401);
    const good = await fetch(url, { redirect: 'manual', headers: { authorization: basic() } });
    expect(good.status).toBe(307);
    // The media store takes its signed link alone: with the credentials too it refuses, as S3 does.
    const location = good.headers.get('location')!;
    expect((await fetch(location, { headers: { authorization: basic() } })).status).toBe(400);
    expect(Buffer.from(await (await fetch(location)).arrayBuffer()).equals(voice)).toBe(true);
  });

  it('is fetched with Basic auth from the Twilio API, through its media store without it, transcribed, and answered by SMS', async () => {
    const { agent, hookPath } = await agentOn(kit, conn, 'sms');
    const customer = '+14155550177';
    const messageSid = newSid('MM');
    const mediaSid = newSid('ME');
    twilioMedia.media.set(mediaSid, { bytes: voice, mimeType: 'audio/ogg' });
    speech.script(hears(SPOKEN));
    const transcriptionsBefore = speech.requests.length;
    await postHook(kit, hookPath, mms(hookPath, customer, messageSid, mediaUrl(messageSid, mediaSid))).expect(200);

    const [sms] = await waitFor(() => smsTo(customer), (found) => found.length === 1);
    expect(sms).toMatchObject({ from: OUR_NUMBER, body: 'Booked: a table for two tomorrow evening.' });
    // The media URL with the account's credentials, then the store's signed link without them.
    expect(twilioMedia.fetches.filter((fetch) => fetch.path.endsWith(mediaSid))).toEqual([
      { path: `/2010-04-01/Accounts/${account().sid}/Messages/${messageSid}/Media/${mediaSid}`, authorization: basic() },
    ]);
    expect(twilioStore.fetches.filter((fetch) => fetch.path === `/media/${mediaSid}`).map((fetch) => fetch.authorization)).toEqual([undefined]);
    expect(speech.requests.length).toBe(transcriptionsBefore + 1);
    expect(lastUserText(turnCalls().at(-1)!)).toBe(SPOKEN);

    const customerMessages = (await answered(agent)).filter((m) => m.sender === 'customer');
    expect(customerMessages.map((m) => [m.message_type, m.content])).toEqual([['audio', SPOKEN]]);
  });

  it('sends the credentials to no other origin: a media URL elsewhere is fetched without them', async () => {
    const { hookPath } = await agentOn(kit, conn, 'sms');
    const customer = '+14155550178';
    const key = newSid('ME');
    // A URL on the media store's origin, not the Twilio API's: what a forged MediaUrl would name.
    twilioStore.media.set(key, { bytes: voice, mimeType: 'audio/ogg' });
    const elsewhere = twilioStore.signed(key);
    speech.script(hears(SPOKEN));
    await postHook(kit, hookPath, mms(hookPath, customer, newSid('MM'), elsewhere)).expect(200);
    // Answered by what was said: the store, which refuses any Authorization, served the bytes.
    const [sms] = await waitFor(() => smsTo(customer), (found) => found.length === 1);
    expect(sms.body).toBe('Booked: a table for two tomorrow evening.');
    const fetched = twilioStore.fetches.filter((fetch) => fetch.path === `/media/${key}`);
    expect(fetched.map((fetch) => fetch.authorization)).toEqual([undefined]);
  });
});

describe('a Messenger audio attachment', () => {
  it('is fetched from its CDN link without the page token, transcribed, and answered on Messenger', async () => {
    const conn = await connection(kit, 'social', { page_id: PAGE_ID, access_token: messenger.state.accessToken, app_secret: APP_SECRET, verify_token: VERIFY_TOKEN });
    const { agent, hookPath } = await agentOn(kit, conn, 'social');
    const psid = '6789012345670042';
    const key = `${Date.now()}_audioclip`;
    metaCdn.media.set(key, { bytes: clip, mimeType: 'audio/mp4' });
    speech.script(hears(SPOKEN, clip));
    const transcriptionsBefore = speech.requests.length;
    const webhook = messengerWebhook({
      pageId: PAGE_ID,
      messaging: [{ sender: { id: psid }, recipient: { id: PAGE_ID }, timestamp: Date.now(), message: { mid: `m_voice-${key}`, attachments: [{ type: 'audio', payload: { url: metaCdn.signed(key) } }] } }],
    });
    await postHook(kit, hookPath, signedGraphWebhook(webhook, APP_SECRET)).expect(200);

    const [sent] = await waitFor(() => messenger.state.sent.filter((message) => message.recipientId === psid), (found) => found.length === 1);
    expect(sent.request).toEqual({ recipient: { id: psid }, messaging_type: 'RESPONSE', message: { text: 'Booked: a table for two tomorrow evening.' } });
    // The CDN link as the webhook gave it, with neither the token's header nor its parameter.
    const fetched = metaCdn.fetches.filter((fetch) => fetch.path.includes(key));
    expect(fetched).toHaveLength(1);
    expect(fetched[0].authorization).toBeUndefined();
    expect(fetched[0].query).not.toContain('access_token');
    expect(speech.requests.length).toBe(transcriptionsBefore + 1);
    expect(lastUserText(turnCalls().at(-1)!)).toBe(SPOKEN);

    const customerMessages = (await answered(agent)).filter((m) => m.sender === 'customer');
    expect(customerMessages.map((m) => [m.message_type, m.content])).toEqual([['audio', SPOKEN]]);
  });
});
