import { coreServices, definePlugin } from '../../../core';
import { startFakeLlmServer, startTestKernel, waitFor, type FakeLlmServer, type TestKernel } from '../../../core/testing';
import { activeAgent, RUNTIME_PLUGINS, startReceiver, type Receiver } from './runtime-test-kit';

let model: FakeLlmServer;
let receiver: Receiver;
let kit: TestKernel;

/** What the runtime published on `agent.intent_called`. */
const intentEvents: any[] = [];
const intentProbe = definePlugin({
  id: 'intent-probe',
  dependsOn: ['runtime'],
  deps: { bus: coreServices.bus },
  init({ bus }) {
    bus.consume({ name: 'intent-events', topics: ['agent.intent_called'] }, async (message) => void intentEvents.push({ ...(message.payload as object), tenant: message.tenant?.uuid }));
  },
});

beforeAll(async () => {
  model = await startFakeLlmServer();
  receiver = await startReceiver();
  kit = await startTestKernel({ plugins: [...RUNTIME_PLUGINS, intentProbe], config: { llmBaseUrl: model.url, llmModel: 'test-model', llmMaxRetries: 0 } });
});
afterAll(async () => {
  await kit?.stop();
  await model?.close();
  await receiver?.close();
});
afterEach(() => expect(model.remaining).toBe(0));

const chat = (agent: string, message: string, extra: Record<string, unknown> = {}) => kit.api.post(`/api/v1/agents/${agent}/chat`).send({ message, ...extra });

async function agentWithIntent(webhook: { url: string | null; auth_token?: string }): Promise<string> {
  const agent = await activeAgent(kit.api);
  await kit.api
    .post(`/api/v1/agents/${agent}/intents`)
    .send({
      key: 'reserve_table',
      name: 'Reserve a table',
      description: 'When the customer wants a table',
      recommendation_actions: 'Confirm the time',
      webhook,
      parameters: [
        { key: 'day', type: 'string', required: true },
        { key: 'people', type: 'integer', required: false, default: '1' },
      ],
    })
    .expect(200);
  return agent;
}

const toolMessages = async (conversation: string) =>
  (await kit.api.get(`/api/v1/conversations/${conversation}/messages`).expect(200)).body.data.items.filter((m: any) => m.message_type === 'tool');

