import path from 'node:path';
import type supertest from 'supertest';
import type { ApiClient } from '../../../core/testing';
import { activeAgent, parseEvents, RUNTIME_PLUGINS } from '../runtime/runtime-test-kit';

/** The web chat and what it depends on, as `npm start` loads them. */
export const WEB_CHAT_PLUGINS = [...RUNTIME_PLUGINS, path.resolve(__dirname, '../../../plugins/web-chat')];

export interface ChatChannel {
  agent: string;
  channel: string;
  key: string;
}

/** An active agent with a web_chat channel, made through the tenant API. */
export async function webChatAgent(api: ApiClient, config: Record<string, unknown> = {}, agentBody: Record<string, unknown> = {}): Promise<ChatChannel> {
  const agent = await activeAgent(api, agentBody);
  const res = await api.post(`/api/v1/agents/${agent}/channels`).send({ type: 'web_chat', name: 'Website', config }).expect(200);
  const channel = res.body.data.channels.find((c: any) => c.type === 'web_chat');
  return { agent, channel: channel.uuid, key: channel.public_key };
}

/** Reads a text/event-stream body as text, whatever its status. */
export const asText = (request: supertest.Test) =>
  request.buffer(true).parse((response, callback) => {
    let text = '';
    response.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    response.on('end', () => callback(null, text));
  });

export { parseEvents };
