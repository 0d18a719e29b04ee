import type { EntityManager } from '@mikro-orm/postgresql';
import { randomUUID } from 'node:crypto';
import { definePlugin } from '../../../core';
import { runInContext } from '../../../core/context/request-context';
import { startTestKernel, type TestKernel, type TestTenant } from '../../../core/testing';
import { conversationWriterRef, type ConversationWriter } from '../../../plugins/conversations';
import { conversationStatusEvent, messageCreatedEvent } from '../../../plugins/conversations/topics';
import {
  AGENTS,
  CONVERSATIONS,
  UUID,
  conversationEventProbe,
  createAgent,
  eventsOf,
  eventually,
  openConversation,
  pendingTimers,
  published,
  readSession,
  say,
  sleep,
} from './conversation-test-helpers';

/** Plays the agent runtime: a plugin that gets the conversations plugin's writer as a dependency. */
let writer: ConversationWriter;
const writerUser = definePlugin({
  id: 'conversation-writer-user',
  dependsOn: ['conversations'],
  deps: { conversations: conversationWriterRef },
  init({ conversations }) {
    writer = conversations;
  },
});

let kit: TestKernel;

beforeAll(async () => {
  kit = await startTestKernel({ plugins: [AGENTS, CONVERSATIONS, conversationEventProbe, writerUser] });
});
afterAll(() => kit?.stop());

/** Runs `work` as the tenant in one transaction of the kernel, as a bus handler or a request would. */
function inTransaction<T>(work: (em: EntityManager) => Promise<T>, tenant: TestTenant = kit): Promise<T> {
  return runInContext({ tenant: tenant.tenant }, () => kit.kernel.orm.em.fork().transactional((em) => work(em as EntityManager)));
}

async function sql<T = any>(query: string, params: unknown[] = []): Promise<T[]> {
  return kit.kernel.orm.em.fork().getConnection().execute(query, params);
}

/**
 * Waits until no message of `topic` about this resource is left in the outbox (the
 * outbox never drains whole here: idle timers wait in it for 30 minutes), then a
 * moment for the probe to consume what the broker took: what the probe saw is then
 * everything that was published.
 */
async function settled(topic: string, key: string, uuid: string): Promise<void> {
  await eventually(async () => (await sql(`select 1 from bus_outbox where topic = ? and payload->>'${key}' = ?`, [topic, uuid])).length === 0);
  await sleep(300);
}

/** Outbox rows of the conversations topics that name this resource (in `payload.<key>`), seen from `em`'s transaction. */
// Only the rows em's transaction wrote (xmin is its id, mod 2^32): an earlier commit's row the relay has not taken yet is not one.
const outboxRows = (em: EntityManager, key: string, uuid: string) =>
  em
    .getConnection()
    .execute(
      `select topic, payload from bus_outbox where topic like 'conversation.%' and payload->>'${key}' = ? and xmin::text = (pg_current_xact_id()::text::bigint % 4294967296)::text`,
      [uuid],
      'all',
      em.getTransactionContext(),
    );

