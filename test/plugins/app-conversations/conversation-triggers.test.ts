import path from 'node:path';
import { startFakeLlmServer, startTestKernel, type FakeLlmServer, type TestKernel } from '../../../core/testing';

const PLUGINS = ['agents', 'flows', 'app-agents', 'app-logic', 'conversations', 'evaluation', 'app-conversations'].map((id) =>
  path.resolve(__dirname, '../../../plugins', id),
);

let kit: TestKernel;
let llm: FakeLlmServer;
beforeAll(async () => {
  llm = await startFakeLlmServer();
  kit = await startTestKernel({
    plugins: PLUGINS,
    config: { busPollIntervalMs: 200, egressAllowCidrs: ['127.0.0.0/8'], llmBaseUrl: llm.url, llmModel: 'judge', llmMaxRetries: 0 },
  });
});
afterAll(async () => {
  await kit?.stop();
  await llm?.close();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const createAgent = async (name = 'Reception'): Promise<string> => (await kit.api.post('/api/v1/agents').send({ name }).expect(201)).body.data.agent_uuid;

/** Executions of a flow with their trigger event, oldest first. */
async function executionsOf(flow: string): Promise<Array<Record<string, any>>> {
  const list = (await kit.api.get(`/api/v1/flow/${flow}/executions?per_page=100`).expect(200)).body.data.items as Array<{ uuid: string }>;
  const full = await Promise.all(list.map(async ({ uuid }) => (await kit.api.get(`/api/v1/flow/${flow}/executions/${uuid}`).expect(200)).body.data));
  return full.reverse();
}

/** Waits until the bus has nothing due left to deliver (events handled, executions run). */
async function settled(): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    const [{ n }] = await kit.kernel.orm.em.fork().getConnection().execute(`select count(*)::int as n from bus_outbox where due_at <= now() + interval '1 second'`);
    if (n === 0) return;
    await sleep(100);
  }
  throw new Error('the bus did not settle');
}

async function liveFlow(trigger: Record<string, unknown>): Promise<string> {
  const flow = (await kit.api.post('/api/v1/flow').send({ name: 'On conversations' }).expect(201)).body.data.uuid;
  await kit.api.post(`/api/v1/flow/${flow}/steps`).send({ app_uid: 'agents', ...trigger }).expect(201);
  await kit.api.post(`/api/v1/flow/${flow}/steps`).send({ app_uid: 'logic', action_key: 'set_variables', config: { variables: { channel: '{{step1.channel}}' } } }).expect(201);
  await kit.api.post(`/api/v1/flow/${flow}/deploy`).expect(200);
  return flow;
}

/** A conversation with a customer and an agent message, closed. */
async function closedConversation(agent: string, channel: string): Promise<string> {
  const conversation = (await kit.api.post('/api/v1/conversations').send({ agent_uuid: agent, channel }).expect(201)).body.data.uuid;
  await kit.api.post(`/api/v1/conversations/${conversation}/messages`).send({ sender: 'customer', content: 'Can I come on Tuesday?' }).expect(201);
  await kit.api.post(`/api/v1/conversations/${conversation}/messages`).send({ sender: 'agent', content: 'Tuesday at 10 is yours.' }).expect(201);
  await kit.api.post(`/api/v1/conversations/${conversation}/close`).expect(200);
  return conversation;
}

describe('the agents app gains the conversation triggers', () => {
  it('lists conversation_closed and session_evaluated beside its own trigger', async () => {
    const triggers: Array<{ key: string }> = (await kit.api.get('/api/v1/flow/apps/agents/triggers').expect(200)).body.data;
    expect(triggers.map((trigger) => trigger.key)).toEqual(['agent_updated', 'conversation_closed', 'session_evaluated']);
  });
});

describe('conversation_closed', () => {
  it('starts the flow with the closed conversation, for the step’s agent and channels only', async () => {
    const agent = await createAgent('Watched');
    const other = await createAgent('Other');
    const flow = await liveFlow({ trigger_key: 'conversation_closed', agent_uuid: agent, config: { channels: ['chat', 'sms'] } });
    const chat = await closedConversation(agent, 'chat');
    await closedConversation(agent, 'voice');
    await closedConversation(other, 'chat');
    await settled();
    const executions = await executionsOf(flow);
    expect(executions).toHaveLength(1);
    expect(executions[0]).toMatchObject({
      status: 'succeeded',
      trigger_event: { uuid: chat, agent_uuid: agent, channel: 'chat', status: 'closed', ended_at: expect.any(String) },
      steps: [{ response: { channel: 'chat' } }],
    });
  });

  it('refuses an unknown channel in the trigger’s config (the step stays a draft)', async () => {
    const flow = (await kit.api.post('/api/v1/flow').send({ name: 'Bad channel' }).expect(201)).body.data.uuid;
    const step = await kit.api.post(`/api/v1/flow/${flow}/steps`).send({ app_uid: 'agents', trigger_key: 'conversation_closed', config: { channels: ['fax'] } }).expect(201);
    expect(step.body.data.status).toBe('draft');
  });
});

describe('session_evaluated', () => {
  it('starts the flow when the session’s evaluation is stored, filtered by the success verdict', async () => {
    await kit.api
      .put('/api/v1/evaluate/default')
      .send({ sessionization: { summary_prompt: '' }, text: { success_evaluation_prompt: { enabled: true, prompt: 'The customer booked a visit' } } })
      .expect(200);
    const agent = await createAgent('Judged');
    const successes = await liveFlow({ trigger_key: 'session_evaluated', agent_uuid: agent, config: { success: true } });
    const failures = await liveFlow({ trigger_key: 'session_evaluated', agent_uuid: agent, config: { success: false } });
    llm.reply({ json: { success: true, reason: 'A visit was booked for Tuesday' } });
    const conversation = await closedConversation(agent, 'chat');
    await settled();
    const [execution] = await executionsOf(successes);
    expect(execution).toMatchObject({
      status: 'succeeded',
      trigger_event: { conversation_uuid: conversation, agent_uuid: agent, channel: 'chat', success: true, status: 'completed' },
    });
    expect(await executionsOf(failures)).toHaveLength(0);
    expect(llm.remaining).toBe(0);
  });
});
