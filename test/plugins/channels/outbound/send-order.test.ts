import { waitFor, type FakeLlmServer, type TestKernel } from '../../../../core/testing';
import { activeAgent, isGuardCheck } from '../../runtime/runtime-test-kit';
import { FAKE_KEY, FAKE_SECRET, startFakeChannelKit, type FakeChannelKit } from '../fake-channel-kit';
import { FAKE_PROVIDER, type FakeVendor, type VendorRequest } from '../fake-provider';

/** A retried send waits this long: far longer than the pacing puts between two lines, so a line sent regardless of order would overtake it. */
const BACKOFF_MS = 1000;
/** How long a line waits at most for an earlier unsettled one: well past the retries here. */
const WAIT_LIMIT_MS = 3000;
/**
 * Each line 200 ms of jitter (and 60 ms a word) after the one before: the second line of a
 * reply is due about 260 ms after the first, well inside the first one's retry backoff.
 * `split_messages`: a reply's paragraphs are its lines.
 */
const PACED_LINES = {
  text: {
    timing_and_delay: { base_delay: 0, pause_before_reply: 0, typing_speed_wpm_min: 1000, typing_speed_wpm_max: 1000, delay_jitter_min: 0.2, delay_jitter_max: 0.2 },
    typing_simulation: { show_typing_indicator: false },
    advanced: { split_messages: true },
  },
};

let fake: FakeChannelKit;
let model: FakeLlmServer;
let vendor: FakeVendor;
let kit: TestKernel;

beforeAll(async () => {
  fake = await startFakeChannelKit({ sendBackoffMs: BACKOFF_MS, sendWaitLimitMs: WAIT_LIMIT_MS });
  ({ model, vendor, kit } = fake);
});
afterAll(() => fake?.stop());

const hook = (channelUuid: string, body: unknown) => fake.hook(channelUuid, body);

/** An active agent whose replies go out as paced lines, on an SMS channel of a new fake-provider connection. */
async function agentOnChannel(): Promise<{ agent: string; channel: string }> {
  const created = await kit.api.post('/api/v1/channel-connections').send({ provider: FAKE_PROVIDER, label: 'Fake line', credentials: { api_key: FAKE_KEY, signing_secret: FAKE_SECRET } }).expect(201);
  const agent = await activeAgent(kit.api, { settings: PACED_LINES });
  const added = await kit.api.post(`/api/v1/agents/${agent}/channels`).send({ type: 'sms', name: 'SMS line', config: { connection_uuid: created.body.data.uuid } });
  expect([200, 201]).toContain(added.status);
  const channel = (added.body.data.channels ?? [added.body.data]).find((c: any) => c.type === 'sms').uuid as string;
  await hook(channel, {}).expect(200);
  return { agent, channel };
}

const answer = (content: string) => model.reply((req) => (isGuardCheck(req) ? { json: { rule_uuid: null } } : { content }));
const sendsTo = (to: string): VendorRequest[] => vendor.requests.filter((r) => r.path === '/messages' && r.body.to === to);

/** The agent's text messages of the agent's conversations, oldest first, once `done` says they are all there. */
async function agentLines(agent: string, done: (lines: any[]) => boolean): Promise<any[]> {
  return waitFor(
    async () => {
      const conversations = (await kit.api.get(`/api/v1/conversations?agent_uuid=${agent}`).expect(200)).body.data.items;
      const lines: any[] = [];
      for (const conversation of conversations) {
        const messages = (await kit.api.get(`/api/v1/conversations/${conversation.uuid}/messages?per_page=100`).expect(200)).body.data.items;
        lines.push(...messages.filter((m: any) => m.sender === 'agent' && m.message_type === 'text'));
      }
      return lines;
    },
    done,
  );
}

/** The deliveries of a channel as the thread's order sees them. */
async function deliveries(channel: string): Promise<Array<{ uuid: string; recipient: string; settled: boolean; held: boolean }>> {
  return kit.kernel.orm.em
    .fork()
    .getConnection()
    .execute(`select uuid, recipient, settled_at is not null as settled, held_payload is not null as held from channel_deliveries where channel_uuid = ? order by seq`, [channel]);
}