describe('intents', () => {
  it('calls the webhook with the bearer and the parameters, and gives the answer back to the model', async () => {
    const agent = await agentWithIntent({ url: `${receiver.url}/book`, auth_token: 'secret-token-1' });
    receiver.answers.push({ status: 200, body: { booked: true, at: 'Tuesday 10:00' } });
    model.reply({ toolCalls: [{ name: 'reserve_table', arguments: { day: 'Tuesday' } }] }, { content: 'Booked for Tuesday at 10.' });
    const turn = (await chat(agent, 'Book me on Tuesday', { contact: { email: 'bo@example.com', name: 'Bo' } }).expect(200)).body.data;

    const call = receiver.requests.at(-1)!;
    expect(call.method).toBe('POST');
    expect(call.headers.authorization).toBe('Bearer secret-token-1');
    expect(call.body).toMatchObject({
      intent: 'reserve_table',
      parameters: { day: 'Tuesday' },
      conversation_uuid: turn.conversation_uuid,
      agent_uuid: agent,
      contact: { email: 'bo@example.com', name: 'Bo' },
    });
    // The tool definition the model saw: parameters typed, required, default.
    const tool = model.requests[model.requests.length - 2].body.tools.find((t: any) => t.function.name === 'reserve_table');
    expect(tool.function.parameters).toEqual({
      type: 'object',
      properties: { day: { type: 'string' }, people: { type: 'integer', default: 1 } },
      required: ['day'],
      additionalProperties: false,
    });
    // The second round carries the webhook's answer as the tool result.
    const toolResult = model.requests.at(-1)!.body.messages.find((m: any) => m.role === 'tool');
    expect(JSON.parse(toolResult.content)).toEqual({ booked: true, at: 'Tuesday 10:00' });

    expect(turn.tool_calls).toEqual([{ name: 'reserve_table', arguments: { day: 'Tuesday' }, status: 'ok', duration_ms: expect.any(Number) }]);
    expect(turn.reply.content).toBe('Booked for Tuesday at 10.');
    const [recorded] = await toolMessages(turn.conversation_uuid);
    expect(JSON.parse(recorded.content)).toMatchObject({ name: 'reserve_table', status: 'ok', result: { booked: true } });

    // `intent_called` (an agent webhook event) is published with the turn's records.
    const [event] = await waitFor(
      () => intentEvents.filter((e) => e.conversation_uuid === turn.conversation_uuid),
      (found) => found.length === 1,
    );
    expect(event).toMatchObject({ tenant: kit.tenant.uuid, agent_uuid: agent, intent: 'reserve_table', parameters: { day: 'Tuesday' }, status: 'ok', result: { booked: true, at: 'Tuesday 10:00' } });
    const catalog = (await kit.api.get('/api/v1/agent-webhook-events').expect(200)).body.data.items.map((e: any) => e.name);
    expect(catalog).toEqual(expect.arrayContaining(['intent_called', 'conversation_status', 'message_created']));
  });

  it('a failing webhook goes back to the model as an error result, and the turn still answers', async () => {
    const agent = await agentWithIntent({ url: `${receiver.url}/book` });
    receiver.answers.push({ status: 500, body: { error: 'calendar down' } });
    model.reply({ toolCalls: [{ name: 'reserve_table', arguments: { day: 'Friday' } }] }, { content: 'Sorry, I could not book that.' });
    const turn = (await chat(agent, 'Book Friday').expect(200)).body.data;
    expect(receiver.requests.at(-1)!.headers.authorization).toBeUndefined();
    expect(turn.tool_calls[0]).toMatchObject({ name: 'reserve_table', status: 'error' });
    const toolResult = model.requests.at(-1)!.body.messages.find((m: any) => m.role === 'tool');
    expect(JSON.parse(toolResult.content).error).toMatch(/500/);
    expect(turn.reply.content).toBe('Sorry, I could not book that.');
  });

  it('without a webhook the result is ok with the recommendation actions', async () => {
    const agent = await agentWithIntent({ url: null });
    model.reply({ toolCalls: [{ name: 'reserve_table', arguments: { day: 'Monday' } }] }, { content: 'Noted.' });
    await chat(agent, 'Monday please').expect(200);
    const toolResult = model.requests.at(-1)!.body.messages.find((m: any) => m.role === 'tool');
    expect(JSON.parse(toolResult.content)).toEqual({ ok: true, recommendation_actions: 'Confirm the time' });
  });

  it('stops calling tools after the configured rounds and answers without them', async () => {
    const agent = await agentWithIntent({ url: null });
    const loop = { toolCalls: [{ name: 'reserve_table', arguments: { day: 'Monday' } }] };
    model.reply(loop, loop, loop, loop, loop, { content: 'Done.' });
    const turn = (await chat(agent, 'Loop').expect(200)).body.data;
    expect(turn.tool_calls).toHaveLength(5);
    expect(model.requests.at(-1)!.body.tools).toBeUndefined();
  });
});

