import path from 'node:path';
import { coreServices, definePlugin } from '../../../core';
import type { ApiClient } from '../../../core/testing';

/** Shared helpers of the agent sub-resource tests (not a test file itself). */

export const AGENTS_PLUGIN = path.resolve(__dirname, '../../../plugins/agents');

export type Json = Record<string, any>;

export async function createAgent(api: ApiClient, body: Json = {}): Promise<Json> {
  const res = await api.post('/api/v1/agents').send({ name: 'Agent', ...body }).expect(201);
  return res.body.data;
}

export async function readAgent(api: ApiClient, uuid: string): Promise<Json> {
  const res = await api.get(`/api/v1/agents/${uuid}`).expect(200);
  return res.body.data;
}

/** Sends a sub-resource write expecting 200 `{data: agent}`, checks the answer is the agent as GET returns it, and returns it. */
export async function write(
  api: ApiClient,
  method: 'post' | 'put' | 'patch' | 'delete',
  agentUuid: string,
  subPath: string,
  body?: unknown,
): Promise<Json> {
  const req = api[method](`/api/v1/agents/${agentUuid}/${subPath}`);
  const res = await (body === undefined ? req : req.send(body as object));
  if (res.status !== 200) throw new Error(`${method.toUpperCase()} ${subPath} -> ${res.status} ${JSON.stringify(res.body)}`);
  expect(Object.keys(res.body)).toEqual(['data']);
  expect(res.body.data.agent_uuid).toBe(agentUuid);
  expect(res.body.data).toEqual(await readAgent(api, agentUuid));
  return res.body.data;
}

/**
 * Sends a write expecting 422 whose `errors` names exactly `paths`, then checks the
 * agent was not touched at all (not even `updated_at`). Returns the error body.
 */
export async function rejected(
  api: ApiClient,
  method: 'post' | 'put' | 'patch' | 'delete',
  agentUuid: string,
  subPath: string,
  body: unknown,
  paths: string[],
): Promise<Json> {
  const before = await readAgent(api, agentUuid);
  const res = await api[method](`/api/v1/agents/${agentUuid}/${subPath}`).send(body as object);
  if (res.status !== 422) throw new Error(`${method.toUpperCase()} ${subPath} ${JSON.stringify(body)}: expected 422, got ${res.status} ${JSON.stringify(res.body)}`);
  expect(typeof res.body.message).toBe('string');
  expect(Object.keys(res.body.errors).sort()).toEqual([...paths].sort());
  for (const p of paths) {
    expect(Array.isArray(res.body.errors[p])).toBe(true);
    expect(res.body.errors[p].length).toBeGreaterThan(0);
  }
  expect(await readAgent(api, agentUuid)).toEqual(before);
  return res.body;
}

/** Expects a status with the spec's error envelope `{success: false, message, data: []}` (404, 409). */
export async function failsWith(test: PromiseLike<{ status: number; body: any }>, status: number): Promise<Json> {
  const res = await test;
  if (res.status !== status) throw new Error(`expected ${status}, got ${res.status} ${JSON.stringify(res.body)}`);
  expect(res.body).toEqual({ success: false, message: expect.any(String), data: [] });
  return res.body;
}

/** The item of `list` with this id (by `key`), or undefined. */
export const item = (list: Json[], uuid: string, key = 'uuid'): any => list.find((entry) => entry[key] === uuid);

/** The list without the item of this id. */
export const others = (list: Json[], uuid: string, key = 'uuid') => list.filter((entry) => entry[key] !== uuid);

/** The ids of a list, in order. */
export const ids = (list: Json[], key = 'uuid') => list.map((entry) => entry[key]);

/** Every message the bus delivered to the probe consumer below (per test file: jest isolates modules). */
export const agentMessages: Array<{ topic: string; payload: any; tenant?: string }> = [];

/** A plugin that consumes `agent.*` and remembers each message, to assert what the agents plugin published. */
export const agentEventProbe = definePlugin({
  id: 'agent-event-probe',
  dependsOn: ['agents'],
  deps: { bus: coreServices.bus },
  init({ bus }) {
    bus.consume({ name: 'agent-events', topics: ['agent.*'] }, async (message) => {
      agentMessages.push({ topic: message.topic, payload: message.payload, tenant: message.tenant?.uuid });
    });
  },
});

/** Waits until `predicate` holds (polling), or fails after `ms`. */
export async function eventually<T>(read: () => T | undefined, ms = 5000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = read();
    if (value !== undefined && value !== false) return value as T;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