describe('the conversation writer (conversationWriterRef)', () => {
  it('opens a conversation as POST /conversations does: the same checks, then conversation.opened', async () => {
    const agent = await createAgent(kit.api);
    const opened = await inTransaction((em) => writer.open(em, { agentUuid: agent, contactUuid: null, channel: 'chat', channelLabel: 'Web chat' }));
    expect(opened).toEqual(expect.objectContaining({ uuid: expect.stringMatching(UUID), agent_uuid: agent, status: 'open', channel: 'chat', channel_label: 'Web chat', ended_at: null }));
    expect((await kit.api.get(`/api/v1/conversations/${opened.uuid}`).expect(200)).body.data).toEqual(opened);
    const [event] = await eventually(() => eventsOf('conversation.opened', 'uuid', opened.uuid).length > 0 && eventsOf('conversation.opened', 'uuid', opened.uuid));
    const { created_at: _c, updated_at: _u, ...payload } = opened;
    expect(event.payload).toEqual({ ...payload, reason: null });

    await expect(inTransaction((em) => writer.open(em, { agentUuid: randomUUID(), contactUuid: null, channel: 'chat' }))).rejects.toMatchObject({
      status: 422,
      errors: { agent_uuid: ['is not an agent of this tenant'] },
    });
    // Another tenant's agent is not one of this tenant's.
    const other = await kit.createTenant();
    await expect(inTransaction((em) => writer.open(em, { agentUuid: agent, contactUuid: null, channel: 'chat' }), other)).rejects.toMatchObject({ status: 422 });
  });

  it('records a message with the same effect as POST .../messages: session, count, idle clock, timer and message_created', async () => {
    const agent = await createAgent(kit.api);
    const viaRoute = await openConversation(kit.api, { agent_uuid: agent });
    const viaWriter = await openConversation(kit.api, { agent_uuid: agent });

    const routeMessages = [await say(kit.api, viaRoute.uuid, 'customer', 'hello'), await say(kit.api, viaRoute.uuid, 'agent', 'hi')];
    const writerMessages = [
      await inTransaction((em) => writer.record(em, viaWriter.uuid, { sender: 'customer', content: 'hello' })),
      await inTransaction((em) => writer.record(em, viaWriter.uuid, { sender: 'agent', content: 'hi' })),
    ];
    // Same shape, same session bookkeeping.
    const strip = ({ message_uuid: _m, conversation_uuid: _c, session_uuid: _s, created_at: _t, ...rest }: any) => rest;
    expect(writerMessages.map(strip)).toEqual(routeMessages.map(strip));
    expect(writerMessages[0].session_uuid).toBe(writerMessages[1].session_uuid);
    const [routeSession, writerSession] = [await readSession(kit.api, routeMessages[0].session_uuid), await readSession(kit.api, writerMessages[0].session_uuid)];
    expect(writerSession).toEqual(
      expect.objectContaining({ status: 'open', message_count: 2, conversation_uuid: viaWriter.uuid, last_customer_message_at: writerMessages[0].created_at }),
    );
    expect(routeSession).toEqual(expect.objectContaining({ status: 'open', message_count: 2, last_customer_message_at: routeMessages[0].created_at }));
    expect(writerSession.messages).toEqual(writerMessages);
    // One idle timer per session, armed the same way.
    expect(await pendingTimers(kit, writerSession.uuid)).toHaveLength(1);
    expect(await pendingTimers(kit, routeSession.uuid)).toHaveLength(1);

    // Both paths publish message_created with the message as the API returns it.
    for (const message of [...routeMessages, ...writerMessages]) {
      const [event] = await eventually(() => {
        const seen = eventsOf('conversation.message_created', 'message_uuid', message.message_uuid);
        return seen.length > 0 && seen;
      });
      expect(event.payload).toEqual(message);
      expect(event.tenant).toBe(kit.tenant.uuid);
    }
  });

  it('messages sent at once to a conversation with no open session open one session, which counts them all', async () => {
    const agent = await createAgent(kit.api);
    const { uuid } = await openConversation(kit.api, { agent_uuid: agent });
    // Ten writers race to open the first session: the conversation's lock lets one open it, the others find it.
    const sent = await Promise.all(Array.from({ length: 10 }, (_, i) => say(kit.api, uuid, i % 2 ? 'agent' : 'customer', `message ${i}`)));
    expect(new Set(sent.map((message) => message.session_uuid)).size).toBe(1);
    const session = await readSession(kit.api, sent[0].session_uuid);
    expect(session).toEqual(expect.objectContaining({ status: 'open', message_count: 10, conversation_uuid: uuid }));
    expect(session.messages.map((message: any) => message.message_uuid).sort()).toEqual(sent.map((message) => message.message_uuid).sort());
    expect(await pendingTimers(kit, session.uuid)).toHaveLength(1);

    // Several messages opening a session together: it starts with the first, its idle clock at the customer's.
    const other = await openConversation(kit.api, { agent_uuid: agent });
    const at = new Date(Date.now() - 60_000);
    const both = await inTransaction((em) =>
      writer.recordMany(em, other.uuid, [
        { sender: 'agent', content: 'Hello, how can I help?', createdAt: at },
        { sender: 'customer', content: 'Where is my order?' },
      ]),
    );
    expect(both[0].session_uuid).toBe(both[1].session_uuid);
    const opened = await readSession(kit.api, both[0].session_uuid);
    expect(opened).toEqual(expect.objectContaining({ status: 'open', message_count: 2, started_at: at.toISOString(), last_customer_message_at: both[1].created_at }));
    expect(opened.messages).toEqual(both);
    expect(await pendingTimers(kit, opened.uuid)).toHaveLength(1);
  });

  it('takes a created_at, types tool messages, and reads back history and customer counts', async () => {
    const agent = await createAgent(kit.api);
    const { uuid } = await openConversation(kit.api, { agent_uuid: agent });
    const at = (second: number) => new Date(Date.UTC(2026, 0, 1, 9, 0, second));
    // Recorded out of order: the history is by created_at, not by recording.
    const plan: Array<[number, 'customer' | 'agent', 'text' | 'tool', string]> = [
      [3, 'agent', 'tool', '{"name":"search_knowledge","arguments":{"query":"hours"},"result":"9-5"}'],
      [1, 'customer', 'text', 'first'],
      [2, 'agent', 'text', 'second'],
      [5, 'customer', 'text', 'fifth'],
      [4, 'customer', 'text', 'fourth'],
    ];
    for (const [second, sender, messageType, content] of plan) {
      await inTransaction((em) => writer.record(em, uuid, { sender, messageType, content, createdAt: at(second) }));
    }
    const history = await inTransaction((em) => writer.history(em, uuid, 3));
    expect(history.map((m) => m.content)).toEqual(['{"name":"search_knowledge","arguments":{"query":"hours"},"result":"9-5"}', 'fourth', 'fifth']);
    expect(history[0].message_type).toBe('tool');
    expect((await inTransaction((em) => writer.history(em, uuid, 100))).map((m) => m.content)).toEqual(expect.arrayContaining(['first', 'second']));
    expect((await inTransaction((em) => writer.history(em, uuid, 100)))[0].content).toBe('first');
    expect(await inTransaction((em) => writer.history(em, uuid, 0))).toEqual([]);
    expect(await inTransaction((em) => writer.countCustomerMessagesSince(em, uuid, at(4)))).toBe(2);
    expect(await inTransaction((em) => writer.countCustomerMessagesSince(em, uuid, at(0)))).toBe(3);
    expect(await inTransaction((em) => writer.countCustomerMessagesSince(em, uuid, at(6)))).toBe(0);
    // Another tenant sees none of it.
    const other = await kit.createTenant();
    expect(await inTransaction((em) => writer.history(em, uuid, 10), other)).toEqual([]);
    expect(await inTransaction((em) => writer.countCustomerMessagesSince(em, uuid, at(0)), other)).toBe(0);
    await expect(inTransaction((em) => writer.record(em, uuid, { sender: 'customer', content: 'x' }), other)).rejects.toMatchObject({ status: 404 });
    expect(await inTransaction((em) => writer.lock(em, uuid), other)).toBeNull();
    expect(await inTransaction((em) => writer.lock(em, uuid))).toEqual(expect.objectContaining({ uuid, status: 'open' }));
  });

  it('tool messages are valid over the API too, and appear in the message export', async () => {
    const agent = await createAgent(kit.api);
    const { uuid } = await openConversation(kit.api, { agent_uuid: agent });
    const tool = await say(kit.api, uuid, 'agent', '{"name":"transfer"}', { message_type: 'tool' });
    expect(tool.message_type).toBe('tool');
    const from = encodeURIComponent(tool.created_at);
    const to = encodeURIComponent(new Date(Date.parse(tool.created_at) + 1).toISOString());
    const exported = await kit.api.get(`/api/v1/analytics/messages?from=${from}&to=${to}&limit=1000`).expect(200);
    expect(JSON.stringify(exported.body)).toContain(tool.message_uuid);
    expect(JSON.stringify(exported.body)).toContain('"tool"');
  });
});

