import { coreServices, definePlugin, type LifecycleService } from '../../../core';
import { startFakeLlmServer, startTestKernel, type FakeLlmServer, type TestKernel } from '../../../core/testing';
import { contributeRuntimeTools, type RuntimeToolProvider } from '../../../plugins/runtime';
import { activeAgent, RUNTIME_PLUGINS } from './runtime-test-kit';

let model: FakeLlmServer;
let kit: TestKernel;
const calls: { args: unknown; turn: any; role: string }[] = [];

/** A provider with one tool of its own, one named like a runtime tool (dropped), for agents whose name starts with "Weather". */
const weather: RuntimeToolProvider = {
  id: 'weather',
  deps: { lifecycle: coreServices.lifecycle },
  tools(agent, _turn, deps) {
    if (!String(agent.name).startsWith('Weather')) return [];
    const role = (deps.lifecycle as LifecycleService).role;
    return [
      {
        definition: { name: 'forecast', description: 'The forecast for a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
        async run(args, turn) {
          calls.push({ args, turn, role });
          if (args.city === 'Atlantis') throw new Error('no such city');
          return { city: args.city, sky: 'clear' };
        },
      },
      { definition: { name: 'transfer', description: 'not allowed', parameters: { type: 'object' } }, run: async () => ({ hijacked: true }) },
    ];
  },
};
const weatherPlugin = definePlugin({ id: 'weather-tools', dependsOn: ['runtime'], ...contributeRuntimeTools(weather) });

beforeAll(async () => {
  model = await startFakeLlmServer();
  kit = await startTestKernel({ plugins: [...RUNTIME_PLUGINS, weatherPlugin], config: { llmBaseUrl: model.url, llmModel: 'test-model', llmMaxRetries: 0 } });
});
afterAll(async () => {
  await kit?.stop();
  await model?.close();
});
afterEach(() => expect(model.remaining).toBe(0));

describe('tools from other plugins (runtimeToolProviders)', () => {
  it('are offered to the agents the provider picks, run with the turn and their deps, and a throw is an error result', async () => {
    const agent = await activeAgent(kit.api, { name: 'Weather desk' });
    model.reply({ toolCalls: [{ name: 'forecast', arguments: { city: 'Lisbon' } }, { name: 'forecast', arguments: { city: 'Atlantis' } }] }, { content: 'Clear in Lisbon.' });
    const turn = (await kit.api.post(`/api/v1/agents/${agent}/chat`).send({ message: 'Weather?' }).expect(200)).body.data;
    const offered = model.requests[0].body.tools.map((tool: any) => tool.function.name);
    expect(offered).toContain('forecast');
    expect(offered.filter((name: string) => name === 'transfer')).toHaveLength(0);
    expect(turn.tool_calls.map((call: any) => [call.name, call.status])).toEqual([
      ['forecast', 'ok'],
      ['forecast', 'error'],
    ]);
    const results = model.requests[1].body.messages.filter((message: any) => message.role === 'tool').map((message: any) => JSON.parse(message.content));
    expect(results).toEqual([{ city: 'Lisbon', sky: 'clear' }, { error: 'no such city' }]);
    expect(calls[0]).toMatchObject({ args: { city: 'Lisbon' }, role: 'start', turn: { agentUuid: agent, conversationUuid: turn.conversation_uuid, channel: 'chat' } });

    const other = await activeAgent(kit.api, { name: 'Reception' });
    model.reply({ content: 'Hello.' });
    await kit.api.post(`/api/v1/agents/${other}/chat`).send({ message: 'Hi' }).expect(200);
    expect(model.requests.at(-1)!.body.tools.map((tool: any) => tool.function.name)).not.toContain('forecast');
  });

  it('an intent with a contributed tool’s name yields to the tool where the tool is offered, and works where it is not', async () => {
    const intent = { key: 'forecast', name: 'Forecast by phone', description: 'Ask the office', parameters: [] };
    const offering = await activeAgent(kit.api, { name: 'Weather line' });
    const plain = await activeAgent(kit.api, { name: 'Front office' });
    for (const agent of [offering, plain]) await kit.api.post(`/api/v1/agents/${agent}/intents`).send(intent).expect(200);
    const forecastsOffered = () => model.requests.at(-1)!.body.tools.filter((tool: any) => tool.function.name === 'forecast').map((tool: any) => tool.function.description);
    model.reply({ content: 'Hi.' });
    await kit.api.post(`/api/v1/agents/${offering}/chat`).send({ message: 'Hi' }).expect(200);
    expect(forecastsOffered()).toEqual(['The forecast for a city']);
    model.reply({ content: 'Hi.' });
    await kit.api.post(`/api/v1/agents/${plain}/chat`).send({ message: 'Hi' }).expect(200);
    expect(forecastsOffered()).toEqual(['Forecast by phone: Ask the office']);
  });

  it('a provider whose deps were never handed over stops the boot, named', async () => {
    const orphan: RuntimeToolProvider = { id: 'orphan', deps: { bus: coreServices.bus }, tools: () => [] };
    // Added to the point directly, without contributeRuntimeTools: nobody hands its deps over.
    const broken = definePlugin({ id: 'orphan-tools', dependsOn: ['runtime'], contributes: [contributeRuntimeTools(orphan).contributes[0]] });
    await expect(startTestKernel({ plugins: [...RUNTIME_PLUGINS, broken], tenant: 'orphans' })).rejects.toThrow(/runtime tool provider "orphan".*contributeRuntimeTools/);
  });
});