describe('tables', () => {
  async function tableWith(rows: Array<Record<string, unknown>>, columns: string[]): Promise<string> {
    const table = (await kit.api.post('/api/v1/data/tables').send({ name: `T ${Date.now()}`, columns: columns.map((name) => ({ name, data_type: 'text' })) }).expect(201)).body.data;
    for (const values of rows) await kit.api.post(`/api/v1/data/${table.uuid}/records`).send({ values }).expect(201);
    return table.uuid;
  }

  it('search_knowledge returns the knowledge tables’ matches to the model', async () => {
    const agent = await activeAgent(kit.api);
    const table = await tableWith(
      [
        { question: 'Do you accept insurance?', answer: 'We accept Sanitas and Adeslas.' },
        { question: 'Where do I park?', answer: 'Free parking behind the clinic.' },
      ],
      ['question', 'answer'],
    );
    await kit.api.post(`/api/v1/data/${table}/assign`).send({ agent_uuid: agent, mode: 'knowledge_base' }).expect(200);
    // Records are indexed for search after they are written.
    await waitFor(
      async () => (await kit.api.get(`/api/v1/data/${table}`).expect(200)).body.data.index?.status,
      (status) => status === 'current',
    );
    model.reply({ toolCalls: [{ name: 'search_knowledge', arguments: { query: 'parking' } }] }, { content: 'There is free parking behind the clinic.' });
    const turn = (await chat(agent, 'Where can I park?').expect(200)).body.data;
    expect(turn.tool_calls[0]).toMatchObject({ name: 'search_knowledge', status: 'ok' });
    const result = JSON.parse(model.requests.at(-1)!.body.messages.find((m: any) => m.role === 'tool').content);
    expect(result[0].values).toEqual({ question: 'Where do I park?', answer: 'Free parking behind the clinic.' });
  });

  it('lookup_records returns exact rows of a lookup table', async () => {
    const agent = await activeAgent(kit.api);
    const table = await tableWith(
      [
        { order: 'A-1', state: 'shipped' },
        { order: 'A-2', state: 'packing' },
      ],
      ['order', 'state'],
    );
    await kit.api.post(`/api/v1/data/${table}/assign`).send({ agent_uuid: agent, mode: 'lookup' }).expect(200);
    model.reply({ toolCalls: [{ name: 'lookup_records', arguments: { table_uuid: table, filters: [{ column: 'order', operator: 'eq', value: 'A-2' }] } }] }, { content: 'Your order is being packed.' });
    const turn = (await chat(agent, 'Where is order A-2?').expect(200)).body.data;
    expect(turn.tool_calls[0]).toMatchObject({ name: 'lookup_records', status: 'ok' });
    const result = JSON.parse(model.requests.at(-1)!.body.messages.find((m: any) => m.role === 'tool').content);
    expect(result).toEqual({ total: 1, records: [{ order: 'A-2', state: 'packing' }] });
    const definition = model.requests.at(-2)!.body.tools.find((t: any) => t.function.name === 'lookup_records');
    expect(definition.function.parameters.properties.table_uuid.enum).toEqual([table]);
  });
});

describe('routing and ending', () => {
  it('transfer by an active routing rule: says its line, the conversation is transferred', async () => {
    const agent = await activeAgent(kit.api, {
      routing_rules: [
        { department_name: 'Billing', phrases: ['invoice'], destination_type: 'extension', destination: '301', voice_response: 'Transferring you to billing.', priority: 2 },
        { department_name: 'Sales', phrases: ['buy'], destination_type: 'extension', destination: '201', priority: 1 },
        { department_name: 'Old', destination_type: 'extension', destination: '999', priority: 0, is_active: false },
      ],
    });
    const rules = (await kit.api.get(`/api/v1/agents/${agent}`).expect(200)).body.data.routing_rules;
    const billing = rules.find((r: any) => r.department_name === 'Billing');
    model.reply({ toolCalls: [{ name: 'transfer', arguments: { rule_uuid: billing.uuid } }] });
    const turn = (await chat(agent, 'I have a question about my invoice').expect(200)).body.data;
    // Only active rules, by priority (lowest number first).
    const offered = model.requests.at(-1)!.body.tools.find((t: any) => t.function.name === 'transfer').function.parameters.properties.rule_uuid.enum;
    expect(offered).toEqual([rules.find((r: any) => r.department_name === 'Sales').uuid, billing.uuid]);
    expect(turn).toMatchObject({
      status: 'transferred',
      reply: { content: 'Transferring you to billing.' },
      transfer: { rule_uuid: billing.uuid, kind: 'routing', destination_type: 'extension', destination: '301', destination_agent_uuid: null },
    });
    const conversation = (await kit.api.get(`/api/v1/conversations/${turn.conversation_uuid}`).expect(200)).body.data;
    expect(conversation.status).toBe('transferred');
    await chat(agent, 'Hello?', { conversation_uuid: turn.conversation_uuid }).expect(409);
  });

  it('end_conversation closes the conversation after the closing line', async () => {
    const agent = await activeAgent(kit.api);
    model.reply({ content: 'Goodbye, Ana!', toolCalls: [{ name: 'end_conversation', arguments: { reason: 'customer said bye' } }] });
    const turn = (await chat(agent, 'That is all, bye').expect(200)).body.data;
    expect(turn).toMatchObject({ status: 'closed', reply: { content: 'Goodbye, Ana!' }, transfer: null });
    const conversation = (await kit.api.get(`/api/v1/conversations/${turn.conversation_uuid}`).expect(200)).body.data;
    expect(conversation.status).toBe('closed');
  });
});
