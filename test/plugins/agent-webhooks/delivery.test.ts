import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { startTestKernel, type TestKernel } from '../../../core/testing';
import { sweepCrossTenant } from '../../../core/testing/cross-tenant-sweep';
import { fixtures as webhookFixtures } from '../../../plugins/agent-webhooks/testing';
import { fixtures as agentFixtures } from '../../../plugins/agents/testing';
import { PING, PLUGINS, addWebhook, createAgent, deliveries, ping, pingProbe, startReceiver, waitFor, type Receiver } from './webhook-test-kit';

/**
 * Agent webhook delivery end to end, on the in-process bus and on RabbitMQ: a real
 * kernel, a real endpoint on loopback, signatures checked with the Standard Webhooks
 * reference library.
 */
const SCHEDULE = '150,300';

const transports: Array<[string, Record<string, unknown>]> = [['in-process bus', {}]];
if (process.env.AMQP_URL) transports.push(['RabbitMQ', { amqpUrl: process.env.AMQP_URL }]);

describe.each(transports)('agent webhook delivery over %s', (_name, transport) => {
  let kit: TestKernel;
  let receiver: Receiver;
  let agent: string;
  const hookPath = (name: string) => `/${name}-${crypto.randomBytes(3).toString('hex')}`;

  beforeAll(async () => {
    receiver = await startReceiver();
    kit = await startTestKernel({ plugins: [...PLUGINS, pingProbe], config: { ...transport, 'agent-webhooks': { retrySchedule: SCHEDULE } } });
    agent = await createAgent(kit.api);
  });
  afterAll(async () => {
    await kit?.stop();
    await receiver?.close();
  });

  it('signs each delivery so the reference library verifies it, with the documented body', async () => {
    const secret = `whsec_${crypto.randomBytes(24).toString('base64')}`;
    const target = hookPath('signed');
    const webhook = await addWebhook(kit.api, agent, { url: receiver.url + target, events: [PING], secret });
    await ping(kit.api, agent, 1);
    const [request] = await waitFor(() => receiver.of(target), (r) => r.length >= 1);
    const verified = new Webhook(secret).verify(request.body, request.headers as Record<string, string>) as Record<string, any>;
    expect(verified).toMatchObject({ type: PING, data: { n: 1 } });
    expect(new Date(verified.timestamp).getTime()).toBeGreaterThan(Date.now() - 60_000);
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    // A tampered body fails the same check: the signature covers the body.
    expect(() => new Webhook(secret).verify(request.body.replace('"n":1', '"n":2'), request.headers as Record<string, string>)).toThrow();
    const [row] = await waitFor(() => deliveries(kit.api, agent, webhook), (rows) => rows[0]?.status === 'succeeded');
    expect(row).toMatchObject({ event: PING, attempts: 1, last_status_code: 200, last_error: null, next_attempt_at: null });
    expect(request.headers['webhook-id']).toBe(row.uuid);
  });

  it('signs with the UTF-8 bytes of a secret without the whsec_ prefix; no secret, no signature', async () => {
    const plain = 'not-a-whsec-secret';
    const signedPath = hookPath('plain');
    const unsignedPath = hookPath('unsigned');
    await addWebhook(kit.api, agent, { url: receiver.url + signedPath, events: [PING], secret: plain });
    await addWebhook(kit.api, agent, { url: receiver.url + unsignedPath, events: [PING] });
    await ping(kit.api, agent, 2);
    const [signed] = await waitFor(() => receiver.of(signedPath), (r) => r.length >= 1);
    const [unsigned] = await waitFor(() => receiver.of(unsignedPath), (r) => r.length >= 1);
    expect(new Webhook(Buffer.from(plain, 'utf8'), { format: 'raw' }).verify(signed.body, signed.headers as Record<string, string>)).toMatchObject({ data: { n: 2 } });
    expect(unsigned.headers['webhook-signature']).toBeUndefined();
    expect(unsigned.headers['webhook-id']).toBeDefined();
    expect(Number(unsigned.headers['webhook-timestamp'])).toBeCloseTo(Date.now() / 1000, -2);
  });

  it('delivers only to active webhooks subscribed to the event, and only the agent’s own', async () => {
    const own = await createAgent(kit.api);
    const other = await createAgent(kit.api);
    const subscribed = hookPath('subscribed');
    const inactive = hookPath('inactive');
    const otherEvent = hookPath('other-event');
    const otherAgent = hookPath('other-agent');
    await addWebhook(kit.api, own, { url: receiver.url + subscribed, events: [PING] });
    const inactiveHook = await addWebhook(kit.api, own, { url: receiver.url + inactive, events: [PING], is_active: false });
    const otherEventHook = await addWebhook(kit.api, own, { url: receiver.url + otherEvent, events: ['agent.deleted'] });
    const otherAgentHook = await addWebhook(kit.api, other, { url: receiver.url + otherAgent, events: [PING] });
    await ping(kit.api, own, 3);
    await waitFor(() => receiver.of(subscribed), (r) => r.length >= 1);
    // The fan-out wrote every delivery of the event in the transaction that queued the one received:
    // none for the others, whatever the transport still has in flight.
    expect(await deliveries(kit.api, own, inactiveHook)).toEqual([]);
    expect(await deliveries(kit.api, own, otherEventHook)).toEqual([]);
    expect(await deliveries(kit.api, other, otherAgentHook)).toEqual([]);
    await kit.outboxDrained();
    expect(receiver.of(subscribed)).toHaveLength(1);
    expect(receiver.of(inactive)).toHaveLength(0);
    expect(receiver.of(otherEvent)).toHaveLength(0);
    expect(receiver.of(otherAgent)).toHaveLength(0);
  });

  it('delivers the agents plugin’s own events (agent.updated) through their catalog source', async () => {
    const own = await createAgent(kit.api);
    const target = hookPath('updated');
    await addWebhook(kit.api, own, { url: receiver.url + target, events: ['agent.updated'] });
    await kit.api.post(`/api/v1/agents/${own}/notes`).send({ content: 'Closed on Mondays' }).expect(200);
    const requests = await waitFor(() => receiver.of(target), (r) => r.some((req) => JSON.parse(req.body).data.changed.includes('notes')));
    const body = JSON.parse(requests.find((req) => JSON.parse(req.body).data.changed.includes('notes'))!.body);
    expect(body).toMatchObject({ type: 'agent.updated', data: { agent_uuid: own } });
  });

  it('retries after 500s on the schedule and succeeds, with the same id and body', async () => {
    const target = hookPath('flaky');
    receiver.statuses[target] = [500, 503];
    const webhook = await addWebhook(kit.api, agent, { url: receiver.url + target, events: [PING] });
    await ping(kit.api, agent, 4);
    const requests = await waitFor(() => receiver.of(target), (r) => r.length >= 3);
    expect(new Set(requests.map((r) => r.headers['webhook-id'])).size).toBe(1);
    expect(new Set(requests.map((r) => r.body)).size).toBe(1);
    // Each wait is at least the schedule's, less its 10% jitter.
    expect(requests[1].at - requests[0].at).toBeGreaterThanOrEqual(150 * 0.9 - 5);
    expect(requests[2].at - requests[1].at).toBeGreaterThanOrEqual(300 * 0.9 - 5);
    const [row] = await waitFor(() => deliveries(kit.api, agent, webhook), (rows) => rows[0]?.status === 'succeeded');
    expect(row).toMatchObject({ attempts: 3, last_status_code: 200 });
  });

  it('fails after the last retry, and a manual retry sends it again', async () => {
    const target = hookPath('down');
    receiver.statuses[target] = [500, 500, 500];
    const webhook = await addWebhook(kit.api, agent, { url: receiver.url + target, events: [PING] });
    await ping(kit.api, agent, 5);
    const [failed] = await waitFor(() => deliveries(kit.api, agent, webhook), (rows) => rows[0]?.status === 'failed');
    expect(failed).toMatchObject({ attempts: 3, last_status_code: 500, last_error: 'The endpoint answered 500', next_attempt_at: null });
    expect(receiver.of(target)).toHaveLength(3);

    const res = await kit.api.post(`/api/v1/agents/${agent}/webhooks/${webhook}/deliveries/${failed.uuid}/retry`).expect(202);
    expect(res.body.data).toMatchObject({ uuid: failed.uuid, status: 'pending' });
    const [row] = await waitFor(() => deliveries(kit.api, agent, webhook), (rows) => rows[0]?.status === 'succeeded');
    expect(row).toMatchObject({ attempts: 4, last_status_code: 200, last_error: null });
    expect(receiver.of(target)).toHaveLength(4);
  });

  it('stops the deliveries of a webhook deactivated meanwhile', async () => {
    // The endpoint holds its first answer (a 500) until the webhook is deactivated, so the
    // retry is scheduled only after the change committed: deactivating after the 500 raced
    // the 150 ms retry timer, and a busy machine let the retry through first.
    const endpoint = await startHeldEndpoint(500);
    try {
      const webhook = await addWebhook(kit.api, agent, { url: endpoint.url, events: [PING] });
      await ping(kit.api, agent, 6);
      await endpoint.firstArrived;
      await kit.api.patch(`/api/v1/agents/${agent}/webhooks/${webhook}`).send({ is_active: false }).expect(200);
      endpoint.release();
      const [row] = await waitFor(() => deliveries(kit.api, agent, webhook), (rows) => rows[0]?.status === 'failed');
      expect(row.last_error).toMatch(/deleted, deactivated or no longer subscribes/);
      expect(row.attempts).toBe(1);
      expect(endpoint.requests).toBe(1);
    } finally {
      await endpoint.close();
    }
  });

  it('fails a delivery to a URL the egress policy refuses, saying so', async () => {
    const webhook = await addWebhook(kit.api, agent, { url: 'http://10.255.255.1/hook', events: [PING] });
    await ping(kit.api, agent, 7);
    const [row] = await waitFor(() => deliveries(kit.api, agent, webhook), (rows) => rows[0]?.status === 'failed');
    expect(row).toMatchObject({ attempts: 1, last_status_code: null });
    expect(row.last_error).toMatch(/refused by the egress policy/);
  });

  it('answers 404 for another agent’s webhook or delivery and for unknown ids', async () => {
    const target = hookPath('scoped');
    const webhook = await addWebhook(kit.api, agent, { url: receiver.url + target, events: [PING] });
    await ping(kit.api, agent, 8);
    const [row] = await waitFor(() => deliveries(kit.api, agent, webhook), (rows) => rows[0]?.status === 'succeeded');
    const stranger = await createAgent(kit.api);
    await kit.api.get(`/api/v1/agents/${stranger}/webhooks/${webhook}/deliveries`).expect(404);
    await kit.api.post(`/api/v1/agents/${stranger}/webhooks/${webhook}/deliveries/${row.uuid}/retry`).expect(404);
    await kit.api.post(`/api/v1/agents/${agent}/webhooks/${webhook}/deliveries/${crypto.randomUUID()}/retry`).expect(404);
  });
});

