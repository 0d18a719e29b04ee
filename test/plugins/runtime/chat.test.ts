import { LlmUsage } from '../../../core/llm';
import { startFakeLlmServer, startTestKernel, type FakeLlmServer, type TestKernel } from '../../../core/testing';
import { activeAgent, byKind, RUNTIME_PLUGINS, streamChat, systemPromptOf } from './runtime-test-kit';

let model: FakeLlmServer;
let kit: TestKernel;

beforeAll(async () => {
  model = await startFakeLlmServer();
  kit = await startTestKernel({ plugins: RUNTIME_PLUGINS, config: { llmBaseUrl: model.url, llmModel: 'test-model', llmApiKey: 'sk-operator', llmMaxRetries: 0 } });
});
afterAll(async () => {
  await kit?.stop();
  await model?.close();
});
afterEach(() => expect(model.remaining).toBe(0));

describe('POST /agents/{uuid}/chat', () => {
  it('opens a conversation, answers with the agent’s prompt, and records both messages', async () => {
    const agent = await activeAgent(kit.api, { company_name: 'Smile Clinic', guidelines: [{ content: 'Never give medical advice.', order: 1 }] });
    model.reply({ content: 'We open on Saturdays from 9 to 1.' });
    const res = await kit.api.post(`/api/v1/agents/${agent}/chat`).send({ message: 'Do you open on Saturdays?', contact: { name: 'Ana', email: 'ana@example.com' } }).expect(200);
    const turn = res.body.data;
    expect(turn).toMatchObject({ status: 'open', transfer: null, tool_calls: [], reply: { content: 'We open on Saturdays from 9 to 1.' } });
    expect(turn.messages).toEqual([turn.reply]);

    const request = model.requests.at(-1)!;
    const system = systemPromptOf(request);
    expect(system).toContain('Smile Clinic');
    expect(system).toContain('Never give medical advice.');
    expect(request.body.messages.at(-1)).toEqual({ role: 'user', content: 'Do you open on Saturdays?' });
    // end_conversation is always offered.
    expect(request.body.tools.map((tool: any) => tool.function.name)).toContain('end_conversation');

    const messages = (await kit.api.get(`/api/v1/conversations/${turn.conversation_uuid}/messages`).expect(200)).body.data.items;
    expect(messages.map((m: any) => [m.sender, m.content])).toEqual([
      ['customer', 'Do you open on Saturdays?'],
      ['agent', 'We open on Saturdays from 9 to 1.'],
    ]);
    expect(messages.every((m: any) => m.session_uuid === turn.session_uuid)).toBe(true);
    const conversation = (await kit.api.get(`/api/v1/conversations/${turn.conversation_uuid}`).expect(200)).body.data;
    expect(conversation.contact_uuid).toEqual(expect.any(String));
  });

  it('continues a conversation with its history, oldest first', async () => {
    const agent = await activeAgent(kit.api);
    model.reply({ content: 'Hello! How can I help?' }, { content: 'Sure, Tuesday at 10 is free.' });
    const first = (await kit.api.post(`/api/v1/agents/${agent}/chat`).send({ message: 'Hi' }).expect(200)).body.data;
    await kit.api.post(`/api/v1/agents/${agent}/chat`).send({ message: 'Can I come on Tuesday?', conversation_uuid: first.conversation_uuid }).expect(200);
    const sent = model.requests.at(-1)!.body.messages.filter((m: any) => m.role !== 'system');
    expect(sent).toEqual([
      { role: 'user', content: 'Hi' },
      { role: 'assistant', content: 'Hello! How can I help?' },
      { role: 'user', content: 'Can I come on Tuesday?' },
    ]);
  });

  it('streams the same turn as Server-Sent Events: deltas, then done with the JSON answer', async () => {
    const agent = await activeAgent(kit.api);
    model.reply({ content: 'We open at nine.', chunks: ['We ', 'open ', 'at nine.'] } as any);
    const { res, events } = await streamChat(kit.api, agent, { message: 'When do you open?' });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/event-stream/);
    // The first piece at once; the pieces after it that arrive together go together (one or two more deltas).
    const deltas = events.slice(0, -1);
    expect(deltas.map((e) => e.event)).toEqual(deltas.map(() => 'delta'));
    expect(deltas[0].data.text).toBe('We ');
    expect(deltas.map((e) => e.data.text).join('')).toBe('We open at nine.');
    expect(events.at(-1)!.event).toBe('done');
    const done = events.at(-1)!.data;
    expect(done.data.reply.content).toBe('We open at nine.');
    // The done body is what the JSON answer would be: the recorded turn.
    const messages = (await kit.api.get(`/api/v1/conversations/${done.data.conversation_uuid}/messages`).expect(200)).body.data.items;
    expect(messages.at(-1)).toMatchObject({ message_uuid: done.data.reply.uuid, content: done.data.reply.content, created_at: done.data.reply.created_at });
    expect(model.requests.at(-1)!.body.stream).toBe(true);
    expect(Object.keys(done.data).sort()).toEqual(['conversation_uuid', 'messages', 'reply', 'session_uuid', 'status', 'tool_calls', 'transfer']);
  });

  it('streams tool calls as tool_call events between the text and done, and done equals what JSON answers', async () => {
    const agent = await activeAgent(kit.api);
    const script = { content: 'Goodbye!', chunks: ['Good', 'bye!'], toolCalls: [{ name: 'end_conversation', arguments: { reason: 'done' } }] };
    model.reply(script);
    const { events } = await streamChat(kit.api, agent, { message: 'Bye' });
    expect(events.map((e) => e.event)).toEqual(['delta', 'delta', 'tool_call', 'done']);
    expect(events[2].data).toEqual({ name: 'end_conversation', arguments: { reason: 'done' }, status: 'ok', duration_ms: expect.any(Number) });
    model.reply(script);
    const json = (await kit.api.post(`/api/v1/agents/${agent}/chat`).send({ message: 'Bye' }).expect(200)).body;
    // The same turn, answered both ways: equal but for what names this conversation and these messages.
    const shape = (body: any) => ({ ...body.data, conversation_uuid: 'x', session_uuid: 'x', reply: { ...body.data.reply, uuid: 'x', created_at: 'x' }, messages: body.data.messages.map((m: any) => ({ ...m, uuid: 'x', created_at: 'x' })), tool_calls: body.data.tool_calls.map((c: any) => ({ ...c, duration_ms: 0 })) });
    expect(shape(events[3].data)).toEqual(shape(json));
  });

  it('serializes two turns of one conversation: the second sees the first’s answer', async () => {
    const agent = await activeAgent(kit.api);
    model.reply({ content: 'Welcome.' });
    const first = (await kit.api.post(`/api/v1/agents/${agent}/chat`).send({ message: 'Hello' }).expect(200)).body.data;
    model.reply({ content: 'Answer one.', delayMs: 300 }, { content: 'Answer two.' });
    const turn = (message: string) => kit.api.post(`/api/v1/agents/${agent}/chat`).send({ message, conversation_uuid: first.conversation_uuid });
    const [a, b] = await Promise.all([turn('Question one'), turn('Question two')]);
    expect([a.status, b.status]).toEqual([200, 200]);
    const messages = (await kit.api.get(`/api/v1/conversations/${first.conversation_uuid}/messages`).expect(200)).body.data.items;
    const lines = messages.map((m: any) => m.content);
    // Never interleaved: each question is followed by its own answer.
    expect(lines).toHaveLength(6);
    const questionOne = lines.indexOf('Question one');
    const questionTwo = lines.indexOf('Question two');
    const [earlier, later] = questionOne < questionTwo ? [questionOne, questionTwo] : [questionTwo, questionOne];
    expect(later).toBe(earlier + 2);
    // The model answers in the order it is asked: the turn that went first got the first (slow) answer.
    expect(lines[earlier + 1]).toBe('Answer one.');
    expect(lines[later + 1]).toBe('Answer two.');
    // The second model request saw the whole first exchange.
    const second = model.requests.at(-1)!.body.messages.filter((m: any) => m.role !== 'system').map((m: any) => m.content);
    expect(second.slice(-3)).toEqual([lines[earlier], lines[earlier + 1], lines[later]]);
  });

  it('waits for a lease another process holds, and records the message once when it gets it', async () => {
    const agent = await activeAgent(kit.api);
    model.reply({ content: 'Welcome.' });
    const first = (await kit.api.post(`/api/v1/agents/${agent}/chat`).send({ message: 'Hello' }).expect(200)).body.data;
    // Another process's turn: its lease row, unexpired for 400 ms (it died without giving it back).
    await kit.kernel.orm.em
      .getConnection()
      .execute(
        `insert into runtime_turn_leases (uuid, tenant_uuid, created_at, updated_at, conversation_uuid, holder, expires_at) select gen_random_uuid(), tenant_uuid, now(), now(), uuid, 'another-process', now() + interval '400 milliseconds' from conversations where uuid = ?`,
        [first.conversation_uuid],
      );
    model.reply({ content: 'Sorry for the wait.' });
    const started = Date.now();
    const res = await kit.api.post(`/api/v1/agents/${agent}/chat`).send({ message: 'Still there?', conversation_uuid: first.conversation_uuid }).expect(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
    expect(res.body.data.reply.content).toBe('Sorry for the wait.');
    const messages = (await kit.api.get(`/api/v1/conversations/${first.conversation_uuid}/messages`).expect(200)).body.data.items;
    // Each attempt before the lease was free rolled back: the customer's message is there once.
    expect(messages.map((m: any) => m.content)).toEqual(['Hello', 'Welcome.', 'Still there?', 'Sorry for the wait.']);
  });

  it('answers 404 for another tenant’s agent or conversation, and 409 for an agent that is not active', async () => {
    const other = await kit.createTenant();
    const theirs = await activeAgent(other.api);
    await kit.api.post(`/api/v1/agents/${theirs}/chat`).send({ message: 'Hi' }).expect(404);

    model.reply({ content: 'Hi there.' });
    const theirTurn = (await other.api.post(`/api/v1/agents/${theirs}/chat`).send({ message: 'Hi' }).expect(200)).body.data;
    const mine = await activeAgent(kit.api);
    await kit.api.post(`/api/v1/agents/${mine}/chat`).send({ message: 'Hi', conversation_uuid: theirTurn.conversation_uuid }).expect(404);

    const pending = (await kit.api.post('/api/v1/agents').send({ name: 'Not yet' }).expect(201)).body.data.agent_uuid;
    const refused = await kit.api.post(`/api/v1/agents/${pending}/chat`).send({ message: 'Hi' }).expect(409);
    expect(refused.body.message).toMatch(/pending/);
  });

  it('answers 409 for a conversation of another agent, or one that is closed', async () => {
    const agent = await activeAgent(kit.api);
    const another = await activeAgent(kit.api);
    model.reply({ content: 'Hi.' });
    const turn = (await kit.api.post(`/api/v1/agents/${agent}/chat`).send({ message: 'Hi' }).expect(200)).body.data;
    await kit.api.post(`/api/v1/agents/${another}/chat`).send({ message: 'Hi', conversation_uuid: turn.conversation_uuid }).expect(409);
    await kit.api.post(`/api/v1/conversations/${turn.conversation_uuid}/close`).expect(200);
    await kit.api.post(`/api/v1/agents/${agent}/chat`).send({ message: 'Still there?', conversation_uuid: turn.conversation_uuid }).expect(409);
  });

  it('refuses a bad body with 422 and the field path', async () => {
    const agent = await activeAgent(kit.api);
    const res = await kit.api.post(`/api/v1/agents/${agent}/chat`).send({ message: '', channel: 'fax' }).expect(422);
    expect(Object.keys(res.body.errors).sort()).toEqual(['channel', 'message']);
  });

  it('records the model’s usage per tenant and agent', async () => {
    const agent = await activeAgent(kit.api);
    model.reply({ content: 'Counted.', usage: { promptTokens: 21, completionTokens: 2 } });
    await kit.api.post(`/api/v1/agents/${agent}/chat`).send({ message: 'Count me' }).expect(200);
    await kit.kernel.llm.flushUsage();
    const rows = await kit.kernel.orm.em.fork().find(LlmUsage, { agentUuid: agent }, { filters: false });
    expect(rows).toMatchObject([{ tenantUuid: kit.tenant.uuid, agentUuid: agent, purpose: 'runtime.turn', promptTokens: 21, completionTokens: 2, status: 'ok' }]);
  });

  it('an agent’s custom_llm_url is its model server, which never gets the operator’s key', async () => {
    const own = await startFakeLlmServer();
    try {
      const agent = await activeAgent(kit.api, { custom_llm_url: own.url });
      own.reply({ content: 'From my own model.' });
      const turn = (await kit.api.post(`/api/v1/agents/${agent}/chat`).send({ message: 'Who answers?' }).expect(200)).body.data;
      expect(turn.reply.content).toBe('From my own model.');
      expect(own.requests).toHaveLength(1);
      expect(own.requests[0].headers.authorization).toBeUndefined();
      expect(model.requests.every((request) => !JSON.stringify(request.body).includes('Who answers?'))).toBe(true);
    } finally {
      await own.close();
    }
  });

  it('a model that fails answers 502, with the customer’s message kept', async () => {
    const agent = await activeAgent(kit.api);
    model.reply(byKind({ status: 500, error: 'overloaded' }));
    const res = await kit.api.post(`/api/v1/agents/${agent}/chat`).send({ message: 'Anyone there?' }).expect(502);
    expect(res.body.message).toMatch(/model/i);
    const conversations = (await kit.api.get(`/api/v1/conversations?agent_uuid=${agent}`).expect(200)).body.data.items;
    expect(conversations).toHaveLength(1);
    const messages = (await kit.api.get(`/api/v1/conversations/${conversations[0].uuid}/messages`).expect(200)).body.data.items;
    expect(messages.map((m: any) => [m.sender, m.content])).toEqual([['customer', 'Anyone there?']]);
    // The failed turn gave its lease back: none is left, and the next turn runs at once.
    const leases = () => kit.kernel.orm.em.getConnection().execute('select holder from runtime_turn_leases where conversation_uuid = ?', [conversations[0].uuid]);
    expect(await leases()).toEqual([]);
    model.reply({ content: 'Back now.' });
    const next = await kit.api.post(`/api/v1/agents/${agent}/chat`).send({ message: 'Hello?', conversation_uuid: conversations[0].uuid }).expect(200);
    expect(next.body.data.reply.content).toBe('Back now.');
    expect(await leases()).toEqual([]);
  });
});
