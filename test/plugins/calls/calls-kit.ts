import net from 'node:net';
import path from 'node:path';
import request from 'supertest';
import { startFakeLlmServer, startTestKernel, type ApiClient, type FakeLlmRequest, type FakeLlmServer, type TestKernel, type TestKernelOptions } from '../../../core/testing';
import { RUNTIME_PLUGINS, activeAgent } from '../runtime/runtime-test-kit';
import { startTwilioVoiceServer, type TwilioVoiceServer } from './twilio-voice-server';

export const CALLS_PLUGINS = [...RUNTIME_PLUGINS, ...['channels', 'storage', 'telephony', 'calls'].map((id) => path.resolve(__dirname, '../../../plugins', id))];

let agentNumbers = 4155550100;
/** A new number for each agent (a number belongs to one agent of a tenant); the fake account takes any as its own. */
const agentNumber = () => `+1${agentNumbers++}`;

export interface CallsKit {
  kit: TestKernel;
  model: FakeLlmServer;
  twilio: TwilioVoiceServer;
  stop(): Promise<void>;
}

const lastUserMessage = (request: FakeLlmRequest): string =>
  [...request.body.messages].reverse().find((message: { role: string }) => message.role === 'user')?.content ?? '';

/** What a test adds to the kit's kernel: more plugin folders, and config merged over the kit's (its `channels` member too). */
export interface CallsKitExtras {
  plugins?: NonNullable<TestKernelOptions['plugins']>;
  config?: Record<string, unknown> & { channels?: Record<string, unknown> };
}

/** A kernel with the calls plugin, a Twilio-shaped server, and a model that echoes: `You said: <what the caller said>`. */
export async function startCallsKit(extras: CallsKitExtras = {}): Promise<CallsKit> {
  const model = await startFakeLlmServer({ fallback: (req: FakeLlmRequest) => ({ content: `You said: ${lastUserMessage(req)}` }) });
  const twilio = await startTwilioVoiceServer({ accounts: [{ numbers: [] }] });
  // The provider calls back at PUBLIC_BASE_URL (a tenant's Host, `acme.localhost`, names no reachable server): the port is chosen first.
  const port = await freePort();
  const { channels, ...config } = extras.config ?? {};
  const kit = await startTestKernel({
    plugins: [...CALLS_PLUGINS, ...(extras.plugins ?? [])],
    config: {
      port,
      llmBaseUrl: model.url,
      llmModel: 'test-model',
      llmMaxRetries: 0,
      ...config,
      channels: { twilioApiBaseUrl: twilio.url, publicBaseUrl: `http://127.0.0.1:${port}`, ...channels },
    },
  });
  return {
    kit,
    model,
    twilio,
    async stop() {
      await kit.stop();
      await model.close();
      await twilio.close();
    },
  };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

/** An active agent with `settings.voice` (merged), a number that calls, and a `phone` channel on a Twilio connection of the fake account. */
export async function callingAgent(kit: CallsKit, voice: Record<string, unknown> = {}, api: ApiClient = kit.kit.api): Promise<{ agent: string; channel: string; connection: string; number: string }> {
  const number = agentNumber();
  const connection = (
    await api
      .post('/api/v1/channel-connections')
      .send({ provider: 'twilio', label: 'Twilio', credentials: { account_sid: kit.twilio.account.sid, auth_token: kit.twilio.account.authToken } })
      .expect(201)
  ).body.data.uuid as string;
  const agent = await activeAgent(api, { settings: { voice } });
  await api.post(`/api/v1/agents/${agent}/phone-numbers`).send({ number, capabilities: { call: true } }).expect(200);
  const added = await api.post(`/api/v1/agents/${agent}/channels`).send({ type: 'phone', name: 'Phone', config: { connection_uuid: connection } });
  expect(added.status).toBe(200);
  const channel = (added.body.data.channels ?? [added.body.data]).find((c: { type: string }) => c.type === 'phone').uuid as string;
  return { agent, channel, connection, number };
}

export async function callOf(kit: CallsKit, conversation: string): Promise<any> {
  return (await kit.kit.api.get(`/api/v1/calls/${conversation}`).expect(200)).body.data;
}

export async function messagesOf(kit: CallsKit, conversation: string): Promise<Array<{ sender: string; message_type: string; content: string }>> {
  return (await kit.kit.api.get(`/api/v1/conversations/${conversation}/messages?per_page=100`).expect(200)).body.data.items;
}

export { request };
