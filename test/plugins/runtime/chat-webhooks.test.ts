import path from 'node:path';
import { Webhook } from 'standardwebhooks';
import { startFakeLlmServer, startTestKernel, waitFor, type FakeLlmServer, type TestKernel } from '../../../core/testing';
import { activeAgent, RUNTIME_PLUGINS, startReceiver, type Receiver } from './runtime-test-kit';

const SECRET = `whsec_${Buffer.from('a-secret-of-thirty-two-bytes-ok!').toString('base64')}`;

let model: FakeLlmServer;
let receiver: Receiver;
let kit: TestKernel;

beforeAll(async () => {
  model = await startFakeLlmServer();
  receiver = await startReceiver();
  kit = await startTestKernel({
    plugins: [...RUNTIME_PLUGINS, path.resolve(__dirname, '../../../plugins/agent-webhooks')],
    config: { llmBaseUrl: model.url, llmModel: 'test-model', llmMaxRetries: 0 },
  });
});
afterAll(async () => {
  await kit?.stop();
  await model?.close();
  await receiver?.close();
});

describe('a turn’s events reach the agent’s webhooks', () => {
  it('conversation_status, message_created and intent_called arrive signed, from the plugins that own them', async () => {
    const agent = await activeAgent(kit.api);
    await kit.api
      .post(`/api/v1/agents/${agent}/intents`)
      .send({ key: 'check_order', name: 'Check an order', webhook: { url: `${receiver.url}/intent` }, parameters: [{ key: 'order', type: 'string', required: true }] })
      .expect(200);
    await kit.api
      .post(`/api/v1/agents/${agent}/webhooks`)
      .send({ url: `${receiver.url}/events`, events: ['conversation_status', 'message_created', 'intent_called'], is_active: true, secret: SECRET })
      .expect((res) => expect([200, 201]).toContain(res.status));
    model.reply({ toolCalls: [{ name: 'check_order', arguments: { order: 'A-7' } }] }, { content: 'Order A-7 ships today.', toolCalls: [{ name: 'end_conversation', arguments: { reason: 'answered' } }] });
    const turn = (await kit.api.post(`/api/v1/agents/${agent}/chat`).send({ message: 'Where is A-7?' }).expect(200)).body.data;
    expect(turn.status).toBe('closed');

    // opened, closed; customer, tool, agent messages (and the tool message of end_conversation); one intent call.
    const events = await waitFor(
      () => receiver.requests.filter((request) => request.path === '/events'),
      (found) => found.length >= 7,
    );
    const verifier = new Webhook(SECRET);
    for (const event of events) {
      const headers = { 'webhook-id': String(event.headers['webhook-id']), 'webhook-timestamp': String(event.headers['webhook-timestamp']), 'webhook-signature': String(event.headers['webhook-signature']) };
      expect(() => verifier.verify(JSON.stringify(event.body), headers)).not.toThrow();
    }
    const of = (type: string) => events.filter((event) => event.body.type === type).map((event) => event.body.data);
    expect(of('conversation_status').map((data) => data.status).sort()).toEqual(['closed', 'open']);
    expect(of('intent_called')).toHaveLength(1);
    const intent = events.find((event) => event.body.type === 'intent_called')!.body.data;
    expect(intent).toMatchObject({ agent_uuid: agent, conversation_uuid: turn.conversation_uuid, intent: 'check_order', parameters: { order: 'A-7' }, status: 'ok' });
    const messages = of('message_created');
    expect(messages.map((m) => [m.sender, m.message_type]).sort()).toEqual(
      [
        ['agent', 'text'],
        ['agent', 'tool'],
        ['agent', 'tool'],
        ['customer', 'text'],
      ].sort(),
    );
    const closed = events.find((event) => event.body.type === 'conversation_status' && event.body.data.status === 'closed')!.body.data;
    expect(closed.reason).toBe('agent: answered');
  });
});