describe('a thread gets the agent’s messages in the order they were written', () => {
  it('a line queued after one the provider refused retryably goes out after that one’s retry', async () => {
    const { agent, channel } = await agentOnChannel();
    const customer = '+34600000101';
    vendor.sendAnswers.push({ status: 429, body: { error: 'slow down' } });
    answer('First line.\n\nSecond line.');
    await hook(channel, { messages: [{ id: 'order-1', from: customer, text: 'Hi' }] }).expect(200);

    const lines = await agentLines(agent, (found) => found.length === 2 && found.every((m) => m.delivery_status === 'sent'));
    const [first, second] = [lines.find((m) => m.content === 'First line.'), lines.find((m) => m.content === 'Second line.')];
    const sends = sendsTo(customer);
    expect(sends.map((s) => s.body.text)).toEqual(['First line.', 'First line.', 'Second line.']);
    expect(sends.map((s) => s.body.idempotency_key)).toEqual([first.message_uuid, first.message_uuid, second.message_uuid]);
    // The first line's retry came after its backoff; the second line, due long before, waited for it.
    expect(sends[1].at - sends[0].at).toBeGreaterThanOrEqual(BACKOFF_MS - 50);
    expect(await deliveries(channel)).toEqual([
      { uuid: first.message_uuid, recipient: customer, settled: true, held: false },
      { uuid: second.message_uuid, recipient: customer, settled: true, held: false },
    ]);
  });

  it('a line after one that failed for good goes out once that one failed', async () => {
    const { agent, channel } = await agentOnChannel();
    const customer = '+34600000102';
    // Retried once (the second line is held meanwhile), then refused: the first line is failed, and the second goes.
    vendor.sendAnswers.push({ status: 503, body: { error: 'busy' } }, { status: 400, body: { error: 'invalid destination number' } });
    answer('Doomed line.\n\nLine after it.');
    await hook(channel, { messages: [{ id: 'order-2', from: customer, text: 'Hi' }] }).expect(200);

    const lines = await agentLines(agent, (found) => found.length === 2 && found.every((m) => ['sent', 'failed'].includes(m.delivery_status)));
    expect(lines.find((m) => m.content === 'Doomed line.')).toMatchObject({ delivery_status: 'failed', delivery_error: 'invalid destination number' });
    expect(lines.find((m) => m.content === 'Line after it.')).toMatchObject({ delivery_status: 'sent' });
    expect(sendsTo(customer).map((s) => s.body.text)).toEqual(['Doomed line.', 'Doomed line.', 'Line after it.']);
    expect((await deliveries(channel)).every((row) => row.settled && !row.held)).toBe(true);
  });

  it('a later turn’s reply to the same customer waits for the earlier turn’s retried one', async () => {
    const { agent, channel } = await agentOnChannel();
    const customer = '+34600000103';
    vendor.sendAnswers.push({ status: 503, body: { error: 'busy' } });
    answer('Answer to the first.');
    await hook(channel, { messages: [{ id: 'order-3a', from: customer, text: 'First question' }] }).expect(200);
    // The first reply was refused and waits for its retry when the customer writes again.
    await waitFor(() => sendsTo(customer), (found) => found.length === 1);
    answer('Answer to the second.');
    await hook(channel, { messages: [{ id: 'order-3b', from: customer, text: 'Second question' }] }).expect(200);

    await agentLines(agent, (found) => found.length === 2 && found.every((m) => m.delivery_status === 'sent'));
    expect(sendsTo(customer).map((s) => s.body.text)).toEqual(['Answer to the first.', 'Answer to the first.', 'Answer to the second.']);
  });

  it('a line behind one whose send will never settle it (dead-lettered, say) goes once it has waited the limit', async () => {
    const { agent, channel } = await agentOnChannel();
    const customer = '+34600000104';
    // An earlier message to the customer whose send is gone: its delivery stays unsettled.
    const stuck = '0190ffff-0000-7000-8000-000000000104';
    await kit.kernel.orm.em
      .fork()
      .getConnection()
      .execute(`insert into channel_deliveries (uuid, tenant_uuid, created_at, updated_at, channel_uuid, recipient) values (?, ?, now(), now(), ?, ?)`, [stuck, kit.tenant.uuid, channel, customer]);
    answer('Still here.');
    const asked = Date.now();
    await hook(channel, { messages: [{ id: 'order-4', from: customer, text: 'Hello?' }] }).expect(200);

    const [line] = await agentLines(agent, (found) => found.length === 1 && found[0].delivery_status === 'sent');
    expect(sendsTo(customer).map((s) => s.body.idempotency_key)).toEqual([line.message_uuid]);
    // Parked behind the stuck one until the limit, not sent at once.
    expect(sendsTo(customer)[0].at - asked).toBeGreaterThanOrEqual(WAIT_LIMIT_MS);
    expect(await deliveries(channel)).toEqual([
      { uuid: stuck, recipient: customer, settled: false, held: false },
      { uuid: line.message_uuid, recipient: customer, settled: true, held: false },
    ]);
  });
});
