import { randomUUID } from 'node:crypto';
import { startTestKernel, type TestKernel } from '../../../core/testing';
import {
  AGENTS,
  CONVERSATIONS,
  conversationEventProbe,
  createAgent,
  eventsOf,
  eventually,
  openConversation,
  pendingTimers,
  readSession,
  refused,
  say,
  sessionizationByAgent,
  sessionizationOf,
  sleep,
  TIMER_TOPIC,
  type Json,
} from './conversation-test-helpers';

// A provider fills the sessionization slot (as the evaluation plugin does), with each agent's mode and timeout set by the test.
let kit: TestKernel;

beforeAll(async () => {
  kit = await startTestKernel({ plugins: [AGENTS, CONVERSATIONS, sessionizationByAgent, conversationEventProbe] });
});
afterAll(() => kit?.stop());

const SLACK_MS = 250;
const ms = (iso: string) => new Date(iso).getTime();

/** An agent whose sessions follow `mode` with `timeoutMinutes`, and an open chat conversation of it. */
async function conversationWith(mode: 'sliding_timeout' | 'per_conversation', timeoutMinutes: number): Promise<{ agent: string; conversation: Json }> {
  const agent = await createAgent(kit.api);
  sessionizationOf.set(agent, { mode, timeoutMinutes });
  return { agent, conversation: await openConversation(kit.api, { agent_uuid: agent }) };
}

/** Outbox rows of `topic` about a session, leased or not (`pendingTimers` leaves out the leased ones). */
const outboxRows = async (topic: string, sessionUuid: string): Promise<number> =>
  (await kit.kernel.orm.em.fork().getConnection().execute(`select count(*)::int as n from bus_outbox where topic = ? and payload->>'session_uuid' = ?`, [topic, sessionUuid]))[0].n;

const sessionClosed = (uuid: string) => async () => {
  const session = await readSession(kit.api, uuid);
  return session.status === 'closed' && session;
};

describe('GET /api/v1/sessions and /api/v1/sessions/{uuid}', () => {
  it('lists sessions newest first, with conversation, agent, channel, status and started_at range filters', async () => {
    const tenant = await kit.createTenant();
    const ann = await createAgent(tenant.api, 'Ann');
    const bob = await createAgent(tenant.api, 'Bob');
    const chat = await openConversation(tenant.api, { agent_uuid: ann, channel: 'chat' });
    const call = await openConversation(tenant.api, { agent_uuid: bob, channel: 'voice' });
    const first = await say(tenant.api, chat.uuid, 'customer');
    await sleep(5);
    const second = await say(tenant.api, call.uuid, 'customer');
    await tenant.api.post(`/api/v1/conversations/${call.uuid}/close`).expect(200);
    await sleep(5);
    const third = await say(tenant.api, (await openConversation(tenant.api, { agent_uuid: ann, channel: 'sms' })).uuid, 'agent');
    const uuids = async (query: string) => {
      const res = await tenant.api.get(`/api/v1/sessions${query}`).expect(200);
      expect(res.body.success).toBe(true);
      return res.body.data.items.map((s: { uuid: string }) => s.uuid);
    };
    const [s1, s2, s3] = [first, second, third].map((m) => m.session_uuid);

    expect(await uuids('')).toEqual([s3, s2, s1]);
    expect(await uuids(`?conversation_uuid=${chat.uuid}`)).toEqual([s1]);
    expect(await uuids(`?agent_uuid=${ann}`)).toEqual([s3, s1]);
    expect(await uuids('?channel=voice')).toEqual([s2]);
    expect(await uuids('?status=closed')).toEqual([s2]);
    expect(await uuids(`?status=open&agent_uuid=${ann}&channel=sms`)).toEqual([s3]);
    expect(await uuids(`?conversation_uuid=${randomUUID()}`)).toEqual([]);
    const from = encodeURIComponent(second.created_at);
    const to = encodeURIComponent(third.created_at);
    expect(await uuids(`?from=${from}&to=${to}`)).toEqual([s2]);
    expect(await uuids(`?from=${from}`)).toEqual([s3, s2]);
    expect(await uuids(`?to=${from}`)).toEqual([s1]);

    const page = await tenant.api.get('/api/v1/sessions?per_page=1&page=3').expect(200);
    expect(page.body.data.pagination).toEqual({ current_page: 3, per_page: 1, total: 3, last_page: 3, from: 3, to: 3, has_more: false });
    const { messages: _m, ...session } = await readSession(tenant.api, s1);
    expect(page.body.data.items).toEqual([session]);

    await refused(tenant.api.get('/api/v1/sessions?from=soon'), ['from']);
    await refused(tenant.api.get(`/api/v1/sessions?from=${to}&to=${from}`), ['to']);
    await refused(tenant.api.get('/api/v1/sessions?status=idle'), ['status']);
    await refused(tenant.api.get('/api/v1/sessions?conversation_uuid=1'), ['conversation_uuid']);
  });

  it('an unknown session, or another tenant’s, is 404', async () => {
    const stranger = await kit.createTenant();
    const theirs = await openConversation(stranger.api, { agent_uuid: await createAgent(stranger.api) });
    const message = await say(stranger.api, theirs.uuid, 'customer');
    for (const uuid of [randomUUID(), message.session_uuid]) {
      await kit.api.get(`/api/v1/sessions/${uuid}`).expect(404, { success: false, message: 'Session not found', data: [] });
    }
    expect((await kit.api.get(`/api/v1/sessions?conversation_uuid=${theirs.uuid}`).expect(200)).body.data.items).toEqual([]);
    expect((await readSession(stranger.api, message.session_uuid)).messages).toEqual([message]);
  });
});

