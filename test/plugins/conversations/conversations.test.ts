import { randomUUID } from 'node:crypto';
import { startTestKernel, type TestKernel } from '../../../core/testing';
import { sweepCrossTenant } from '../../../core/testing/cross-tenant-sweep';
import { fixtures as agentFixtures } from '../../../plugins/agents/testing';
import { fixtures as conversationFixtures } from '../../../plugins/conversations/testing';
import {
  AGENTS,
  CONVERSATIONS,
  ISO,
  UUID,
  conversationEventProbe,
  createAgent,
  eventsOf,
  eventually,
  openConversation,
  pendingTimers,
  published,
  readSession,
  refused,
  say,
  sleep,
} from './conversation-test-helpers';

// No sessionization provider here: every agent gets the plugin's configured default (sliding, 45 minutes).
let kit: TestKernel;

beforeAll(async () => {
  kit = await startTestKernel({ plugins: [AGENTS, CONVERSATIONS, conversationEventProbe], config: { conversations: { defaultSessionTimeoutMinutes: 45 } } });
});
afterAll(() => kit?.stop());

const NOT_FOUND = { success: false, message: 'Conversation not found', data: [] };

describe('POST /api/v1/conversations', () => {
  it('opens a conversation of an agent of the tenant, readable by uuid, and publishes conversation.opened', async () => {
    const agent = await createAgent(kit.api);
    const contact = randomUUID();
    const res = await kit.api
      .post('/api/v1/conversations')
      .send({ agent_uuid: agent, contact_uuid: contact, channel: 'sms', channel_label: 'SMS +34 600 000 000' })
      .expect(201);
    expect(Object.keys(res.body)).toEqual(['data']);
    const conversation = res.body.data;
    expect(conversation).toEqual({
      uuid: expect.stringMatching(UUID),
      agent_uuid: agent,
      contact_uuid: contact,
      channel: 'sms',
      channel_label: 'SMS +34 600 000 000',
      status: 'open',
      started_at: expect.stringMatching(ISO),
      ended_at: null,
      created_at: expect.stringMatching(ISO),
      updated_at: expect.stringMatching(ISO),
    });
    await kit.api.get(`/api/v1/conversations/${conversation.uuid}`).expect(200, { data: conversation });

    const [opened] = await eventually(() => eventsOf('conversation.opened', 'uuid', conversation.uuid).length > 0 && eventsOf('conversation.opened', 'uuid', conversation.uuid));
    const { created_at: _c, updated_at: _u, ...event } = conversation;
    expect(opened.payload).toEqual({ ...event, reason: null });
    expect(opened.tenant).toBe(kit.tenant.uuid);
  });

  it('contact and channel label are optional; read-only members sent back are ignored', async () => {
    const agent = await createAgent(kit.api);
    const res = await kit.api
      .post('/api/v1/conversations')
      .send({ agent_uuid: agent, channel: 'voice', uuid: randomUUID(), status: 'closed', ended_at: '2020-01-01T00:00:00.000Z' })
      .expect(201);
    expect(res.body.data).toMatchObject({ agent_uuid: agent, channel: 'voice', contact_uuid: null, channel_label: null, status: 'open', ended_at: null });
  });

  it('refuses a bad body with 422 at the member’s path, and creates nothing', async () => {
    const tenant = await kit.createTenant();
    const agent = await createAgent(tenant.api);
    const other = await createAgent(kit.api, 'Another tenant’s');
    await refused(tenant.api.post('/api/v1/conversations').send({ agent_uuid: agent, channel: 'fax' }), ['channel']);
    await refused(tenant.api.post('/api/v1/conversations').send({ agent_uuid: randomUUID(), channel: 'chat' }), ['agent_uuid']);
    await refused(tenant.api.post('/api/v1/conversations').send({ agent_uuid: other, channel: 'chat' }), ['agent_uuid']);
    await refused(tenant.api.post('/api/v1/conversations').send({ agent_uuid: 'not-a-uuid', channel: 'chat' }), ['agent_uuid']);
    await refused(tenant.api.post('/api/v1/conversations').send({ channel: 'chat' }), ['agent_uuid']);
    await refused(tenant.api.post('/api/v1/conversations').send({ agent_uuid: agent }), ['channel']);
    await refused(tenant.api.post('/api/v1/conversations').send({ agent_uuid: agent, channel: 'chat', contact_uuid: 'x' }), ['contact_uuid']);
    await refused(tenant.api.post('/api/v1/conversations').send({ agent_uuid: agent, channel: 'chat', channel_label: 'x'.repeat(201) }), ['channel_label']);
    const unknown = await refused(tenant.api.post('/api/v1/conversations').send({ agent_uuid: agent, channel: 'chat', topic: 'sales' }), ['topic']);
    expect(typeof unknown.message).toBe('string');
    await tenant.api.post('/api/v1/conversations').send({ agent_uuid: agent, channel: 'chat', channel_label: 'x'.repeat(200) }).expect(201);
    const list = await tenant.api.get('/api/v1/conversations').expect(200);
    expect(list.body.data.pagination.total).toBe(1);
  });

  it('takes every channel of the catalog', async () => {
    const agent = await createAgent(kit.api);
    for (const channel of ['voice', 'sms', 'chatapp', 'chatapp_call', 'social', 'chat']) {
      expect((await openConversation(kit.api, { agent_uuid: agent, channel })).channel).toBe(channel);
    }
  });
});

