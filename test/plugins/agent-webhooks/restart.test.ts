import crypto from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { createTestDatabase, startTestKernel, type TestKernel } from '../../../core/testing';
import { PING, PLUGINS, addWebhook, createAgent, deliveries, ping, pingProbe, startReceiver, waitFor, type Receiver } from './webhook-test-kit';

/**
 * A delivery rides the bus outbox: a process stopped while its retry waits loses
 * nothing; the next process on the same database sends it, with the same id.
 */
const transports: Array<[string, Record<string, unknown>]> = [['in-process bus', {}]];
if (process.env.AMQP_URL) transports.push(['RabbitMQ', { amqpUrl: process.env.AMQP_URL }]);

describe.each(transports)('agent webhook delivery across a restart, over %s', (_name, transport) => {
  let receiver: Receiver;
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  beforeAll(async () => {
    receiver = await startReceiver();
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await receiver?.close();
    await database?.drop();
  });

  it('sends a delayed retry after the process that queued it stopped', async () => {
    const namespace = `sbtest-${crypto.randomBytes(4).toString('hex')}`;
    // One secrets key for both processes, as in a deployment: the webhook's secret is sealed with it.
    const config = { ...transport, busNamespace: namespace, secretsKey: crypto.randomBytes(32).toString('base64'), 'agent-webhooks': { retrySchedule: '2s' } };
    const secret = `whsec_${crypto.randomBytes(24).toString('base64')}`;
    const first: TestKernel = await startTestKernel({ plugins: [...PLUGINS, pingProbe], databaseUrl: database.url, config });
    const target = `/restart-${crypto.randomBytes(3).toString('hex')}`;
    receiver.statuses[target] = [500];
    const agent = await createAgent(first.api);
    const webhook = await addWebhook(first.api, agent, { url: receiver.url + target, events: [PING], secret });
    await ping(first.api, agent, 1);
    const [pending] = await waitFor(() => deliveries(first.api, agent, webhook), (rows) => rows[0]?.attempts === 1);
    expect(pending).toMatchObject({ status: 'pending', last_status_code: 500 });
    // Stop the kernel (not the database, nor the broker's queues) while the retry waits.
    await first.kernel.stop();

    // The last process of the namespace: its stop takes the broker's queues with it.
    const second = await startTestKernel({ plugins: [...PLUGINS, pingProbe], databaseUrl: database.url, tenant: 'second', config, removeBrokerTopology: true });
    try {
      const api = second.client({ host: `acme.${second.kernel.config.core.baseDomain}`, token: first.token });
      const [row] = await waitFor(() => deliveries(api, agent, webhook), (rows) => rows[0]?.status === 'succeeded', 30_000);
      expect(row).toMatchObject({ uuid: pending.uuid, attempts: 2, last_status_code: 200 });
      const requests = receiver.of(target);
      expect(requests).toHaveLength(2);
      expect(requests[1].headers['webhook-id']).toBe(requests[0].headers['webhook-id']);
      expect(new Webhook(secret).verify(requests[1].body, requests[1].headers as Record<string, string>)).toMatchObject({ type: PING, data: { n: 1 } });
    } finally {
      await second.stop();
    }
  });
});