describe('delivery of messages sent through a channel (setDelivery)', () => {
  it('moves forward only, keeps the reason of `failed`, shows in the messages and the history, and stays in its tenant', async () => {
    const agent = await createAgent(kit.api);
    const conversation = await openConversation(kit.api, { agent_uuid: agent, channel: 'sms' });
    const message = await say(kit.api, conversation.uuid, 'agent', 'Your table is booked.');
    expect(message).toMatchObject({ delivery_status: null, delivery_error: null });
    const set = (status: 'pending' | 'sent' | 'delivered' | 'read' | 'failed', error?: string, tenant: TestTenant = kit) =>
      inTransaction((em) => writer.setDelivery(em, message.message_uuid, status, error), tenant);
    const shown = async () => (await kit.api.get(`/api/v1/conversations/${conversation.uuid}/messages`).expect(200)).body.data.items[0];

    expect(await set('pending')).toBe(true);
    expect(await set('sent')).toBe(true);
    expect(await set('sent')).toBe(false);
    expect(await set('read')).toBe(true);
    // Late receipts never move it back.
    expect(await set('delivered')).toBe(false);
    expect(await set('failed', 'late failure')).toBe(false);
    expect(await shown()).toMatchObject({ delivery_status: 'read', delivery_error: null });
    const [history] = await inTransaction((em) => writer.history(em, conversation.uuid, 10));
    expect(history).toMatchObject({ delivery_status: 'read', delivery_error: null });

    const other = await say(kit.api, conversation.uuid, 'agent', 'Second line.');
    const setOther = (status: 'sent' | 'failed' | 'delivered', error?: string) => inTransaction((em) => writer.setDelivery(em, other.message_uuid, status, error));
    expect(await setOther('sent')).toBe(true);
    expect(await setOther('failed', 'unreachable handset')).toBe(true);
    expect(await setOther('delivered')).toBe(false);
    const items = (await kit.api.get(`/api/v1/conversations/${conversation.uuid}/messages`).expect(200)).body.data.items;
    expect(items.find((m: any) => m.message_uuid === other.message_uuid)).toMatchObject({ delivery_status: 'failed', delivery_error: 'unreachable handset' });

    // Another tenant cannot touch it.
    const stranger = await kit.createTenant();
    expect(await inTransaction((em) => writer.setDelivery(em, other.message_uuid, 'read'), stranger)).toBe(false);
    expect((await kit.api.get(`/api/v1/conversations/${conversation.uuid}/messages`).expect(200)).body.data.items.find((m: any) => m.message_uuid === other.message_uuid).delivery_status).toBe('failed');
  });
});

