/**
 * Throughput of agent webhook delivery (plugins/agent-webhooks), for bench/runtime.ts:
 * a kernel with the agents and agent-webhooks plugins and a bench plugin whose event
 * (`bench_webhook.ping`) an agent's webhook subscribes to; N events are published in one
 * transaction and the signed deliveries counted as a local receiver gets them (unique
 * `webhook-id`s). Beside it, in the same run: the floor of the HTTP side, the same N
 * signed POSTs from bare undici at the same concurrency to the same receiver; and a
 * restart variant that stops the kernel a third of the way through and boots a new one
 * on the same database, counting deliveries lost (never received) and sent twice.
 *
 * The receiver runs in this process (as does the kernel), so both variants pay for it.
 */
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { Agent, request } from 'undici';
import { Type, coreServices, defineRoute, definePlugin } from '../../core';
import { createTestDatabase, startTestKernel, type TestKernel } from '../../core/testing';
import { agentWebhookEvents } from '../../plugins/agents';
import { webhookHeaders } from '../../plugins/agent-webhooks';

export interface WebhookDeliveryBenchOptions {
  /** Events per run (default 2000). */
  n?: number;
  /** Deliveries sent at once (AGENT_WEBHOOKS_CONCURRENCY, and the baseline's); default 32. */
  concurrency?: number;
  /** Extra kernel config, e.g. `{ amqpUrl }` for the RabbitMQ transport. */
  kernelConfig?: Record<string, unknown>;
  /** Run the restart variant too (default true). */
  restart?: boolean;
}

export interface WebhookDeliveryBenchResult {
  n: number;
  concurrency: number;
  transport: 'postgres' | 'amqp';
  /** Signed deliveries/s through the kernel: N / (last received - publish). */
  deliveriesPerSecond: number;
  seconds: number;
  /** The same N signed POSTs from bare undici at the same concurrency. */
  baselinePerSecond: number;
  baselineSeconds: number;
  restart?: { n: number; lost: number; duplicates: number; seconds: number };
}

const PING = 'bench_webhook.ping';
const SECRET = `whsec_${crypto.randomBytes(24).toString('base64')}`;

const benchPlugin = definePlugin({
  id: 'bench-webhook',
  dependsOn: ['agents'],
  contributes: [agentWebhookEvents.add({ name: PING, description: 'Bench event', source: { topics: [PING], agentUuid: (payload) => payload.agent_uuid } })],
  deps: { http: coreServices.http, bus: coreServices.bus },
  init({ http: routes, bus }) {
    routes.route(
      defineRoute({
        method: 'POST',
        path: '/api/v1/bench-webhook/publish',
        summary: 'Publish N bench events in one transaction',
        body: Type.Object({ agent_uuid: Type.String(), n: Type.Integer(), from: Type.Integer() }),
        response: Type.Object({ ok: Type.Boolean() }),
        handler: async ({ body }) => {
          await bus.publishMany(PING, Array.from({ length: body.n }, (_, i) => ({ agent_uuid: body.agent_uuid, seq: body.from + i })));
          return { ok: true };
        },
      }),
    );
  },
});

const PLUGINS = [path.resolve(__dirname, '../../plugins/agents'), path.resolve(__dirname, '../../plugins/agent-webhooks'), benchPlugin];

interface Receiver {
  url: string;
  ids: Map<string, number>;
  lastAt: number;
  waitFor(count: number, timeoutMs: number): Promise<void>;
  close(): Promise<void>;
}

