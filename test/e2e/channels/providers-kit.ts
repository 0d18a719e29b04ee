import net from 'node:net';
import path from 'node:path';
import request from 'supertest';
import { startFakeLlmServer, startTestKernel, waitFor, type FakeLlmRequest, type FakeLlmServer, type TestKernel } from '../../../core/testing';
import { RUNTIME_PLUGINS, activeAgent, isGuardCheck } from '../../plugins/runtime/runtime-test-kit';
import { startWhatsAppServer, type WhatsAppServer } from '../../plugins/channels/drivers/chatapp/whatsapp-server';
import { startMessengerServer, type MessengerServer } from '../../plugins/channels/drivers/social/messenger-server';
import { startTelegramServer, type TelegramServer } from '../../plugins/channels/drivers/telegram/telegram-server';
import { startTwilioServer, type TwilioServer } from '../../plugins/channels/drivers/twilio/twilio-server';

/**
 * The end-to-end rig of the channels plugin with its built-in drivers: a kernel with the
 * runtime and the channels plugin, a scripted model, and the four providers' local fakes
 * the plugin is pointed at through its own config. Nothing of the plugin is replaced.
 */

const CHANNELS = path.resolve(__dirname, '../../../plugins/channels');

/** Our Twilio number: customers write to it, replies come from it. */
export const OUR_NUMBER = '+15550001111';
/** The secrets of the Graph app (WhatsApp and Messenger webhooks) as the connections hold them. */
export const APP_SECRET = 'e2e-graph-app-secret';
export const VERIFY_TOKEN = 'e2e-verify-token';
export const PHONE_NUMBER_ID = '106540352242922';
export const PAGE_ID = '1234567890123456';

/** Replies go out as soon as the turn answers: no reading pause or jitter (typing still shown where the driver can). */
const UNPACED = {
  text: {
    timing_and_delay: { base_delay: 0, pause_before_reply: 0, typing_speed_wpm_min: 1000, typing_speed_wpm_max: 1000, delay_jitter_min: 0, delay_jitter_max: 0 },
  },
};

export interface ProvidersRig {
  kit: TestKernel;
  model: FakeLlmServer;
  twilio: TwilioServer;
  whatsApp: WhatsAppServer;
  messenger: MessengerServer;
  telegram: TelegramServer;
  /** The model answers a turn whose customer message holds `question` with `reply`. */
  answer(question: string, reply: string): void;
  stop(): Promise<void>;
}

const UNSCRIPTED = 'No answer was scripted for this message.';

/** The text of the last customer message the model was given. */
function lastUserText(call: FakeLlmRequest): string {
  const users = (call.body?.messages ?? []).filter((message: any) => message.role === 'user');
  const content = users.at(-1)?.content;
  return typeof content === 'string' ? content : JSON.stringify(content ?? '');
}

/**
 * A port free a moment ago: PUBLIC_BASE_URL must name the server before it boots (hook
 * URLs, and the URL Twilio's signature covers, are built from it).
 */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** `plugins`: more plugins beside the runtime and channels (outreach and channels-outreach, for send_message campaigns). */
export async function startProvidersRig(options: { plugins?: string[] } = {}): Promise<ProvidersRig> {
  // Answers by what was asked, not in queue order: a test that fails leaves nothing queued for the next.
  const answers = new Map<string, string>();
  const model = await startFakeLlmServer({
    fallback: (call) => {
      if (isGuardCheck(call)) return { json: { rule_uuid: null } };
      const text = lastUserText(call);
      const question = [...answers.keys()].find((candidate) => text.includes(candidate));
      return { content: question ? answers.get(question)! : UNSCRIPTED };
    },
  });
  const twilio = await startTwilioServer({ accounts: [{ numbers: [OUR_NUMBER] }] });
  const whatsApp = await startWhatsAppServer({ phoneNumberId: PHONE_NUMBER_ID, displayPhoneNumber: OUR_NUMBER.slice(1) });
  const messenger = await startMessengerServer({ pageId: PAGE_ID });
  const telegram = await startTelegramServer();
  const port = await freePort();
  const kit = await startTestKernel({
    plugins: [...RUNTIME_PLUGINS, CHANNELS, ...(options.plugins ?? [])],
    config: {
      port,
      llmBaseUrl: model.url,
      llmModel: 'test-model',
      llmMaxRetries: 0,
      channels: {
        twilioApiBaseUrl: twilio.url,
        chatappApiBaseUrl: whatsApp.apiBaseUrl,
        socialApiBaseUrl: messenger.apiBaseUrl,
        telegramApiBaseUrl: telegram.url,
        publicBaseUrl: `http://127.0.0.1:${port}`,
        sendBackoffMs: 50,
      },
    },
  });
  return {
    kit,
    model,
    twilio,
    whatsApp,
    messenger,
    telegram,
    answer: (question, reply) => void answers.set(question, reply),
    stop: async () => {
      await kit.stop();
      await Promise.all([model.close(), twilio.close(), whatsApp.close(), messenger.close(), telegram.close()]);
    },
  };
}