describe('status transferred', () => {
  it('a transferred conversation still takes messages (writer and route), is listed by status, and closes through the route', async () => {
    const agent = await createAgent(kit.api);
    const conversation = await openConversation(kit.api, { agent_uuid: agent });
    const first = await say(kit.api, conversation.uuid, 'customer', 'I want a person');

    const transferred = await inTransaction((em) => writer.setStatus(em, conversation.uuid, 'transferred', 'routing'));
    expect(transferred).toEqual(expect.objectContaining({ uuid: conversation.uuid, status: 'transferred', ended_at: null }));
    expect((await kit.api.get(`/api/v1/conversations/${conversation.uuid}`).expect(200)).body.data.status).toBe('transferred');
    const [event] = await eventually(() => eventsOf('conversation.transferred', 'uuid', conversation.uuid).length > 0 && eventsOf('conversation.transferred', 'uuid', conversation.uuid));
    const { created_at: _c, updated_at: _u, ...payload } = transferred;
    expect(event.payload).toEqual({ ...payload, reason: 'routing' });

    // Again: unchanged, nothing more published.
    await inTransaction((em) => writer.setStatus(em, conversation.uuid, 'transferred', 'routing'));

    // The session goes on: a person continues in it.
    const human = await say(kit.api, conversation.uuid, 'agent', 'A colleague here');
    const more = await inTransaction((em) => writer.record(em, conversation.uuid, { sender: 'customer', content: 'thanks' }));
    expect(new Set([first.session_uuid, human.session_uuid, more.session_uuid]).size).toBe(1);
    expect((await readSession(kit.api, first.session_uuid)).status).toBe('open');

    const listed = await kit.api.get(`/api/v1/conversations?agent_uuid=${agent}&status=transferred`).expect(200);
    expect(listed.body.data.items.map((c: any) => c.uuid)).toEqual([conversation.uuid]);
    expect((await kit.api.get(`/api/v1/conversations?agent_uuid=${agent}&status=open`).expect(200)).body.data.items).toEqual([]);

    const closed = (await kit.api.post(`/api/v1/conversations/${conversation.uuid}/close`).expect(200)).body.data;
    expect(closed).toEqual(expect.objectContaining({ status: 'closed', ended_at: expect.any(String) }));
    const session = await readSession(kit.api, first.session_uuid);
    expect(session).toEqual(expect.objectContaining({ status: 'closed', close_reason: 'conversation_closed', message_count: 3 }));
    const [closedEvent] = await eventually(() => eventsOf('conversation.closed', 'uuid', conversation.uuid).length > 0 && eventsOf('conversation.closed', 'uuid', conversation.uuid));
    expect(closedEvent.payload).toEqual(expect.objectContaining({ status: 'closed', reason: 'api' }));
    await eventually(() => eventsOf('session.closed', 'session_uuid', first.session_uuid).length > 0);
    await settled('conversation.transferred', 'uuid', conversation.uuid);
    expect(eventsOf('conversation.transferred', 'uuid', conversation.uuid)).toHaveLength(1);
  });

  it('closed is final: 409 for messages (route and writer) and for a transfer; closing again changes nothing', async () => {
    const agent = await createAgent(kit.api);
    const conversation = await openConversation(kit.api, { agent_uuid: agent });
    await say(kit.api, conversation.uuid, 'customer', 'bye');
    const closed = await inTransaction((em) => writer.setStatus(em, conversation.uuid, 'closed', 'agent'));
    expect(closed).toEqual(expect.objectContaining({ status: 'closed', ended_at: expect.any(String) }));
    const [event] = await eventually(() => eventsOf('conversation.closed', 'uuid', conversation.uuid).length > 0 && eventsOf('conversation.closed', 'uuid', conversation.uuid));
    expect(event.payload.reason).toBe('agent');

    await kit.api.post(`/api/v1/conversations/${conversation.uuid}/messages`).send({ sender: 'customer', content: 'hello?' }).expect(409);
    await expect(inTransaction((em) => writer.record(em, conversation.uuid, { sender: 'customer', content: 'hello?' }))).rejects.toMatchObject({ status: 409 });
    await expect(inTransaction((em) => writer.setStatus(em, conversation.uuid, 'transferred', 'guard'))).rejects.toMatchObject({ status: 409 });
    expect(await inTransaction((em) => writer.setStatus(em, conversation.uuid, 'closed', 'agent'))).toEqual(closed);
    expect((await kit.api.post(`/api/v1/conversations/${conversation.uuid}/close`).expect(200)).body.data).toEqual(closed);
    await settled('conversation.closed', 'uuid', conversation.uuid);
    expect(eventsOf('conversation.closed', 'uuid', conversation.uuid)).toHaveLength(1);
    expect(eventsOf('conversation.transferred', 'uuid', conversation.uuid)).toHaveLength(0);
    await expect(inTransaction((em) => writer.setStatus(em, randomUUID(), 'closed'))).rejects.toMatchObject({ status: 404 });
  });

  it('the OpenAPI document lists transferred among the statuses and the list filter', async () => {
    const doc = (await kit.api.get('/api/v1/openapi.json').expect(200)).body;
    expect(JSON.stringify(doc.components.schemas.Conversation.properties.status)).toContain('"transferred"');
    const filter = doc.paths['/api/v1/conversations'].get.parameters.find((p: { name: string }) => p.name === 'status');
    expect(JSON.stringify(filter)).toContain('"transferred"');
    // Sessions stay open or closed.
    expect(JSON.stringify(doc.components.schemas.ConversationSession.properties.status)).not.toContain('transferred');
    expect(JSON.stringify(doc.components.schemas.ConversationMessage.properties.message_type)).toContain('"tool"');
  });
});

