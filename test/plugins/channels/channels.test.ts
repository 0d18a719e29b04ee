import request from 'supertest';
import { waitFor, type ApiClient, type FakeLlmServer, type TestKernel } from '../../../core/testing';
import { activeAgent, isGuardCheck } from '../runtime/runtime-test-kit';
import { FAKE_KEY as KEY, FAKE_SECRET as SECRET, startFakeChannelKit, type FakeChannelKit } from './fake-channel-kit';
import { FAKE_PROVIDER, sign, type FakeVendor } from './fake-provider';

/** Replies go out as soon as the turn answers: no reading, typing or jitter time. */
const UNPACED = {
  text: {
    timing_and_delay: { base_delay: 0, pause_before_reply: 0, typing_speed_wpm_min: 1000, typing_speed_wpm_max: 1000, delay_jitter_min: 0, delay_jitter_max: 0 },
  },
};

let fake: FakeChannelKit;
let model: FakeLlmServer;
let vendor: FakeVendor;
let kit: TestKernel;

beforeAll(async () => {
  fake = await startFakeChannelKit({ sendBackoffMs: 50 });
  ({ model, vendor, kit } = fake);
});
afterAll(() => fake?.stop());

const hook = (channelUuid: string, body: unknown, secret?: string) => fake.hook(channelUuid, body, secret);

async function connection(api: ApiClient = kit.api): Promise<string> {
  const created = await api.post('/api/v1/channel-connections').send({ provider: FAKE_PROVIDER, label: 'Fake line', credentials: { api_key: KEY, signing_secret: SECRET } }).expect(201);
  return created.body.data.uuid;
}

/** An active agent with an SMS channel on a new connection. */
async function agentOnChannel(api: ApiClient = kit.api, connectionUuid?: string): Promise<{ agent: string; channel: string; connection: string }> {
  const conn = connectionUuid ?? (await connection(api));
  const agent = await activeAgent(api, { settings: UNPACED });
  const added = await api.post(`/api/v1/agents/${agent}/channels`).send({ type: 'sms', name: 'SMS line', config: { connection_uuid: conn } });
  expect([200, 201]).toContain(added.status);
  const channel = (added.body.data.channels ?? [added.body.data]).find((c: any) => c.type === 'sms').uuid as string;
  // The channel takes messages as soon as it is saved.
  await hook(channel, {}).expect(200);
  return { agent, channel, connection: conn };
}

/**
 * Until work that should not happen would have shown (a turn, a send): those are bus consumers, and on the
 * in-process bus a message leaves the outbox only once handled. The outbox never drains whole here (each
 * conversation's session keeps a delayed idle timer in it): none due within a second (a send's backoff) is left.
 */
const settle = () =>
  waitFor(async () => (await kit.kernel.orm.em.fork().getConnection().execute(`select count(*)::int as n from bus_outbox where due_at <= now() + interval '1 second'`))[0].n as number, (n) => n === 0);

const repliesTo = (to: string) => vendor.requests.filter((r) => r.path === '/messages' && r.body.to === to);
const replyCalls = () => model.requests.filter((r) => !isGuardCheck(r));

async function conversationsOf(agent: string): Promise<any[]> {
  return (await kit.api.get(`/api/v1/conversations?agent_uuid=${agent}`).expect(200)).body.data.items;
}
async function messagesOf(conversation: string): Promise<any[]> {
  return (await kit.api.get(`/api/v1/conversations/${conversation}/messages?per_page=100`).expect(200)).body.data.items;
}
async function agentMessage(agent: string, done: (message: any) => boolean): Promise<any> {
  const found = await waitFor(
    async () => {
      for (const conversation of await conversationsOf(agent)) {
        const hit = (await messagesOf(conversation.uuid)).find((m) => m.sender === 'agent' && m.message_type === 'text' && done(m));
        if (hit) return hit;
      }
      return null;
    },
    (hit) => hit !== null,
  );
  return found;
}