describe('GET /api/v1/conversations and /api/v1/conversations/{uuid}', () => {
  it('an unknown conversation, or another tenant’s, is 404 on every route', async () => {
    const stranger = await kit.createTenant();
    const theirs = await openConversation(stranger.api, { agent_uuid: await createAgent(stranger.api) });
    for (const uuid of [randomUUID(), theirs.uuid]) {
      await kit.api.get(`/api/v1/conversations/${uuid}`).expect(404, NOT_FOUND);
      await kit.api.post(`/api/v1/conversations/${uuid}/messages`).send({ sender: 'customer', content: 'hi' }).expect(404, NOT_FOUND);
      await kit.api.post(`/api/v1/conversations/${uuid}/close`).expect(404, NOT_FOUND);
    }
    await kit.api.get('/api/v1/conversations/not-a-uuid').expect(422);
    // The stranger's conversation was not touched.
    await stranger.api.get(`/api/v1/conversations/${theirs.uuid}`).expect(200, { data: theirs });
  });

  it('lists newest first, paged, with agent, channel, status and started_at range filters that combine', async () => {
    const tenant = await kit.createTenant();
    const ann = await createAgent(tenant.api, 'Ann');
    const bob = await createAgent(tenant.api, 'Bob');
    const made = [];
    for (const [agent, channel] of [[ann, 'chat'], [bob, 'sms'], [ann, 'voice'], [ann, 'chat'], [bob, 'chat']] as const) {
      made.push(await openConversation(tenant.api, { agent_uuid: agent, channel }));
      await sleep(5);
    }
    await tenant.api.post(`/api/v1/conversations/${made[3].uuid}/close`).expect(200);
    const uuids = async (query: string) => {
      const res = await tenant.api.get(`/api/v1/conversations${query}`).expect(200);
      expect(res.body.success).toBe(true);
      return res.body.data.items.map((c: { uuid: string }) => c.uuid);
    };
    const newestFirst = [...made].reverse().map((c) => c.uuid);

    expect(await uuids('')).toEqual(newestFirst);
    expect(await uuids(`?agent_uuid=${ann}`)).toEqual([made[3], made[2], made[0]].map((c) => c.uuid));
    expect(await uuids('?channel=chat')).toEqual([made[4], made[3], made[0]].map((c) => c.uuid));
    expect(await uuids(`?agent_uuid=${ann}&channel=chat`)).toEqual([made[3], made[0]].map((c) => c.uuid));
    expect(await uuids('?status=closed')).toEqual([made[3].uuid]);
    expect(await uuids('?status=open&channel=chat')).toEqual([made[4], made[0]].map((c) => c.uuid));
    expect(await uuids(`?agent_uuid=${randomUUID()}`)).toEqual([]);

    // from <= started_at < to
    const from = encodeURIComponent(made[1].started_at);
    const to = encodeURIComponent(made[3].started_at);
    expect(await uuids(`?from=${from}&to=${to}`)).toEqual([made[2], made[1]].map((c) => c.uuid));
    expect(await uuids(`?from=${from}`)).toEqual([made[4], made[3], made[2], made[1]].map((c) => c.uuid));
    expect(await uuids(`?to=${to}`)).toEqual([made[2], made[1], made[0]].map((c) => c.uuid));
    // Another offset, the same instant.
    const plusOne = new Date(made[1].started_at).toISOString().replace('Z', '+00:00');
    expect(await uuids(`?from=${encodeURIComponent(plusOne)}&channel=sms`)).toEqual([made[1].uuid]);

    const page = await tenant.api.get('/api/v1/conversations?per_page=2&page=2').expect(200);
    expect(page.body.data.items.map((c: { uuid: string }) => c.uuid)).toEqual(newestFirst.slice(2, 4));
    expect(page.body.data.pagination).toEqual({ current_page: 2, per_page: 2, total: 5, last_page: 3, from: 3, to: 4, has_more: true });
    expect(page.body.data.items[0]).toEqual(made[2]);
  });

  it('refuses bad filters with 422', async () => {
    await refused(kit.api.get('/api/v1/conversations?from=yesterday'), ['from']);
    await refused(kit.api.get('/api/v1/conversations?to=2024-13-45T00:00:00Z'), ['to']);
    await refused(kit.api.get('/api/v1/conversations?from=2024-02-01T00:00:00Z&to=2024-01-01T00:00:00Z'), ['to']);
    await refused(kit.api.get('/api/v1/conversations?from=2024-01-01T00:00:00Z&to=2024-01-01T00:00:00Z'), ['to']);
    await refused(kit.api.get('/api/v1/conversations?channel=fax'), ['channel']);
    await refused(kit.api.get('/api/v1/conversations?status=pending'), ['status']);
    await refused(kit.api.get('/api/v1/conversations?agent_uuid=nope'), ['agent_uuid']);
    await refused(kit.api.get('/api/v1/conversations?per_page=101'), ['per_page']);
    await refused(kit.api.get('/api/v1/conversations?colour=red'), ['colour']);
  });
});