describe('events are written in the writing transaction', () => {
  it('message_created and transferred are in the outbox inside the transaction, and gone with a rollback', async () => {
    const agent = await createAgent(kit.api);
    const conversation = await openConversation(kit.api, { agent_uuid: agent });
    const seen: { rows: any[]; message?: string } = { rows: [] };
    await expect(
      inTransaction(async (em) => {
        const message = await writer.record(em, conversation.uuid, { sender: 'customer', content: 'rolled back' });
        await writer.setStatus(em, conversation.uuid, 'transferred', 'guard');
        seen.message = message.message_uuid;
        seen.rows = [...(await outboxRows(em, 'message_uuid', message.message_uuid)), ...(await outboxRows(em, 'uuid', conversation.uuid))];
        throw new Error('the turn failed');
      }),
    ).rejects.toThrow('the turn failed');
    expect(seen.rows.map((r) => r.topic).sort()).toEqual(['conversation.message_created', 'conversation.transferred']);

    // Nothing of it survived: no message, no status, no outbox row, nothing delivered.
    await sleep(300);
    expect(await sql('select uuid from conversation_messages where conversation_uuid = ?', [conversation.uuid])).toEqual([]);
    expect((await kit.api.get(`/api/v1/conversations/${conversation.uuid}`).expect(200)).body.data.status).toBe('open');
    expect(await sql(`select id from bus_outbox where payload->>'message_uuid' = ? or (topic = 'conversation.transferred' and payload->>'uuid' = ?)`, [seen.message, conversation.uuid])).toEqual(
      [],
    );
    expect(published.filter((m) => m.payload?.message_uuid === seen.message || (m.topic === 'conversation.transferred' && m.payload.uuid === conversation.uuid))).toEqual([]);
  });
});