describe('sliding_timeout: a session closes after the customer was idle for the timeout', () => {
  it('closes the session (reason timeout, session.closed published) but not the conversation; the next message opens a new session', async () => {
    const { agent, conversation } = await conversationWith('sliding_timeout', 0.02); // 1.2 s
    const hello = await say(kit.api, conversation.uuid, 'customer', 'Hello');
    const reply = await say(kit.api, conversation.uuid, 'agent', 'Hi');

    const closed = await eventually(sessionClosed(hello.session_uuid), 10_000);
    expect(closed).toMatchObject({ close_reason: 'timeout', message_count: 2, messages: [hello, reply], last_customer_message_at: hello.created_at });
    expect(ms(closed.ended_at) - ms(hello.created_at)).toBeGreaterThanOrEqual(1_200 - SLACK_MS);
    const [event] = await eventually(() => eventsOf('session.closed', 'session_uuid', hello.session_uuid).length > 0 && eventsOf('session.closed', 'session_uuid', hello.session_uuid));
    expect(event.payload).toEqual({
      session_uuid: hello.session_uuid,
      conversation_uuid: conversation.uuid,
      agent_uuid: agent,
      contact_uuid: null,
      channel: 'chat',
      started_at: closed.started_at,
      ended_at: closed.ended_at,
      message_count: 2,
      reason: 'timeout',
    });
    expect((await kit.api.get(`/api/v1/conversations/${conversation.uuid}`).expect(200)).body.data.status).toBe('open');
    expect(eventsOf('conversation.closed', 'uuid', conversation.uuid)).toEqual([]);

    const again = await say(kit.api, conversation.uuid, 'customer', 'Still there?');
    expect(again.session_uuid).not.toBe(hello.session_uuid);
    expect(await readSession(kit.api, again.session_uuid)).toMatchObject({ status: 'open', message_count: 1, messages: [again] });
    expect(await readSession(kit.api, hello.session_uuid)).toMatchObject({ status: 'closed', message_count: 2 });
    const sessions = await kit.api.get(`/api/v1/sessions?conversation_uuid=${conversation.uuid}`).expect(200);
    expect(sessions.body.data.items.map((s: Json) => [s.uuid, s.status])).toEqual([
      [again.session_uuid, 'open'],
      [hello.session_uuid, 'closed'],
    ]);
    // The new session times out in its turn.
    await eventually(sessionClosed(again.session_uuid), 10_000);
  });

  it('each customer message supersedes the pending timer: a message before the deadline keeps the session open past the first deadline', async () => {
    const { conversation } = await conversationWith('sliding_timeout', 0.1); // 6 s: the checks between the two deadlines get 2 s of room on a busy machine
    const first = await say(kit.api, conversation.uuid, 'customer', 'one');
    const session = first.session_uuid;
    await sleep(2_500);
    const second = await say(kit.api, conversation.uuid, 'customer', 'two');
    expect(second.session_uuid).toBe(session);
    // The second message came before the first deadline, and replaced its timer.
    expect(ms(second.created_at)).toBeLessThan(ms(first.created_at) + 6_000);
    const timers = await pendingTimers(kit, session);
    expect(timers).toHaveLength(1);
    expect(Math.abs(new Date(timers[0].due_at).getTime() - (ms(second.created_at) + 6_000))).toBeLessThan(500);
    // An agent message does not move the clock.
    await say(kit.api, conversation.uuid, 'agent', 'noted');

    await sleep(Math.max(0, ms(first.created_at) + 6_000 + 400 - Date.now()));
    expect(Date.now()).toBeLessThan(ms(second.created_at) + 6_000 - SLACK_MS); // still before the second deadline: the check below means something
    expect(await readSession(kit.api, session)).toMatchObject({ status: 'open', message_count: 3 });

    const closed = await eventually(sessionClosed(session), 10_000);
    expect(closed.close_reason).toBe('timeout');
    expect(ms(closed.ended_at) - ms(second.created_at)).toBeGreaterThanOrEqual(6_000 - SLACK_MS);
  });

  it('re-reads the timeout when the timer fires: a raised timeout keeps the session open until the new deadline', async () => {
    // Seconds apart, so a busy machine still changes the timeout before the first deadline and reads between the two.
    const { agent, conversation } = await conversationWith('sliding_timeout', 0.04); // 2.4 s when armed
    const hello = await say(kit.api, conversation.uuid, 'customer');
    sessionizationOf.set(agent, { mode: 'sliding_timeout', timeoutMinutes: 0.1 }); // 6 s from now on
    await sleep(Math.max(0, ms(hello.created_at) + 4_000 - Date.now()));
    expect((await readSession(kit.api, hello.session_uuid)).status).toBe('open');
    const closed = await eventually(sessionClosed(hello.session_uuid), 10_000);
    expect(ms(closed.ended_at) - ms(hello.created_at)).toBeGreaterThanOrEqual(6_000 - SLACK_MS);
  });

  it('a session opened by an agent message times out from its start', async () => {
    const { conversation } = await conversationWith('sliding_timeout', 0.01); // 0.6 s
    const welcome = await say(kit.api, conversation.uuid, 'agent', 'Welcome!');
    const closed = await eventually(sessionClosed(welcome.session_uuid), 10_000);
    expect(closed).toMatchObject({ close_reason: 'timeout', last_customer_message_at: null });
    expect(ms(closed.ended_at) - ms(closed.started_at)).toBeGreaterThanOrEqual(600 - SLACK_MS);
  });

  it('a timer that fires after the conversation closed does nothing', async () => {
    const { conversation } = await conversationWith('sliding_timeout', 0.01);
    const hello = await say(kit.api, conversation.uuid, 'customer');
    await kit.api.post(`/api/v1/conversations/${conversation.uuid}/close`).expect(200);
    // On the in-process bus an outbox row goes only once every consumer handled it (and what they
    // published is in the outbox by then): the timer fired, and what it and the close announced reached the probe.
    await eventually(async () => (await outboxRows(TIMER_TOPIC, hello.session_uuid)) === 0, 10_000);
    await eventually(async () => (await outboxRows('session.closed', hello.session_uuid)) === 0);
    expect(await readSession(kit.api, hello.session_uuid)).toMatchObject({ status: 'closed', close_reason: 'conversation_closed' });
    expect(eventsOf('session.closed', 'session_uuid', hello.session_uuid).map((m) => m.payload.reason)).toEqual(['conversation_closed']);
  });
});

describe('per_conversation: one session per conversation', () => {
  it('arms no timer, and the session closes only when the conversation closes', async () => {
    const { conversation } = await conversationWith('per_conversation', 0.01);
    const hello = await say(kit.api, conversation.uuid, 'customer');
    await say(kit.api, conversation.uuid, 'agent');
    expect(await pendingTimers(kit, hello.session_uuid)).toEqual([]);
    await sleep(1_200); // twice the timeout it would have in sliding mode
    const later = await say(kit.api, conversation.uuid, 'customer');
    expect(later.session_uuid).toBe(hello.session_uuid);
    expect(await pendingTimers(kit, hello.session_uuid)).toEqual([]);
    expect(await readSession(kit.api, hello.session_uuid)).toMatchObject({ status: 'open', message_count: 3 });

    await kit.api.post(`/api/v1/conversations/${conversation.uuid}/close`).expect(200);
    expect(await readSession(kit.api, hello.session_uuid)).toMatchObject({ status: 'closed', close_reason: 'conversation_closed' });
    await eventually(() => eventsOf('session.closed', 'session_uuid', hello.session_uuid).length > 0);
  });
});