describe('POST /api/v1/conversations/{uuid}/messages', () => {
  it('the first message opens a session; the message carries the conversation’s agent, contact and channel', async () => {
    const agent = await createAgent(kit.api);
    const contact = randomUUID();
    const conversation = await openConversation(kit.api, { agent_uuid: agent, contact_uuid: contact, channel: 'chatapp', channel_label: 'WhatsApp +34 600' });
    const res = await kit.api.post(`/api/v1/conversations/${conversation.uuid}/messages`).send({ sender: 'customer', content: 'Hello?' }).expect(201);
    expect(Object.keys(res.body)).toEqual(['data']);
    const message = res.body.data;
    expect(message).toEqual({
      message_uuid: expect.stringMatching(UUID),
      conversation_uuid: conversation.uuid,
      session_uuid: expect.stringMatching(UUID),
      contact_uuid: contact,
      agent_uuid: agent,
      channel: 'chatapp',
      channel_label: 'WhatsApp +34 600',
      sender: 'customer',
      message_type: 'text',
      content: 'Hello?',
      created_at: expect.stringMatching(ISO),
      // Only a message sent through a channel (the channels plugin) has a delivery.
      delivery_status: null,
      delivery_error: null,
    });

    const reply = await say(kit.api, conversation.uuid, 'agent', 'Hi! How can I help?');
    const event = await say(kit.api, conversation.uuid, 'system', 'transferred', { message_type: 'event' });
    const audio = await say(kit.api, conversation.uuid, 'customer', 'https://example.com/a.ogg', { message_type: 'audio' });
    for (const later of [reply, event, audio]) expect(later.session_uuid).toBe(message.session_uuid);
    expect([event.message_type, audio.message_type]).toEqual(['event', 'audio']);

    const session = await readSession(kit.api, message.session_uuid);
    expect(session).toEqual({
      uuid: message.session_uuid,
      conversation_uuid: conversation.uuid,
      agent_uuid: agent,
      contact_uuid: contact,
      channel: 'chatapp',
      status: 'open',
      started_at: message.created_at,
      ended_at: null,
      close_reason: null,
      message_count: 4,
      last_customer_message_at: audio.created_at,
      messages: [message, reply, event, audio],
    });
  });

  it('only customer messages move the idleness clock; a session opened by the agent starts without one', async () => {
    const conversation = await openConversation(kit.api, { agent_uuid: await createAgent(kit.api) });
    const first = await say(kit.api, conversation.uuid, 'agent', 'Welcome');
    expect(await readSession(kit.api, first.session_uuid)).toMatchObject({ last_customer_message_at: null, message_count: 1 });
    const customer = await say(kit.api, conversation.uuid, 'customer');
    await say(kit.api, conversation.uuid, 'agent');
    await say(kit.api, conversation.uuid, 'system');
    expect(await readSession(kit.api, first.session_uuid)).toMatchObject({ last_customer_message_at: customer.created_at, message_count: 4 });
  });

  it('arms the idle timer of the configured default (no provider): at the session’s start, then at each customer message only', async () => {
    const conversation = await openConversation(kit.api, { agent_uuid: await createAgent(kit.api) });
    const opening = await say(kit.api, conversation.uuid, 'agent');
    const session = opening.session_uuid;
    const [armed] = await pendingTimers(kit, session);
    const minutes45 = 45 * 60_000;
    expect(armed).toMatchObject({ payload: { session_uuid: session }, dedupe_key: `session:${session}` });
    expect(Math.abs(new Date(armed.due_at).getTime() - (new Date(opening.created_at).getTime() + minutes45))).toBeLessThan(2_000);

    await say(kit.api, conversation.uuid, 'agent');
    expect(await pendingTimers(kit, session)).toEqual([armed]);

    const customer = await say(kit.api, conversation.uuid, 'customer');
    const timers = await pendingTimers(kit, session);
    expect(timers).toHaveLength(1);
    expect(Math.abs(new Date(timers[0].due_at).getTime() - (new Date(customer.created_at).getTime() + minutes45))).toBeLessThan(2_000);
    expect(new Date(timers[0].due_at).getTime()).toBeGreaterThan(new Date(armed.due_at).getTime());
  });

  it('refuses a bad message with 422 and records nothing', async () => {
    const conversation = await openConversation(kit.api, { agent_uuid: await createAgent(kit.api) });
    const post = (body: object) => kit.api.post(`/api/v1/conversations/${conversation.uuid}/messages`).send(body);
    await refused(post({ sender: 'bot', content: 'x' }), ['sender']);
    await refused(post({ content: 'x' }), ['sender']);
    await refused(post({ sender: 'customer' }), ['content']);
    await refused(post({ sender: 'customer', content: '' }), ['content']);
    await refused(post({ sender: 'customer', content: 'x'.repeat(100_001) }), ['content']);
    await refused(post({ sender: 'customer', content: 'x', message_type: 'hologram' }), ['message_type']);
    await refused(post({ sender: 'customer', content: 'x', session_uuid: randomUUID() }), ['session_uuid']);
    const sessions = await kit.api.get(`/api/v1/sessions?conversation_uuid=${conversation.uuid}`).expect(200);
    expect(sessions.body.data.items).toEqual([]);
    expect((await say(kit.api, conversation.uuid, 'customer', 'x'.repeat(100_000))).content).toHaveLength(100_000);
  });

  it('concurrent first messages open exactly one session, and every message lands in it', async () => {
    const conversation = await openConversation(kit.api, { agent_uuid: await createAgent(kit.api) });
    const messages = await Promise.all(
      Array.from({ length: 10 }, (_, i) => say(kit.api, conversation.uuid, i % 2 === 0 ? 'customer' : 'agent', `message ${i}`)),
    );
    const sessionUuids = new Set(messages.map((m) => m.session_uuid));
    expect(sessionUuids.size).toBe(1);
    const sessions = await kit.api.get(`/api/v1/sessions?conversation_uuid=${conversation.uuid}`).expect(200);
    expect(sessions.body.data.items).toHaveLength(1);
    const session = await readSession(kit.api, [...sessionUuids][0]);
    expect(session.message_count).toBe(10);
    expect(session.messages.map((m: { content: string }) => m.content).sort()).toEqual(messages.map((m) => m.content).sort());
    expect(await pendingTimers(kit, session.uuid)).toHaveLength(1);
  });
});

