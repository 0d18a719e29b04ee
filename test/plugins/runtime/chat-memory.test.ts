import { startFakeLlmServer, startTestKernel, waitFor, type FakeLlmRequest, type FakeLlmServer, type TestKernel } from '../../../core/testing';
import { activeAgent, RUNTIME_PLUGINS, systemPromptOf } from './runtime-test-kit';

let model: FakeLlmServer;
let kit: TestKernel;

beforeAll(async () => {
  model = await startFakeLlmServer();
  kit = await startTestKernel({ plugins: RUNTIME_PLUGINS, config: { llmBaseUrl: model.url, llmModel: 'test-model', llmMaxRetries: 0 } });
});
afterAll(async () => {
  await kit?.stop();
  await model?.close();
});
afterEach(() => expect(model.remaining).toBe(0));

const isSummary = (request: FakeLlmRequest) => request.body?.response_format?.type === 'json_schema' && request.body.response_format.json_schema.name !== 'guard_check';

describe('memory across conversations of one contact', () => {
  it('a closed session’s summary is put into the contact’s next conversation with the agent', async () => {
    const agent = await activeAgent(kit.api);
    await kit.api.post(`/api/v1/agents/${agent}/memorize/assign`).expect((res) => expect([200, 201]).toContain(res.status));
    await kit.api
      .put(`/api/v1/agents/${agent}/memorize`)
      .send({
        enabled: true,
        retention_days: 30,
        summary_prompt: 'Summarize what the customer wants, in one sentence.',
        fields: [{ key: 'preferred_day', description: 'The day the customer prefers for visits' }],
      })
      .expect(200);
    const contact = { email: `mem-${Date.now()}@example.com`, name: 'Mia' };
    model.reply({ content: 'Noted, Tuesdays it is.' });
    const first = (await kit.api.post(`/api/v1/agents/${agent}/chat`).send({ message: 'I can only come on Tuesdays', contact }).expect(200)).body.data;

    // Closing the conversation closes its session; memorize summarizes it through the model.
    model.reply((request) => {
      expect(isSummary(request)).toBe(true);
      return { json: { summary: 'Mia can only come on Tuesdays.', fields: { preferred_day: 'Tuesday' } } };
    });
    await kit.api.post(`/api/v1/conversations/${first.conversation_uuid}/close`).expect(200);
    const conversation = (await kit.api.get(`/api/v1/conversations/${first.conversation_uuid}`).expect(200)).body.data;
    await waitFor(
      async () => (await kit.api.get(`/api/v1/contacts/${conversation.contact_uuid}/memories`).expect(200)).body.data.items,
      (memories) => memories.length === 1,
    );
    const summaryRequest = model.requests.find(isSummary)!;
    expect(JSON.stringify(summaryRequest.body.messages)).toContain('Summarize what the customer wants, in one sentence.');

    model.reply({ content: 'Welcome back! Tuesday again?' });
    const second = (await kit.api.post(`/api/v1/agents/${agent}/chat`).send({ message: 'Hi, I want another visit', contact }).expect(200)).body.data;
    expect(second.conversation_uuid).not.toBe(first.conversation_uuid);
    const system = systemPromptOf(model.requests.at(-1)!);
    expect(system).toContain('Mia can only come on Tuesdays.');
    expect(system).toContain('Tuesday');

    // Another contact of the same agent does not get Mia's memory.
    model.reply({ content: 'Hello!' });
    await kit.api.post(`/api/v1/agents/${agent}/chat`).send({ message: 'Hi', contact: { email: `other-${Date.now()}@example.com` } }).expect(200);
    expect(systemPromptOf(model.requests.at(-1)!)).not.toContain('Mia can only come on Tuesdays.');
  });
});