describe('GET /api/v1/conversations/{uuid}/messages', () => {
  it('lists every message across sessions, oldest first, paged like the other lists', async () => {
    const agent = await createAgent(kit.api);
    const { uuid } = await openConversation(kit.api, { agent_uuid: agent });
    const at = (second: number) => new Date(Date.UTC(2026, 1, 1, 9, 0, second));
    // Two with the same created_at: recording order (message_uuid) breaks the tie.
    const recorded = [];
    for (const [second, sender, type] of [
      [4, 'agent', 'tool'],
      [1, 'customer', 'text'],
      [4, 'agent', 'text'],
      [2, 'system', 'event'],
      [3, 'agent', 'audio'],
    ] as const) {
      recorded.push(await inTransaction((em) => writer.record(em, uuid, { sender, messageType: type, content: `${second} ${type}`, createdAt: at(second) })));
    }
    // A later session of the same conversation.
    await kit.api.post(`/api/v1/conversations/${uuid}/close`).expect(200);
    const expected = [recorded[1], recorded[3], recorded[4], recorded[0], recorded[2]];
    expect(recorded[0].message_uuid < recorded[2].message_uuid).toBe(true);

    const all = await kit.api.get(`/api/v1/conversations/${uuid}/messages`).expect(200);
    expect(all.body).toEqual({
      success: true,
      data: { items: expected, pagination: { current_page: 1, per_page: 25, total: 5, last_page: 1, from: 1, to: 5, has_more: false } },
    });

    const pages = [];
    for (let page = 1; page <= 3; page++) pages.push((await kit.api.get(`/api/v1/conversations/${uuid}/messages?page=${page}&per_page=2`).expect(200)).body.data);
    expect(pages.flatMap((p) => p.items)).toEqual(expected);
    expect(pages.map((p) => [p.items.length, p.pagination.has_more, p.pagination.from, p.pagination.to])).toEqual([
      [2, true, 1, 2],
      [2, true, 3, 4],
      [1, false, 5, 5],
    ]);
    await kit.api.get(`/api/v1/conversations/${uuid}/messages?per_page=0`).expect(422);
    await kit.api.get(`/api/v1/conversations/${uuid}/messages?color=red`).expect(422);
  });

  it('answers 404 for an unknown conversation or another tenant’s, and an empty page for one without messages', async () => {
    const agent = await createAgent(kit.api);
    const { uuid } = await openConversation(kit.api, { agent_uuid: agent });
    await say(kit.api, uuid, 'customer', 'mine');
    const other = await kit.createTenant();
    const notFound = { success: false, message: 'Conversation not found', data: [] };
    await other.api.get(`/api/v1/conversations/${uuid}/messages`).expect(404, notFound);
    await kit.api.get(`/api/v1/conversations/${randomUUID()}/messages`).expect(404, notFound);
    const theirs = await openConversation(other.api, { agent_uuid: await createAgent(other.api) });
    expect((await other.api.get(`/api/v1/conversations/${theirs.uuid}/messages`).expect(200)).body.data.items).toEqual([]);
  });

  it('is in the OpenAPI document with its page parameters and statuses', async () => {
    const doc = (await kit.api.get('/api/v1/openapi.json').expect(200)).body;
    const operation = doc.paths['/api/v1/conversations/{uuid}/messages'].get;
    expect(operation.parameters.map((p: { name: string }) => p.name)).toEqual(expect.arrayContaining(['uuid', 'page', 'per_page']));
    expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(['200', '404', '422']));
  });
});

