import { coreServices, definePlugin, defineRoute, llmProviders, Type, type LlmProvider } from '../../../core';
import { startFakeLlmServer, startTestKernel, type FakeLlmServer } from '../../../core/testing';
import { LlmUsage } from '../../../core/llm';

/** A plugin asks the model through the kernel's `llm` service. */
const asker = definePlugin({
  id: 'asker',
  deps: { http: coreServices.http, llm: coreServices.llm },
  init({ http, llm }) {
    http.route(
      defineRoute({
        method: 'POST',
        path: '/api/v1/ask',
        summary: 'Ask the model',
        body: Type.Object({ question: Type.String() }, { additionalProperties: false }),
        handler: async ({ body }) => {
          const answer = await llm.chat({ messages: [{ role: 'user', content: body.question }], purpose: 'test.ask' });
          return { data: answer.content };
        },
      }),
    );
  },
});

describe('the llm service in a kernel', () => {
  let fake: FakeLlmServer;
  beforeAll(async () => {
    fake = await startFakeLlmServer();
  });
  afterAll(() => fake.close());

  it('calls the configured OpenAI-compatible server through egress and records usage for the tenant', async () => {
    const kit = await startTestKernel({ plugins: [asker], config: { llmBaseUrl: fake.url, llmModel: 'test-model', llmApiKey: 'sk-canary' } });
    try {
      fake.reply({ content: 'forty-two', usage: { promptTokens: 7, completionTokens: 3 } });
      await kit.api.post('/api/v1/ask').send({ question: 'meaning?' }).expect(200, { data: 'forty-two' });
      const request = fake.requests.at(-1)!;
      expect(request.body).toMatchObject({ model: 'test-model', messages: [{ role: 'user', content: 'meaning?' }] });
      expect(request.headers.authorization).toBe('Bearer sk-canary');
      await kit.kernel.llm.flushUsage();
      const usage = await kit.kernel.orm.em.fork().find(LlmUsage, {}, { filters: false });
      expect(usage).toMatchObject([{ tenantUuid: kit.tenant.uuid, model: 'test-model', purpose: 'test.ask', promptTokens: 7, completionTokens: 3, status: 'ok' }]);
      expect(JSON.stringify(kit.logs)).not.toContain('sk-canary');
    } finally {
      await kit.stop();
    }
  });

  it('a plugin may fill the provider slot instead; a second one is a boot error', async () => {
    const echo: LlmProvider = {
      id: 'echo',
      chat: async (request) => ({ content: `echo: ${request.messages.at(-1)?.content}`, toolCalls: [], finishReason: 'stop', model: 'echo-1' }),
    };
    const vendor = definePlugin({ id: 'vendor', contributes: [llmProviders.add(echo)] });
    const kit = await startTestKernel({ plugins: [vendor, asker] });
    try {
      await kit.api.post('/api/v1/ask').send({ question: 'hi' }).expect(200, { data: 'echo: hi' });
    } finally {
      await kit.stop();
    }
    const rival = definePlugin({ id: 'rival', contributes: [llmProviders.add(echo)] });
    await expect(startTestKernel({ plugins: [vendor, rival] })).rejects.toThrow('extension point "core.llm-provider" takes one implementation; it is set by both "vendor" and "rival"');
  });
});
