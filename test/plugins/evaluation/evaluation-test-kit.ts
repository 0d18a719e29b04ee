import crypto from 'node:crypto';
import path from 'node:path';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { coreServices, definePlugin } from '../../../core';
import type { ApiClient, FakeLlmReply, FakeLlmRequest, FakeLlmServer, TestKernel } from '../../../core/testing';

/** Shared helpers of the evaluator tests (not a test file itself). */

export const PLUGINS = ['agents', 'conversations', 'evaluation'].map((id) => path.resolve(__dirname, '../../../plugins', id));
export const EVALUATOR = 'evaluation.evaluate-sessions';
export const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

export type Json = Record<string, any>;

/** What the bus delivered to the probe: `session.closed`, reruns and `session.evaluated` (per test file: jest isolates modules). */
export const delivered: Array<{ id: string; topic: string; payload: any }> = [];

/** Listens to what the evaluator consumes and publishes, so a test can tell when a message was handled. */
export const evaluationProbe = definePlugin({
  id: 'evaluation-probe',
  dependsOn: ['evaluation'],
  deps: { bus: coreServices.bus },
  init({ bus }) {
    bus.consume({ name: 'watch', topics: ['session.closed', 'session.evaluated', 'evaluation.rerun'] }, async (message) => {
      delivered.push({ id: message.id, topic: message.topic, payload: message.payload });
    });
  },
});

export const uniqueText = (prefix = 'ref') => `${prefix}-${crypto.randomBytes(4).toString('hex')}`;

export async function createAgent(api: ApiClient, name = 'Reception'): Promise<string> {
  return (await api.post('/api/v1/agents').send({ name }).expect(201)).body.data.agent_uuid;
}