describe('POST /api/v1/conversations/{uuid}/close', () => {
  it('closes the conversation and its open session (conversation_closed), publishing session.closed and conversation.closed once', async () => {
    const agent = await createAgent(kit.api);
    const conversation = await openConversation(kit.api, { agent_uuid: agent, channel: 'voice', contact_uuid: randomUUID() });
    const hello = await say(kit.api, conversation.uuid, 'customer', 'Hello');
    await say(kit.api, conversation.uuid, 'agent', 'Hi');

    const res = await kit.api.post(`/api/v1/conversations/${conversation.uuid}/close`).expect(200);
    const closed = res.body.data;
    expect(Object.keys(res.body)).toEqual(['data']);
    expect(closed).toEqual({ ...conversation, status: 'closed', ended_at: expect.stringMatching(ISO), updated_at: expect.stringMatching(ISO) });
    await kit.api.get(`/api/v1/conversations/${conversation.uuid}`).expect(200, { data: closed });

    const session = await readSession(kit.api, hello.session_uuid);
    expect(session).toMatchObject({ status: 'closed', close_reason: 'conversation_closed', ended_at: closed.ended_at, message_count: 2 });

    await eventually(() => eventsOf('conversation.closed', 'uuid', conversation.uuid).length > 0);
    expect(eventsOf('session.closed', 'session_uuid', session.uuid).map((m) => m.payload)).toEqual([
      {
        session_uuid: session.uuid,
        conversation_uuid: conversation.uuid,
        agent_uuid: agent,
        contact_uuid: conversation.contact_uuid,
        channel: 'voice',
        started_at: session.started_at,
        ended_at: closed.ended_at,
        message_count: 2,
        reason: 'conversation_closed',
      },
    ]);
    const { created_at: _c, updated_at: _u, ...event } = closed;
    expect(eventsOf('conversation.closed', 'uuid', conversation.uuid).map((m) => m.payload)).toEqual([{ ...event, reason: 'api' }]);

    // Again: unchanged, nothing published.
    await kit.api.post(`/api/v1/conversations/${conversation.uuid}/close`).expect(200, { data: closed });
    const barrier = await openConversation(kit.api, { agent_uuid: agent });
    await eventually(() => eventsOf('conversation.opened', 'uuid', barrier.uuid).length > 0);
    // On the in-process bus a row leaves the outbox once handled: none due means the probe saw all there was.
    await eventually(async () => (await kit.kernel.orm.em.fork().getConnection().execute(`select count(*)::int as n from bus_outbox where due_at <= now()`))[0].n === 0);
    expect(eventsOf('conversation.closed', 'uuid', conversation.uuid)).toHaveLength(1);
    expect(eventsOf('session.closed', 'session_uuid', session.uuid)).toHaveLength(1);
  });

  it('a conversation without messages closes without a session.closed', async () => {
    const conversation = await openConversation(kit.api, { agent_uuid: await createAgent(kit.api) });
    await kit.api.post(`/api/v1/conversations/${conversation.uuid}/close`).expect(200);
    await eventually(() => eventsOf('conversation.closed', 'uuid', conversation.uuid).length > 0);
    expect(published.filter((m) => m.topic === 'session.closed' && m.payload.conversation_uuid === conversation.uuid)).toEqual([]);
  });

  it('a closed conversation takes no more messages (409)', async () => {
    const conversation = await openConversation(kit.api, { agent_uuid: await createAgent(kit.api) });
    const first = await say(kit.api, conversation.uuid, 'customer');
    await kit.api.post(`/api/v1/conversations/${conversation.uuid}/close`).expect(200);
    await kit.api
      .post(`/api/v1/conversations/${conversation.uuid}/messages`)
      .send({ sender: 'customer', content: 'still there?' })
      .expect(409, { success: false, message: 'Conversation is closed', data: [] });
    const session = await readSession(kit.api, first.session_uuid);
    expect(session.messages).toHaveLength(1);
    const sessions = await kit.api.get(`/api/v1/sessions?conversation_uuid=${conversation.uuid}`).expect(200);
    expect(sessions.body.data.items).toHaveLength(1);
  });
});

