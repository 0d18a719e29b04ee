import crypto from 'node:crypto';
import { startTestKernel, type TestKernel } from '../../../core/testing';
import { PING, PLUGINS, addWebhook, createAgent, deliveries, ping, pingProbe, startReceiver, waitFor, type Receiver } from './webhook-test-kit';

/**
 * The manual retry (`POST …/deliveries/{uuid}/retry`): a failed delivery is sent again,
 * a succeeded one is refused with 409 and nothing reaches the endpoint.
 */
const SCHEDULE = '100,200';

let kit: TestKernel;
let receiver: Receiver;
let agent: string;
const hookPath = (name: string) => `/${name}-${crypto.randomBytes(3).toString('hex')}`;
const retry = (webhook: string, delivery: string) => kit.api.post(`/api/v1/agents/${agent}/webhooks/${webhook}/deliveries/${delivery}/retry`);

beforeAll(async () => {
  receiver = await startReceiver();
  kit = await startTestKernel({ plugins: [...PLUGINS, pingProbe], config: { 'agent-webhooks': { retrySchedule: SCHEDULE } } });
  agent = await createAgent(kit.api);
});
afterAll(async () => {
  await kit?.stop();
  await receiver?.close();
});

it('a failed delivery retried is sent again, with its id and body, and then succeeds', async () => {
  const target = hookPath('down');
  receiver.statuses[target] = [500, 500, 500];
  const webhook = await addWebhook(kit.api, agent, { url: receiver.url + target, events: [PING] });
  await ping(kit.api, agent, 1);
  const [failed] = await waitFor(() => deliveries(kit.api, agent, webhook), (rows) => rows[0]?.status === 'failed');
  expect(receiver.of(target)).toHaveLength(3);

  const res = await retry(webhook, failed.uuid).expect(202);
  expect(res.body.data).toMatchObject({ uuid: failed.uuid, status: 'pending', attempts: 3 });
  const [row] = await waitFor(() => deliveries(kit.api, agent, webhook), (rows) => rows[0]?.status === 'succeeded');
  expect(row).toMatchObject({ attempts: 4, last_status_code: 200, last_error: null });
  const sent = receiver.of(target);
  expect(sent).toHaveLength(4);
  expect(sent[3].headers['webhook-id']).toBe(failed.uuid);
  expect(sent[3].body).toBe(sent[0].body);
});

it('a succeeded delivery is refused with 409, sent nowhere and left as it was', async () => {
  const target = hookPath('up');
  const webhook = await addWebhook(kit.api, agent, { url: receiver.url + target, events: [PING] });
  await ping(kit.api, agent, 2);
  const [done] = await waitFor(() => deliveries(kit.api, agent, webhook), (rows) => rows[0]?.status === 'succeeded');
  expect(receiver.of(target)).toHaveLength(1);

  const res = await retry(webhook, done.uuid).expect(409);
  expect(res.body).toEqual({ success: false, message: expect.stringContaining('already succeeded'), data: [] });

  // Anything the retry had queued would be on its way by now: the outbox is empty, and a
  // later event to the same endpoint arrives alone.
  await kit.outboxDrained();
  await ping(kit.api, agent, 3);
  await waitFor(() => receiver.of(target), (sent) => sent.length >= 2);
  await new Promise((resolve) => setTimeout(resolve, 300));
  const sent = receiver.of(target);
  expect(sent).toHaveLength(2);
  expect(sent.map((request) => JSON.parse(request.body).data.n)).toEqual([2, 3]);
  const rows = await deliveries(kit.api, agent, webhook);
  expect(rows.find((row) => row.uuid === done.uuid)).toEqual(done);
});