describe('agent webhook events', () => {
  it('message_created joins conversation_status in the catalog; a webhook may subscribe to it', async () => {
    const agent = await createAgent(kit.api);
    const catalog = JSON.stringify((await kit.api.get('/api/v1/agent-webhook-events').expect(200)).body);
    expect(catalog).toContain('message_created');
    expect(catalog).toContain('conversation_status');
    await kit.api.post(`/api/v1/agents/${agent}/webhooks`).send({ url: 'https://example.com/hooks', events: ['message_created', 'conversation_status'] }).expect(200);
  });

  it('their sources name the topics published, and map what was published to the agent and the data sent', async () => {
    expect(conversationStatusEvent.source?.topics).toEqual(['conversation.opened', 'conversation.transferred', 'conversation.closed']);
    expect(messageCreatedEvent.source?.topics).toEqual(['conversation.message_created']);
    const agent = await createAgent(kit.api);
    const conversation = await openConversation(kit.api, { agent_uuid: agent });
    const message = await say(kit.api, conversation.uuid, 'customer', 'hello');
    await inTransaction((em) => writer.setStatus(em, conversation.uuid, 'transferred', 'guard'));
    const [created] = await eventually(() => eventsOf('conversation.message_created', 'message_uuid', message.message_uuid).length > 0 && eventsOf('conversation.message_created', 'message_uuid', message.message_uuid));
    const [transferred] = await eventually(() => eventsOf('conversation.transferred', 'uuid', conversation.uuid).length > 0 && eventsOf('conversation.transferred', 'uuid', conversation.uuid));
    const [opened] = eventsOf('conversation.opened', 'uuid', conversation.uuid);

    expect(messageCreatedEvent.source!.agentUuid(created.payload, created.topic)).toBe(agent);
    expect(messageCreatedEvent.source!.data!(created.payload, created.topic)).toEqual(message);
    expect(conversationStatusEvent.source!.agentUuid(transferred.payload, transferred.topic)).toBe(agent);
    expect(conversationStatusEvent.source!.data!(transferred.payload, transferred.topic)).toEqual(expect.objectContaining({ uuid: conversation.uuid, status: 'transferred', reason: 'guard' }));
    expect(conversationStatusEvent.source!.data!(opened.payload, opened.topic)).toEqual(expect.objectContaining({ uuid: conversation.uuid, status: 'open', reason: null }));
    expect(conversationStatusEvent.source!.agentUuid({}, 'conversation.opened')).toBeNull();
  });
});
