import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestKernel, type TestKernel } from '../../../core/testing';
import { PING, PLUGINS, addWebhook, createAgent, deliveries, ping, pingProbe, waitFor } from './webhook-test-kit';

/**
 * An attempt answered after a manual retry superseded it records nothing: the delivery
 * handler's one-statement success (RECORD_SUCCESS in delivery.ts) is guarded by the
 * message's queue token, so only the newer message's attempt counts.
 */
let kit: TestKernel;
let server: http.Server;
let url: string;
/** Requests the endpoint holds, in arrival order; each is answered 200 when released. */
const held: Array<{ id: string; release: () => void }> = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => held.push({ id: String(req.headers['webhook-id']), release: () => res.end('ok') }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/held`;
  kit = await startTestKernel({ plugins: [...PLUGINS, pingProbe] });
  countDelivered();
});
afterAll(async () => {
  for (const request of held) request.release();
  await kit?.stop();
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
});

/** Deliver messages whose transaction has committed (the deliver consumer keeps no inbox to count them by). */
let delivered = 0;
const countDelivered = () => {
  const { delivery } = kit.kernel.bus;
  const deliverBatch = delivery.deliverBatch.bind(delivery);
  delivery.deliverBatch = async (consumer, envelopes) => {
    const result = await deliverBatch(consumer, envelopes);
    if (consumer.name.endsWith('.deliver')) delivered += result.outcomes.filter((outcome) => outcome === 'handled').length;
    return result;
  };
};

it('records only the attempt of the newest message when an older one answers late', async () => {
  const agent = await createAgent(kit.api);
  const webhook = await addWebhook(kit.api, agent, { url, events: [PING] });
  await ping(kit.api, agent, 1);
  await waitFor(() => held.length, (n) => n === 1);
  const [pending] = await deliveries(kit.api, agent, webhook);
  expect(pending).toMatchObject({ status: 'pending', attempts: 0 });

  // Superseded while its attempt is in flight; the new message's attempt is held too.
  await kit.api.post(`/api/v1/agents/${agent}/webhooks/${webhook}/deliveries/${pending.uuid}/retry`).expect(202);
  await waitFor(() => held.length, (n) => n === 2);
  expect(held[1].id).toBe(pending.uuid);

  // The old attempt succeeds: its handler commits and leaves the row as it was.
  const before = delivered;
  held[0].release();
  await waitFor(async () => delivered, (n) => n === before + 1);
  expect((await deliveries(kit.api, agent, webhook))[0]).toMatchObject({ status: 'pending', attempts: 0, last_status_code: null });

  held[1].release();
  const [row] = await waitFor(() => deliveries(kit.api, agent, webhook), (rows) => rows[0]?.status === 'succeeded');
  expect(row).toMatchObject({ attempts: 1, last_status_code: 200, last_error: null, next_attempt_at: null });
});