async function startReceiver(): Promise<Receiver> {
  const state = { lastAt: 0 };
  const ids = new Map<string, number>();
  const server = http.createServer({ keepAliveTimeout: 60_000 }, (req, res) => {
    req.resume();
    req.on('end', () => {
      const id = String(req.headers['webhook-id']);
      if (!req.headers['webhook-signature']) res.statusCode = 400;
      else ids.set(id, (ids.get(id) ?? 0) + 1);
      state.lastAt = performance.now();
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    ids,
    get lastAt() {
      return state.lastAt;
    },
    async waitFor(count, timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      while (ids.size < count && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    },
    close: () => new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }),
  };
}

async function setUp(kit: TestKernel, url: string): Promise<string> {
  const agent = (await kit.api.post('/api/v1/agents').send({ name: 'Bench' }).expect(201)).body.data.agent_uuid as string;
  await kit.api.post(`/api/v1/agents/${agent}/webhooks`).send({ url, events: [PING], secret: SECRET }).expect(200);
  return agent;
}

/** The floor of the HTTP side: N signed POSTs from undici, `concurrency` at once. */
async function baseline(url: string, n: number, concurrency: number): Promise<number> {
  const dispatcher = new Agent({ connections: concurrency });
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) {
        const seq = next++;
        const id = crypto.randomUUID();
        const body = JSON.stringify({ type: PING, timestamp: new Date().toISOString(), data: { agent_uuid: 'baseline', seq } });
        const response = await request(url, { method: 'POST', headers: webhookHeaders(id, body, SECRET), body, dispatcher });
        await response.body.dump();
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  await dispatcher.close();
  return seconds;
}

export async function benchWebhookDeliveries(options: WebhookDeliveryBenchOptions = {}): Promise<WebhookDeliveryBenchResult> {
  const n = options.n ?? 2000;
  const concurrency = options.concurrency ?? 32;
  // One secrets key for both kernels of the restart variant (the webhook's secret is sealed with it);
  // a short lease: rows the stopped kernel had claimed but not handed over wait for it to run out.
  const config = { databasePoolMax: 20, busLeaseSeconds: 10, secretsKey: crypto.randomBytes(32).toString('base64'), ...options.kernelConfig, 'agent-webhooks': { concurrency, retrySchedule: '1s,2s,5s' }, logLevel: 'warn' };
  const receiver = await startReceiver();
  const database = await createTestDatabase();
  try {
    // Throughput.
    let kit = await startTestKernel({ plugins: PLUGINS, databaseUrl: database.url, config });
    const agent = await setUp(kit, receiver.url);
    const publish = (count: number, from: number, on: TestKernel) => on.api.post('/api/v1/bench-webhook/publish').send({ agent_uuid: agent, n: count, from }).expect(200);
    // Warm-up: connections, JIT, the first plans.
    await publish(200, -200, kit);
    await receiver.waitFor(200, 60_000);
    receiver.ids.clear();
    const started = performance.now();
    await publish(n, 0, kit);
    await receiver.waitFor(n, 300_000);
    const seconds = (receiver.lastAt - started) / 1000;
    const delivered = receiver.ids.size;
    if (delivered < n) throw new Error(`only ${delivered} of ${n} deliveries arrived`);

    const baselineSeconds = await baseline(receiver.url, n, concurrency);

    let restart: WebhookDeliveryBenchResult['restart'];
    if (options.restart ?? true) {
      receiver.ids.clear();
      const restartStarted = performance.now();
      await publish(n, n, kit);
      await receiver.waitFor(Math.floor(n / 3), 300_000);
      await kit.kernel.stop();
      kit = await startTestKernel({ plugins: PLUGINS, databaseUrl: database.url, tenant: `b${crypto.randomBytes(3).toString('hex')}`, config: { ...config, busNamespace: kit.kernel.config.core.busNamespace }, removeBrokerTopology: true });
      await receiver.waitFor(n, 120_000);
      const duplicates = [...receiver.ids.values()].reduce((sum, count) => sum + count - 1, 0);
      restart = { n, lost: n - receiver.ids.size, duplicates, seconds: round((receiver.lastAt - restartStarted) / 1000) };
    }
    await kit.stop();
    return {
      n,
      concurrency,
      transport: options.kernelConfig?.amqpUrl ? 'amqp' : 'postgres',
      deliveriesPerSecond: Math.round(n / seconds),
      seconds: round(seconds),
      baselinePerSecond: Math.round(n / baselineSeconds),
      baselineSeconds: round(baselineSeconds),
      restart,
    };
  } finally {
    await receiver.close();
    await database.drop().catch(() => {});
  }
}

const round = (value: number) => Math.round(value * 1000) / 1000;

// `node -r ./bin/register-ts.js bench/lib/webhook-deliveries.ts [N]`: one run, printed.
if (require.main === module) {
  const amqpUrl = process.env.BENCH_AMQP === '1' ? (process.env.AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672') : undefined;
  benchWebhookDeliveries({ n: Number(process.argv[2] ?? 2000), kernelConfig: amqpUrl ? { amqpUrl } : {} })
    .then((result) => {
      console.log(JSON.stringify(result, null, 2));
      process.exit(0);
    })
    .catch((error) => {
      console.error(error);
      process.exit(1);
    });
}
