import path from 'node:path';
import { startFakeLlmServer, startTestKernel, transactionsOpenLongerThan, waitFor, type FakeLlmRequest, type FakeLlmServer, type TestKernel } from '../../../core/testing';
import { signedGraphWebhook, whatsAppWebhook } from '../channels/drivers/chatapp/graph-webhook';
import { startWhatsAppServer, type WhatsAppServer } from '../channels/drivers/chatapp/whatsapp-server';
import { startTelegramServer, type TelegramServer } from '../channels/drivers/telegram/telegram-server';
import { RUNTIME_PLUGINS, isGuardCheck } from '../runtime/runtime-test-kit';
import { startFakeTranscriptionServer, type FakeTranscriptionServer, type TranscriptionRequest } from '../transcriptions/fake-transcription-server';
import { agentOn, connection, conversationsOf, freePort, messagesOf, postHook } from '../../e2e/channels/providers-kit';
import { startTelegramMediaFront, startWhatsAppMediaFront, voiceNote, type MediaFront } from './voice-note-kit';

/**
 * Voice notes answered by what the customer said: the real channels plugin, its real
 * WhatsApp and Telegram drivers (pointed at the providers' local fakes, with their media
 * downloads played in front of them), the real transcriptions plugin's provider client
 * (pointed at a local OpenAI-shaped server) linked by channels-transcriptions, and a
 * scripted model that answers by the customer's words.
 */

const PLUGINS = [...RUNTIME_PLUGINS, 'channels', 'storage', 'agent-webhooks', 'transcriptions', 'channels-transcriptions'].map((id) => (path.isAbsolute(id) ? id : path.resolve(__dirname, '../../../plugins', id)));
const PHONE_NUMBER_ID = '106540352242922';
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
let speech: FakeTranscriptionServer;
let voice: Buffer;

/** The text of the last customer message the model was given. */
function lastUserText(call: FakeLlmRequest): string {
  const users = (call.body?.messages ?? []).filter((message: any) => message.role === 'user');
  const content = users.at(-1)?.content;
  return typeof content === 'string' ? content : JSON.stringify(content ?? '');
}

const turnCalls = () => model.requests.filter((call) => !isGuardCheck(call));

/** The transcription server hears the voice note only when it gets exactly the bytes the provider served. */
const hears = (text: string) => (request: TranscriptionRequest) =>
  request.file?.bytes.equals(voice) ? { verbose: { text, language: 'english', duration: 3, segments: [{ start: 0, end: 3, text }] } } : { status: 400, message: 'not the voice note the provider served' };


beforeAll(async () => {
  voice = voiceNote(SPOKEN);
  model = await startFakeLlmServer({
    fallback: (call) => {
      if (isGuardCheck(call)) return { json: { rule_uuid: null } };
      const said = lastUserText(call);
      if (said.includes('book a table')) return { content: 'Booked: a table for two tomorrow evening.' };
      if (said.includes('could not be transcribed')) return { content: 'Sorry, I could not listen to that. Could you write it?' };
      return { content: 'Unscripted.' };
    },
  });
  whatsApp = await startWhatsAppServer({ phoneNumberId: PHONE_NUMBER_ID });
  telegram = await startTelegramServer();
  whatsAppMedia = await startWhatsAppMediaFront(whatsApp.url, () => whatsApp.state.accessToken);
  telegramMedia = await startTelegramMediaFront(telegram.url, () => telegram.state.bots[0].token);
  speech = await startFakeTranscriptionServer();
  const port = await freePort();
  kit = await startTestKernel({
    plugins: PLUGINS,
    config: {
      port,
      llmBaseUrl: model.url,
      llmModel: 'test-model',
      llmMaxRetries: 0,
      channels: { chatappApiBaseUrl: `${whatsAppMedia.url}/v21.0`, telegramApiBaseUrl: telegramMedia.url, publicBaseUrl: `http://127.0.0.1:${port}`, sendBackoffMs: 50, audioAttempts: 3, audioBackoffMs: 20 },
      transcriptions: { baseUrl: speech.url, apiKey: speech.apiKey },
    },
  });
});
afterAll(async () => {
  await kit?.stop();
  await Promise.all([model?.close(), whatsApp?.close(), telegram?.close(), whatsAppMedia?.close(), telegramMedia?.close(), speech?.close()]);
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
