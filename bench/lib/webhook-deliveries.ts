/**
 * Throughput of agent webhook delivery (plugins/agent-webhooks), for bench/runtime.ts:
 * a kernel with the agents and agent-webhooks plugins and a bench plugin whose event
 * (`bench_webhook.ping`) an agent's webhook subscribes to; N events are published in one
 * transaction and the signed deliveries counted as a local receiver gets them (unique
 * `webhook-id`s). Beside it, in the same run: the floor of the HTTP side, the same N
 * signed POSTs from bare undici at the same concurrency to the same receiver; and a
 * restart variant that stops the kernel a third of the way through and boots a new one
 * on the same database, counting deliveries lost (never received) and sent twice. And
 * the floor of the design (webhook-deliveries-floor.ts): the statements a delivery cannot
 * do without, from bare pg, with the same POSTs; the kernel is judged as a share of it.
 * SQL round trips per delivery are counted in process (statement-counter.ts) for the
 * kernel's run and the floor's.
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
import { UNCOUNTED, statementCounter, type StatementCounts } from './statement-counter';
import { deliveryFloor, type DeliveryFloorResult } from './webhook-deliveries-floor';

export interface WebhookDeliveryBenchOptions {
  /** Events per run (default 2000). */
  n?: number;
  /** Deliveries sent at once (AGENT_WEBHOOKS_CONCURRENCY, and the baseline's); default 32. */
  concurrency?: number;
  /** Extra kernel config, e.g. `{ amqpUrl }` for the RabbitMQ transport. */
  kernelConfig?: Record<string, unknown>;
  /** Run the restart variant too (default true). */
  restart?: boolean;
  /** Run the floor too (default true). */
  floor?: boolean;
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
  /** SQL round trips of this process during the kernel's run, per delivery, and the commonest. */
  statementsPerDelivery: number;
  statements: StatementCounts;
  /** The design's floor (webhook-deliveries-floor.ts), and the kernel's rate as a share of it. */
  floor?: DeliveryFloorResult;
  kernelShareOfFloor?: number;
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

/** BENCH_WEBHOOK_TRACE=1: arrivals per 250 ms of the kernel's run on stderr (where the time goes). */
const TRACE = process.env.BENCH_WEBHOOK_TRACE === '1';
const arrivals: number[] = [];

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
      if (TRACE) arrivals.push(state.lastAt);
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

async function setUp(kit: TestKernel, url: string): Promise<{ agent: string; webhook: string }> {
  const agent = (await kit.api.post('/api/v1/agents').send({ name: 'Bench' }).expect(201)).body.data.agent_uuid as string;
  const hooks = (await kit.api.post(`/api/v1/agents/${agent}/webhooks`).send({ url, events: [PING], secret: SECRET }).expect(200)).body.data.webhooks;
  return { agent, webhook: hooks[hooks.length - 1].webhook_uuid as string };
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
  statementCounter.install();
  const config = { databasePoolMax: 20, busLeaseSeconds: 10, secretsKey: crypto.randomBytes(32).toString('base64'), ...options.kernelConfig, 'agent-webhooks': { concurrency, retrySchedule: '1s,2s,5s' }, logLevel: 'warn' };
  const receiver = await startReceiver();
  const database = await createTestDatabase();
  try {
    // Throughput.
    let kit = await startTestKernel({ plugins: PLUGINS, databaseUrl: database.url, config });
    const { agent, webhook } = await setUp(kit, receiver.url);
    const publish = (count: number, from: number, on: TestKernel) => on.api.post('/api/v1/bench-webhook/publish').send({ agent_uuid: agent, n: count, from }).expect(200);
    // Warm-up: connections, JIT, the first plans.
    await publish(200, -200, kit);
    await receiver.waitFor(200, 60_000);
    await settle(kit);
    receiver.ids.clear();
    statementCounter.reset();
    const started = performance.now();
    let tracing = TRACE;
    const probe = TRACE
      ? (async () => {
          const line: string[] = [];
          while (tracing) {
            const [row]: any[] = await kit.kernel.orm.em.fork().getConnection().execute(`${UNCOUNTED}select count(*)::int as made, count(*) filter (where status = 'pending')::int as pending from agent_webhook_deliveries`);
            line.push(`${Math.round(performance.now() - started)}:${row.made}/${row.pending}`);
            await new Promise((resolve) => setTimeout(resolve, 500));
          }
          console.error('delivery rows made/pending:', line.join(' '));
        })()
      : undefined;
    await publish(n, 0, kit);
    await receiver.waitFor(n, 300_000);
    tracing = false;
    await probe;
    const seconds = (receiver.lastAt - started) / 1000;
    const delivered = receiver.ids.size;
    if (TRACE) {
      const buckets = new Map<number, number>();
      for (const at of arrivals) if (at >= started) buckets.set(Math.floor((at - started) / 250), (buckets.get(Math.floor((at - started) / 250)) ?? 0) + 1);
      console.error('arrivals per 250 ms:', [...buckets].map(([bucket, count]) => `${bucket * 250}:${count}`).join(' '));
    }
    if (delivered < n) throw new Error(`only ${delivered} of ${n} deliveries arrived`);
    // The last handlers commit after their POSTs arrive: counted once the deliveries are all recorded.
    await settle(kit);
    const statements = statementCounter.read();

    const baselineSeconds = await baseline(receiver.url, n, concurrency);

    let floor: DeliveryFloorResult | undefined;
    if (options.floor ?? true) {
      receiver.ids.clear();
      floor = await deliveryFloor(
        {
          databaseUrl: database.url,
          tenantUuid: kit.tenant.uuid,
          agentUuid: agent,
          webhookUuid: webhook,
          secret: SECRET,
          event: PING,
          poolMax: config.databasePoolMax,
          concurrency,
          relayBatch: 500,
          fanOutConcurrency: 4,
          leaseSeconds: config.busLeaseSeconds,
        },
        n,
      );
      if (receiver.ids.size < n) throw new Error(`the floor delivered ${receiver.ids.size} of ${n}`);
    }

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
      statementsPerDelivery: Math.round((100 * statements.total) / n) / 100,
      statements: { total: statements.total, byKind: Object.fromEntries(Object.entries(statements.byKind).slice(0, 20)) },
      floor,
      kernelShareOfFloor: floor ? round(n / seconds / floor.perSecond) : undefined,
      restart,
    };
  } finally {
    await receiver.close();
    await database.drop().catch(() => {});
  }
}

/** Waits until no delivery of the bench's is pending (the handlers' commits come after the receiver's answers). */
async function settle(kit: TestKernel): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const [row]: any[] = await kit.kernel.orm.em.fork().getConnection().execute(`${UNCOUNTED}select count(*)::int as n from agent_webhook_deliveries where status = 'pending'`);
    if (row.n === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
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
