import path from 'node:path';
import { coreServices, definePlugin } from '../../../core';
import type { ApiClient, TestKernel } from '../../../core/testing';
import { sessionizationProvider, type Sessionization } from '../../../plugins/conversations';

/** Shared helpers of the conversation and session tests (not a test file itself). */

export const AGENTS = path.resolve(__dirname, '../../../plugins/agents');
export const CONVERSATIONS = path.resolve(__dirname, '../../../plugins/conversations');
export const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
export const TIMER_TOPIC = 'conversations.session-timeout';

export type Json = Record<string, any>;

/** Every `conversation.*` and `session.*` message the bus delivered to the probe below (per test file: jest isolates modules). */
export const published: Array<{ topic: string; payload: any; tenant?: string }> = [];

/** A plugin that consumes what the conversations plugin announces and remembers it. */
export const conversationEventProbe = definePlugin({
  id: 'conversation-event-probe',
  dependsOn: ['conversations'],
  deps: { bus: coreServices.bus },
  init({ bus }) {
    bus.consume({ name: 'conversation-events', topics: ['conversation.*', 'session.*'] }, async (message) => {
      published.push({ topic: message.topic, payload: message.payload, tenant: message.tenant?.uuid });
    });
  },
});

/** The sessionization each agent gets from the provider below; agents not listed get `fallback`. */
export const sessionizationOf = new Map<string, Sessionization>();
const fallback: Sessionization = { mode: 'sliding_timeout', timeoutMinutes: 30 };

/** Plays the evaluation plugin: fills the conversations plugin's sessionization slot, per agent. */
export const sessionizationByAgent = definePlugin({
  id: 'sessionization-by-agent',
  dependsOn: ['conversations'],
  contributes: [sessionizationProvider.add({ forAgent: async (_em, agentUuid) => sessionizationOf.get(agentUuid) ?? fallback })],
});

export async function createAgent(api: ApiClient, name = 'Reception'): Promise<string> {
  return (await api.post('/api/v1/agents').send({ name }).expect(201)).body.data.agent_uuid;
}

export async function openConversation(api: ApiClient, body: Json): Promise<Json> {
  const res = await api.post('/api/v1/conversations').send({ channel: 'chat', ...body });
  if (res.status !== 201) throw new Error(`open conversation -> ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data;
}

export async function say(api: ApiClient, conversationUuid: string, sender: string, content = `${sender} speaking`, extra: Json = {}): Promise<Json> {
  const res = await api.post(`/api/v1/conversations/${conversationUuid}/messages`).send({ sender, content, ...extra });
  if (res.status !== 201) throw new Error(`message -> ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data;
}

export async function readSession(api: ApiClient, sessionUuid: string): Promise<Json> {
  return (await api.get(`/api/v1/sessions/${sessionUuid}`).expect(200)).body.data;
}

/** Expects a 422 whose `errors` names exactly `paths`. */
export async function refused(test: PromiseLike<{ status: number; body: any }>, paths: string[]): Promise<Json> {
  const res = await test;
  if (res.status !== 422) throw new Error(`expected 422, got ${res.status} ${JSON.stringify(res.body)}`);
  expect(Object.keys(res.body.errors).sort()).toEqual([...paths].sort());
  return res.body;
}

/** Waits until `read` gives something truthy (polling), or fails after `ms`. */
export async function eventually<T>(read: () => T | undefined | false | Promise<T | undefined | false>, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (value !== undefined && value !== false && value !== null) return value as T;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The idle timers waiting in the outbox for a session (delivered ones are gone). */
export async function pendingTimers(kit: TestKernel, sessionUuid: string): Promise<Array<{ due_at: Date; payload: any; dedupe_key: string }>> {
  return kit.kernel.orm.em
    .fork()
    .getConnection()
    .execute(`select due_at, payload, dedupe_key from bus_outbox where topic = ? and payload->>'session_uuid' = ? and locked_until is null`, [TIMER_TOPIC, sessionUuid]);
}

/** Messages of one topic about one resource, as the probe saw them. */
export const eventsOf = (topic: string, key: string, uuid: string) => published.filter((m) => m.topic === topic && m.payload[key] === uuid);