describe('the conversation_status agent webhook event', () => {
  it('is in the agents plugin’s catalog, so an agent webhook may subscribe to it', async () => {
    const agent = await createAgent(kit.api);
    const catalog = await kit.api.get('/api/v1/agent-webhook-events').expect(200);
    expect(JSON.stringify(catalog.body)).toContain('conversation_status');
    const res = await kit.api.post(`/api/v1/agents/${agent}/webhooks`).send({ url: 'https://example.com/hooks', events: ['conversation_status'] }).expect(200);
    expect(res.body.data.webhooks).toEqual([expect.objectContaining({ url: 'https://example.com/hooks', events: ['conversation_status'] })]);
    await kit.api.post(`/api/v1/agents/${agent}/webhooks`).send({ url: 'https://example.com/hooks', events: ['conversation_gossip'] }).expect(422);
  });
});

describe('cross-tenant isolation', () => {
  it('every conversation and session route that takes an id answers 404 to another tenant’s ids (the sweep, with this plugin’s fixtures)', async () => {
    const results = (await sweepCrossTenant(kit, { ...agentFixtures, ...conversationFixtures })).filter((r) => /\/(conversations|sessions)\b/.test(r.route));
    expect(results.filter((r) => !r.member).map((r) => r.route).sort()).toEqual([
      'GET /api/v1/conversations/:uuid',
      'GET /api/v1/conversations/:uuid/messages',
      'GET /api/v1/sessions/:uuid',
      'POST /api/v1/conversations/:uuid/close',
      'POST /api/v1/conversations/:uuid/messages',
    ]);
    expect(results.filter((r) => r.problem)).toEqual([]);
  });
});

