import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { Type, coreServices, defineRoute, definePlugin } from '../../../core';
import type { ApiClient } from '../../../core/testing';
import { agentWebhookEvents } from '../../../plugins/agents';

export const PLUGINS = ['agents', 'agent-webhooks'].map((id) => path.resolve(__dirname, '../../../plugins', id));
export const PING = 'webhook_probe.ping';

/**
 * A plugin that declares its own webhook event (`webhook_probe.ping`, sourced from the
 * topic of the same name) and a route that publishes it: tests trigger exactly the
 * events they count, and prove the delivery follows any catalog entry's `source`.
 */
export const pingProbe = definePlugin({
  id: 'webhook-probe',
  dependsOn: ['agents'],
  contributes: [
    agentWebhookEvents.add({
      name: PING,
      description: 'A test event',
      source: { topics: [PING], agentUuid: (payload) => payload.agent_uuid, data: (payload) => ({ n: payload.n }) },
    }),
  ],
  deps: { http: coreServices.http, bus: coreServices.bus },
  init({ http: routes, bus }) {
    routes.route(
      defineRoute({
        method: 'POST',
        path: '/api/v1/webhook-probe/ping',
        summary: 'Publish a test event',
        body: Type.Object({ agent_uuid: Type.String(), n: Type.Integer() }),
        response: Type.Object({ ok: Type.Boolean() }),
        handler: async ({ body }) => {
          await bus.publish(PING, body);
          return { ok: true };
        },
      }),
    );
  },
});

export interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  at: number;
}

/** A local webhook endpoint: records every request; `statuses[path]` answers in turn (then 200). */
export interface Receiver {
  url: string;
  received: Received[];
  statuses: Record<string, number[]>;
  of(path: string): Received[];
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const received: Received[] = [];
  const statuses: Record<string, number[]> = {};
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const pathname = req.url ?? '/';
      received.push({ path: pathname, headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() });
      res.statusCode = statuses[pathname]?.shift() ?? 200;
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    statuses,
    of: (p) => received.filter((r) => r.path === p),
    close: () => new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }),
  };
}

export async function createAgent(api: ApiClient): Promise<string> {
  return (await api.post('/api/v1/agents').send({ name: 'Hooked' }).expect(201)).body.data.agent_uuid;
}

export async function addWebhook(api: ApiClient, agent: string, body: Record<string, unknown>): Promise<string> {
  const res = await api.post(`/api/v1/agents/${agent}/webhooks`).send(body);
  if (res.status !== 200) throw new Error(`POST webhooks -> ${res.status} ${JSON.stringify(res.body)}`);
  const hooks = res.body.data.webhooks as Array<{ webhook_uuid: string; url: string }>;
  return hooks.find((hook) => hook.url === body.url)!.webhook_uuid;
}

export async function ping(api: ApiClient, agent: string, n: number): Promise<void> {
  await api.post('/api/v1/webhook-probe/ping').send({ agent_uuid: agent, n }).expect(200);
}

export async function waitFor<T>(read: () => T | Promise<T>, done: (value: T) => boolean, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting; last value: ${JSON.stringify(value)?.slice(0, 500)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export async function deliveries(api: ApiClient, agent: string, webhook: string): Promise<Array<Record<string, any>>> {
  const res = await api.get(`/api/v1/agents/${agent}/webhooks/${webhook}/deliveries`).expect(200);
  return res.body.data.items;
}