describe('an inbound message gets the agent’s reply through the provider', () => {
  it('verifies, runs one turn, sends the reply (typing first) and records it sent', async () => {
    const { agent, channel } = await agentOnChannel();
    model.reply((req) => (isGuardCheck(req) ? { json: { rule_uuid: null } } : { content: 'We open at nine.' }));
    const acked = await hook(channel, { messages: [{ id: 'in-1', from: '+34600000001', text: 'When do you open?', name: 'Ana' }] }).expect(200);
    expect(acked.text).toBe('OK');
    expect(acked.headers['content-type']).toMatch(/^text\/plain/);

    const [sent] = await waitFor(() => repliesTo('+34600000001'), (found) => found.length === 1);
    expect(sent.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(sent.body).toMatchObject({ text: 'We open at nine.', status_callback: expect.stringMatching(new RegExp(`/hooks/channels/${channel}$`)) });
    const typing = vendor.requests.find((r) => r.path === '/typing' && r.body.to === '+34600000001');
    expect(typing).toBeDefined();
    expect(typing!.at).toBeLessThanOrEqual(sent.at);

    const reply = await agentMessage(agent, (m) => m.delivery_status === 'sent');
    expect(reply).toMatchObject({ content: 'We open at nine.', channel: 'sms', delivery_status: 'sent', delivery_error: null, message_uuid: sent.body.idempotency_key });
    const [conversation] = await conversationsOf(agent);
    const messages = await messagesOf(conversation.uuid);
    expect(messages.find((m) => m.sender === 'customer')).toMatchObject({ content: 'When do you open?', delivery_status: null });

    // The same customer writing again continues the same conversation.
    model.reply((req) => (isGuardCheck(req) ? { json: { rule_uuid: null } } : { content: 'Yes, on Saturdays too.' }));
    await hook(channel, { messages: [{ id: 'in-2', from: '+34600000001', text: 'Saturdays?' }] }).expect(200);
    await waitFor(() => repliesTo('+34600000001'), (found) => found.length === 2);
    expect(await conversationsOf(agent)).toHaveLength(1);
  });

  it('refuses a bad signature with 401 and records nothing', async () => {
    const { agent, channel } = await agentOnChannel();
    const calls = model.requests.length;
    const sends = vendor.requests.length;
    const body = { messages: [{ id: 'forged-1', from: '+34600000002', text: 'Hi' }] };
    await hook(channel, body, 'not-the-secret').expect(401);
    // A body changed after it was signed.
    const signed = sign(SECRET, JSON.stringify(body));
    await request(kit.url)
      .post(`/hooks/channels/${channel}`)
      .set('content-type', 'application/json')
      .set('x-fake-signature', signed)
      .send(JSON.stringify({ ...body, messages: [{ ...body.messages[0], text: 'Hi!' }] }))
      .expect(401);
    await request(kit.url).post(`/hooks/channels/${channel}`).set('content-type', 'application/json').send(JSON.stringify(body)).expect(401);
    await settle();
    const rows = await kit.kernel.orm.em.fork().getConnection().execute(`select count(*)::int as n from channel_inbound_messages where channel_uuid = ?`, [channel]);
    expect(rows[0].n).toBe(0);
    expect(await conversationsOf(agent)).toHaveLength(0);
    expect(model.requests.length).toBe(calls);
    expect(vendor.requests.length).toBe(sends);
  });

  it('handles a provider’s retry of the same message id once', async () => {
    const { agent, channel } = await agentOnChannel();
    model.reply((req) => (isGuardCheck(req) ? { json: { rule_uuid: null } } : { content: 'Hello once.' }));
    const turnsBefore = replyCalls().length;
    const message = { messages: [{ id: 'dup-1', from: '+34600000003', text: 'Hello?' }] };
    await hook(channel, message).expect(200);
    await hook(channel, message).expect(200);
    await waitFor(() => repliesTo('+34600000003'), (found) => found.length >= 1);
    await settle();
    await hook(channel, message).expect(200);
    await settle();
    expect(replyCalls().length - turnsBefore).toBe(1);
    expect(repliesTo('+34600000003')).toHaveLength(1);
    const [conversation] = await conversationsOf(agent);
    expect((await messagesOf(conversation.uuid)).filter((m) => m.sender === 'customer')).toHaveLength(1);
  });

  it('records a media-only message with its type and runs no turn for it', async () => {
    const { agent, channel } = await agentOnChannel();
    const turnsBefore = replyCalls().length;
    await hook(channel, { messages: [{ id: 'media-1', from: '+34600000004', text: null, media: [{ type: 'audio', url: 'https://media.example/voice.ogg' }] }] }).expect(200);
    const [conversation] = await waitFor(() => conversationsOf(agent), (found) => found.length === 1);
    const messages = await waitFor(() => messagesOf(conversation.uuid), (found) => found.length === 1);
    expect(messages[0]).toMatchObject({ sender: 'customer', message_type: 'audio', content: 'https://media.example/voice.ogg', delivery_status: null });
    await settle();
    expect(replyCalls().length).toBe(turnsBefore);
  });

  it('reads a form-encoded webhook, its signature over the bytes as sent', async () => {
    const { channel } = await agentOnChannel();
    model.reply((req) => (isGuardCheck(req) ? { json: { rule_uuid: null } } : { content: 'Form received.' }));
    const form = 'id=form-1&from=%2B34600000012&text=Hello+from+a+form';
    await request(kit.url).post(`/hooks/channels/${channel}`).set('content-type', 'application/x-www-form-urlencoded').set('x-fake-signature', sign(SECRET, form)).send(form).expect(200);
    const [sent] = await waitFor(() => repliesTo('+34600000012'), (found) => found.length === 1);
    expect(sent.body.text).toBe('Form received.');
    const [call] = replyCalls().slice(-1);
    expect(JSON.stringify(call.body.messages)).toContain('Hello from a form');
    await request(kit.url)
      .post(`/hooks/channels/${channel}`)
      .set('content-type', 'application/x-www-form-urlencoded')
      .set('x-fake-signature', sign(SECRET, form))
      .send(form.replace('Hello', 'Hallo'))
      .expect(401);
  });

  it('answers the provider’s GET handshake through the driver, else 404', async () => {
    const { channel } = await agentOnChannel();
    const answered = await request(kit.url).get(`/hooks/channels/${channel}?verify=${SECRET}&challenge=12345`).expect(200);
    expect(answered.text).toBe('12345');
    await request(kit.url).get(`/hooks/channels/${channel}?verify=wrong&challenge=12345`).expect(404);
    await request(kit.url).get(`/hooks/channels/0190d5c2-0000-7000-8000-00000000dead`).expect(404);
  });
});

describe('the thread of a customer address', () => {
  it('a closed conversation gives way to a new one; a transferred one gets the message with no turn', async () => {
    const { agent, channel } = await agentOnChannel();
    model.reply((req) => (isGuardCheck(req) ? { json: { rule_uuid: null } } : { content: 'First answer.' }));
    await hook(channel, { messages: [{ id: 'th-1', from: '+34600000010', text: 'Hi' }] }).expect(200);
    await waitFor(() => repliesTo('+34600000010'), (found) => found.length === 1);
    const [first] = await conversationsOf(agent);
    await kit.api.post(`/api/v1/conversations/${first.uuid}/close`).expect(200);

    model.reply((req) => (isGuardCheck(req) ? { json: { rule_uuid: null } } : { content: 'Second answer.' }));
    await hook(channel, { messages: [{ id: 'th-2', from: '+34600000010', text: 'Me again' }] }).expect(200);
    await waitFor(() => repliesTo('+34600000010'), (found) => found.length === 2);
    const conversations = await conversationsOf(agent);
    expect(conversations).toHaveLength(2);
    const second = conversations.find((c) => c.uuid !== first.uuid);
    expect(second).toMatchObject({ status: 'open', channel: 'sms' });

    // A person took the conversation over (a routing rule's transfer).
    await kit.kernel.orm.em.fork().getConnection().execute(`update conversations set status = 'transferred' where uuid = ?`, [second.uuid]);
    const turnsBefore = replyCalls().length;
    await hook(channel, { messages: [{ id: 'th-3', from: '+34600000010', text: 'Hello, human?' }] }).expect(200);
    await waitFor(() => messagesOf(second.uuid), (found) => found.some((m) => m.content === 'Hello, human?'));
    await settle();
    expect(replyCalls().length).toBe(turnsBefore);
    expect(repliesTo('+34600000010')).toHaveLength(2);
  });

  it('two first messages of a new customer arriving at once open one conversation, both answered in it', async () => {
    const { agent, channel } = await agentOnChannel();
    const customer = '+34600000090';
    // A model slow enough that both turns are under way before either records anything.
    for (const content of ['One moment.', 'Still here.']) model.reply((req) => (isGuardCheck(req) ? { json: { rule_uuid: null } } : { content, delayMs: 300 }));
    await Promise.all([
      hook(channel, { messages: [{ id: 'race-1', from: customer, text: 'Hello?' }] }).expect(200),
      hook(channel, { messages: [{ id: 'race-2', from: customer, text: 'Anyone there?' }] }).expect(200),
    ]);
    await waitFor(() => repliesTo(customer), (found) => found.length === 2);
    const conversations = await conversationsOf(agent);
    expect(conversations).toHaveLength(1);
    expect(conversations[0].contact_uuid).not.toBeNull();
    const messages = await messagesOf(conversations[0].uuid);
    expect(messages.filter((m) => m.sender === 'customer').map((m) => m.content).sort()).toEqual(['Anyone there?', 'Hello?']);
    expect(messages.filter((m) => m.sender === 'agent' && m.message_type === 'text')).toHaveLength(2);
    const threads = await kit.kernel.orm.em.fork().getConnection().execute('select conversation_uuid from channel_threads where channel_uuid = ? and address = ?', [channel, customer]);
    expect(threads).toEqual([{ conversation_uuid: conversations[0].uuid }]);
  });

  it('a channel whose connection’s driver cannot carry its type takes no messages', async () => {
    const conn = await connection();
    const agent = await activeAgent(kit.api, { settings: UNPACED });
    const added = await kit.api.post(`/api/v1/agents/${agent}/channels`).send({ type: 'social', name: 'Page', config: { connection_uuid: conn } });
    const channel = (added.body.data.channels ?? [added.body.data]).find((c: any) => c.type === 'social').uuid as string;
    await hook(channel, { messages: [{ id: 'wrong-type-1', from: '+34600000011', text: 'Hi' }] }).expect(404);
  });
});

describe('sending', () => {
  it('retries a 503 and a 429 (after its Retry-After), then records the message sent', async () => {
    const { agent, channel } = await agentOnChannel();
    vendor.sendAnswers.push({ status: 503, body: { error: 'busy' } }, { status: 429, body: { error: 'slow down' }, headers: { 'retry-after': '1' } });
    model.reply((req) => (isGuardCheck(req) ? { json: { rule_uuid: null } } : { content: 'Third time lucky.' }));
    await hook(channel, { messages: [{ id: 'retry-1', from: '+34600000005', text: 'Hi' }] }).expect(200);
    const tries = await waitFor(() => repliesTo('+34600000005'), (found) => found.length === 3);
    expect(new Set(tries.map((t) => t.body.idempotency_key)).size).toBe(1);
    expect(tries[2].at - tries[1].at).toBeGreaterThanOrEqual(950);
    const reply = await agentMessage(agent, (m) => m.delivery_status === 'sent');
    expect(reply.message_uuid).toBe(tries[0].body.idempotency_key);
  });

  it('marks a message the provider refuses failed, with its reason, without retrying', async () => {
    const { agent, channel } = await agentOnChannel();
    vendor.sendAnswers.push({ status: 400, body: { error: 'invalid destination number' } });
    model.reply((req) => (isGuardCheck(req) ? { json: { rule_uuid: null } } : { content: 'You will not get this.' }));
    await hook(channel, { messages: [{ id: 'refused-1', from: '+34600000006', text: 'Hi' }] }).expect(200);
    const reply = await agentMessage(agent, (m) => m.delivery_status === 'failed');
    expect(reply.delivery_error).toBe('invalid destination number');
    await settle();
    expect(repliesTo('+34600000006')).toHaveLength(1);
  });
});

describe('delivery receipts', () => {
  it('move a message’s delivery_status forward only', async () => {
    const { agent, channel } = await agentOnChannel();
    model.reply((req) => (isGuardCheck(req) ? { json: { rule_uuid: null } } : { content: 'Receipt me.' }));
    await hook(channel, { messages: [{ id: 'rc-1', from: '+34600000007', text: 'Hi' }] }).expect(200);
    const [sent] = await waitFor(() => repliesTo('+34600000007'), (found) => found.length === 1);
    const reply = await agentMessage(agent, (m) => m.delivery_status === 'sent');
    const externalId = `fk-${sent.body.idempotency_key}`;

    await hook(channel, { receipts: [{ id: externalId, status: 'read' }] }).expect(200);
    await agentMessage(agent, (m) => m.message_uuid === reply.message_uuid && m.delivery_status === 'read');
    // A late `delivered` leaves it read.
    await hook(channel, { receipts: [{ id: externalId, status: 'delivered' }] }).expect(200);
    await settle();
    const after = await agentMessage(agent, (m) => m.message_uuid === reply.message_uuid);
    expect(after.delivery_status).toBe('read');
  });

  it('record a provider’s failure with its reason', async () => {
    const { agent, channel } = await agentOnChannel();
    model.reply((req) => (isGuardCheck(req) ? { json: { rule_uuid: null } } : { content: 'Lost on the way.' }));
    await hook(channel, { messages: [{ id: 'rc-2', from: '+34600000008', text: 'Hi' }] }).expect(200);
    const sent = await agentMessage(agent, (m) => m.delivery_status === 'sent');
    await hook(channel, { receipts: [{ id: `fk-${sent.message_uuid}`, status: 'failed', reason: 'unreachable handset' }] }).expect(200);
    const failed = await agentMessage(agent, (m) => m.delivery_status === 'failed');
    expect(failed.delivery_error).toBe('unreachable handset');
  });
});