export async function putDefault(api: ApiClient, body: Json): Promise<Json> {
  const res = await api.put('/api/v1/evaluate/default').send(body);
  if (res.status !== 200) throw new Error(`PUT /evaluate/default -> ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data;
}

export async function putOverride(api: ApiClient, agent: string, body: Json): Promise<Json> {
  await api.post(`/api/v1/agents/${agent}/evaluate/assign`).expect(200);
  const res = await api.put(`/api/v1/agents/${agent}/evaluate`).send(body);
  if (res.status !== 200) throw new Error(`PUT /agents/{uuid}/evaluate -> ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data;
}

export interface SessionSpec {
  agent: string;
  channel?: string;
  /** The turns, customer and agent alternating from the customer; default two. */
  turns?: string[];
  /** Close the conversation (and so the session); default true. */
  close?: boolean;
}

/** A conversation with its turns, closed: returns the session and conversation uuids. */
export async function closedSession(api: ApiClient, spec: SessionSpec): Promise<{ session: string; conversation: string; messages: Json[] }> {
  const conversation = await api.post('/api/v1/conversations').send({ agent_uuid: spec.agent, channel: spec.channel ?? 'chat' });
  if (conversation.status !== 201) throw new Error(`open conversation -> ${conversation.status} ${JSON.stringify(conversation.body)}`);
  const uuid: string = conversation.body.data.uuid;
  const messages: Json[] = [];
  const turns = spec.turns ?? ['Hello, can I book a table for two?', 'Of course, for when?'];
  for (const [index, content] of turns.entries()) {
    const res = await api.post(`/api/v1/conversations/${uuid}/messages`).send({ sender: index % 2 === 0 ? 'customer' : 'agent', content });
    if (res.status !== 201) throw new Error(`message -> ${res.status} ${JSON.stringify(res.body)}`);
    messages.push(res.body.data);
  }
  if (spec.close ?? true) await api.post(`/api/v1/conversations/${uuid}/close`).expect(200);
  return { session: messages[0].session_uuid, conversation: uuid, messages };
}

/** Waits until `read` gives something truthy (polling), or fails after `ms`. */
export async function eventually<T>(read: () => T | undefined | false | null | Promise<T | undefined | false | null>, ms = 15_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (value !== undefined && value !== false && value !== null) return value as T;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** The session's evaluation record, once it is stored. */
export async function evaluationOf(api: ApiClient, session: string, ms?: number): Promise<Json> {
  return eventually(async () => {
    const res = await api.get(`/api/v1/sessions/${session}/evaluation`);
    return res.status === 200 ? res.body.data : null;
  }, ms);
}

/**
 * Waits until the evaluator has finished with the session's last message of `topic`
 * (its inbox record is committed with the handler's effects, and only after its last
 * attempt): what a test waits for when the outcome is that nothing is stored.
 */
export async function handledByEvaluator(kit: TestKernel, session: string, topic: 'session.closed' | 'evaluation.rerun' = 'session.closed'): Promise<void> {
  const message = await eventually(() => delivered.filter((m) => m.topic === topic && m.payload.session_uuid === session).at(-1));
  await eventually(async () => {
    const rows = await kit.kernel.orm.em.fork().getConnection().execute('select 1 from bus_inbox where consumer = ? and message_id = ?', [EVALUATOR, message.id]);
    return rows.length > 0;
  });
}

/** The requests the fake model got whose messages mention `text` (a session's unique words). */
export const requestsAbout = (server: FakeLlmServer, text: string) => server.requests.filter((request) => JSON.stringify(request.body?.messages ?? []).includes(text));

/** The kind of call a request is, from its structured-output schema name. */
export const callKind = (request: FakeLlmRequest): 'analyzer' | 'success' | 'batched' | 'summary' => {
  const name = request.body?.response_format?.json_schema?.name;
  if (name === 'analyzer_label') return 'analyzer';
  if (name === 'success_verdict') return 'success';
  if (name === 'session_evaluation') return 'batched';
  return 'summary';
};

/** The text of the request's messages. */
export const promptOf = (request: FakeLlmRequest): string => (request.body?.messages ?? []).map((message: Json) => message.content).join('\n');

export interface ModelScript {
  /** Label per analyzer description (a description the test chose); default `unknown`. */
  labels?: Record<string, string>;
  success?: { success: boolean; reason: string };
  summary?: string;
  /** Tokens reported per call; default 15. */
  totalTokens?: number;
}

/**
 * A model that answers each request by what it asks: an analyzer by its description,
 * the success verdict, the batched object (built from its schema) and the summary.
 */
export function modelAnswer(script: ModelScript = {}) {
  const usage = { promptTokens: (script.totalTokens ?? 15) - 5, completionTokens: 5 };
  return (request: FakeLlmRequest): FakeLlmReply => {
    const kind = callKind(request);
    const prompt = promptOf(request);
    const labelFor = (description: string) => script.labels?.[description] ?? 'unknown';
    const labelIn = (text: string) => Object.entries(script.labels ?? {}).find(([description]) => text.includes(description))?.[1] ?? 'unknown';
    const success = script.success ?? { success: true, reason: 'The customer got what they asked for.' };
    if (kind === 'analyzer') return { json: { label: labelIn(prompt) }, usage };
    if (kind === 'success') return { json: success, usage };
    if (kind === 'summary') return { content: script.summary ?? 'The customer asked for a table; the agent helped.', usage };
    const members = Object.keys(request.body.response_format.json_schema.schema.properties);
    const answer: Json = {};
    for (const member of members) {
      if (member === 'summary') answer.summary = script.summary ?? 'A batched summary.';
      else if (member === 'success_evaluation_prompt') answer[member] = success;
      else {
        // The batched prompt lists each member with its description: `- "<name>": {...}. <description>`.
        const line = prompt.split('\n').find((text) => text.startsWith(`- "${member}"`)) ?? '';
        answer[member] = { label: labelFor(Object.keys(script.labels ?? {}).find((description) => line.includes(description)) ?? '') };
      }
    }
    return { json: answer, usage };
  };
}

/** Queues `count` answers of `script` (the evaluator's calls run at once, so each answers by what it is asked). */
export function answerCalls(server: FakeLlmServer, count: number, script: ModelScript | ((request: FakeLlmRequest) => FakeLlmReply) = {}): void {
  const answer = typeof script === 'function' ? script : modelAnswer(script);
  for (let i = 0; i < count; i++) server.reply(answer);
}

const ajv = new Ajv({ strict: false, allErrors: true });
addFormats(ajv);

/** Problems of an answer against the response schema its route documents; null when it matches. */
export function responseSchemaErrors(kit: TestKernel, method: string, routePath: string, body: unknown): unknown {
  const route = kit.kernel.registry.list().find((candidate) => candidate.method === method && candidate.path === routePath);
  if (!route?.response) throw new Error(`no response schema for ${method} ${routePath}`);
  const validate = ajv.compile(route.response);
  return validate(body) ? null : validate.errors;
}