describe('the OpenAPI document', () => {
  it('describes every route with its statuses, and the shared resources as components', async () => {
    const doc = (await kit.api.get('/api/v1/openapi.json').expect(200)).body;
    const operation = (path: string, method: string) => doc.paths[path]?.[method];
    expect(Object.keys(operation('/api/v1/conversations', 'post').responses)).toEqual(expect.arrayContaining(['201', '422']));
    expect(operation('/api/v1/conversations', 'get').parameters.map((p: { name: string }) => p.name)).toEqual(
      expect.arrayContaining(['page', 'per_page', 'agent_uuid', 'channel', 'status', 'from', 'to']),
    );
    expect(Object.keys(operation('/api/v1/conversations/{uuid}', 'get').responses)).toEqual(expect.arrayContaining(['200', '404']));
    expect(Object.keys(operation('/api/v1/conversations/{uuid}/messages', 'post').responses)).toEqual(expect.arrayContaining(['201', '404', '409', '422']));
    expect(Object.keys(operation('/api/v1/conversations/{uuid}/close', 'post').responses)).toEqual(expect.arrayContaining(['200', '404']));
    expect(operation('/api/v1/sessions', 'get').parameters.map((p: { name: string }) => p.name)).toEqual(expect.arrayContaining(['conversation_uuid', 'from', 'to']));
    expect(Object.keys(operation('/api/v1/sessions/{uuid}', 'get').responses)).toEqual(expect.arrayContaining(['200', '404']));
    expect(Object.keys(doc.components.schemas)).toEqual(expect.arrayContaining(['Conversation', 'ConversationMessage', 'ConversationSession', 'ConversationSessionWithMessages']));
  });
});