/** A connection made over the API (the driver checks the credentials against the fake first). */
export async function connection(kit: Pick<TestKernel, 'api'>, provider: string, credentials: Record<string, unknown>): Promise<string> {
  const created = await kit.api.post('/api/v1/channel-connections').send({ provider, label: `${provider} e2e`, credentials });
  expect(created.status).toBe(201);
  return created.body.data.uuid;
}

/** A new active agent with one channel of `type` on the connection. */
export async function agentOn(kit: Pick<TestKernel, 'api'>, connectionUuid: string, type: 'sms' | 'chatapp' | 'social'): Promise<{ agent: string; channel: string; hookPath: string }> {
  const agent = await activeAgent(kit.api, { settings: UNPACED });
  const added = await kit.api.post(`/api/v1/agents/${agent}/channels`).send({ type, name: `${type} line`, config: { connection_uuid: connectionUuid } });
  expect([200, 201]).toContain(added.status);
  const channel = (added.body.data.channels ?? [added.body.data]).find((c: any) => c.type === type).uuid as string;
  return { agent, channel, hookPath: `/hooks/channels/${channel}` };
}

/** Posts what a provider would: the exact bytes, with its headers. `target` is a path or a full URL of the kernel. */
export function postHook(kit: TestKernel, target: string, hook: { headers: Record<string, string>; body: string }) {
  const url = new URL(target, kit.url);
  let call = request(kit.url).post(url.pathname + url.search);
  for (const [name, value] of Object.entries(hook.headers)) call = call.set(name, value);
  return call.send(hook.body);
}

/** The model's calls that were turns (not guard checks). */
export const turnCalls = (model: FakeLlmServer) => model.requests.filter((call) => !isGuardCheck(call));

/**
 * Waits until work that should not happen would have shown (a turn, a send): turns and sends are
 * bus consumers, and on the in-process bus a message leaves the outbox only once handled, so no
 * row due (within a second: a send's backoff) means everything that was coming has come.
 */
export async function settle(kit: TestKernel): Promise<void> {
  await waitFor(
    async () => (await kit.kernel.orm.em.fork().getConnection().execute(`select count(*)::int as n from bus_outbox where due_at <= now() + interval '1 second'`))[0].n as number,
    (n) => n === 0,
  );
}

export async function conversationsOf(kit: TestKernel, agent: string): Promise<any[]> {
  return (await kit.api.get(`/api/v1/conversations?agent_uuid=${agent}`).expect(200)).body.data.items;
}

export async function messagesOf(kit: TestKernel, conversation: string): Promise<any[]> {
  return (await kit.api.get(`/api/v1/conversations/${conversation}/messages?per_page=100`).expect(200)).body.data.items;
}

/** The agent's one conversation once its reply is recorded with `status`, and that conversation's messages. */
export async function conversationWithReply(kit: TestKernel, agent: string, status: string): Promise<{ conversation: any; messages: any[]; reply: any }> {
  return waitFor(
    async () => {
      const [conversation] = await conversationsOf(kit, agent);
      const messages = conversation ? await messagesOf(kit, conversation.uuid) : [];
      const reply = messages.find((m) => m.sender === 'agent' && m.message_type === 'text' && m.delivery_status === status);
      return { conversation, messages, reply };
    },
    (found) => found.reply !== undefined,
  );
}

/** Rows the hook recorded for a channel (the replay-protection table): none when a request was refused. */
export async function inboundRows(kit: TestKernel, channel: string): Promise<number> {
  const rows = await kit.kernel.orm.em.fork().getConnection().execute(`select count(*)::int as n from channel_inbound_messages where channel_uuid = ?`, [channel]);
  return rows[0].n;
}