/**
 * An endpoint that answers its first request with `firstStatus` only once the test calls
 * `release()` (later requests: 200 at once), so the test acts while that attempt is in flight.
 */
async function startHeldEndpoint(firstStatus: number) {
  let requests = 0;
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let arrived!: () => void;
  const firstArrived = new Promise<void>((resolve) => (arrived = resolve));
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      requests += 1;
      if (requests > 1) return res.end('ok');
      arrived();
      void released.then(() => {
        res.statusCode = firstStatus;
        res.end('held');
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/held`,
    firstArrived,
    release,
    get requests() {
      return requests;
    },
    close: () =>
      new Promise<void>((resolve) => {
        release();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

describe('agent webhook delivery routes across tenants', () => {
  let kit: TestKernel;
  beforeAll(async () => {
    kit = await startTestKernel({ plugins: PLUGINS });
  });
  afterAll(() => kit?.stop());

  it('answer 404 for another tenant’s agent, webhook and delivery', async () => {
    const results = await sweepCrossTenant(kit, { ...agentFixtures, ...webhookFixtures }, { only: (route) => route.path.includes('/deliveries') });
    expect(results.filter((result) => result.problem)).toEqual([]);
    expect(results.filter((result) => !result.skipped).length).toBeGreaterThanOrEqual(2);
  });
});
