import path from 'node:path';
import { startTestKernel, type TestKernel } from '../../../core/testing';

const PLUGINS = ['agents', 'flows', 'app-agents', 'app-logic'].map((id) => path.resolve(__dirname, '../../../plugins', id));

let kit: TestKernel;
beforeAll(async () => {
  kit = await startTestKernel({ plugins: PLUGINS, config: { busPollIntervalMs: 200 } });
});
afterAll(() => kit?.stop());

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const createAgent = async (name = 'Reception'): Promise<string> => (await kit.api.post('/api/v1/agents').send({ name }).expect(201)).body.data.agent_uuid;
const agentOf = async (uuid: string) => (await kit.api.get(`/api/v1/agents/${uuid}`).expect(200)).body.data;

/** Executions of a flow with their trigger event and steps, oldest first. */
async function executionsOf(flow: string): Promise<Array<Record<string, any>>> {
  const list = (await kit.api.get(`/api/v1/flow/${flow}/executions?per_page=100`).expect(200)).body.data.items as Array<{ uuid: string }>;
  const full = await Promise.all(list.map(async ({ uuid }) => (await kit.api.get(`/api/v1/flow/${flow}/executions/${uuid}`).expect(200)).body.data));
  return full.reverse();
}

/** Waits until the bus has nothing left to deliver (every event handled, every execution run). */
async function settled(): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    const [{ n }] = await kit.kernel.orm.em.fork().getConnection().execute(`select count(*)::int as n from bus_outbox where due_at <= now() + interval '1 second'`);
    if (n === 0) return;
    await sleep(100);
  }
  throw new Error('the bus did not settle');
}

/** A live flow started by agent_updated, then `action` (an agents or logic step). */
async function liveFlow(trigger: { agent_uuid?: string; config?: Record<string, unknown> }, action: Record<string, unknown>): Promise<string> {
  const flow = (await kit.api.post('/api/v1/flow').send({ name: 'On agent change' }).expect(201)).body.data.uuid;
  await kit.api.post(`/api/v1/flow/${flow}/steps`).send({ app_uid: 'agents', trigger_key: 'agent_updated', ...trigger }).expect(201);
  await kit.api.post(`/api/v1/flow/${flow}/steps`).send(action).expect(201);
  await kit.api.post(`/api/v1/flow/${flow}/deploy`).expect(200);
  return flow;
}

const recordName = { app_uid: 'logic', action_key: 'set_variables', config: { variables: { name: '{{step1.agent.name}}', changed: '{{step1.changed}}' } } };

describe('agents app: agent_updated', () => {
  it('starts the flow with the agent.updated event, only for the step’s agent when it names one', async () => {
    const watched = await createAgent('Watched');
    const other = await createAgent('Other');
    const flow = await liveFlow({ agent_uuid: watched }, recordName);
    await kit.api.put(`/api/v1/agents/${other}`).send({ tone: 'dry' }).expect(200);
    await kit.api.put(`/api/v1/agents/${watched}`).send({ name: 'Watched 2' }).expect(200);
    await settled();
    const executions = await executionsOf(flow);
    expect(executions).toHaveLength(1);
    expect(executions[0]).toMatchObject({
      status: 'succeeded',
      trigger_event: { agent_uuid: watched, changed: ['name'], agent: { agent_uuid: watched, name: 'Watched 2' } },
      steps: [{ response: { name: 'Watched 2', changed: ['name'] } }],
    });
  });

  it('without an agent, fires for every agent of the tenant; with when_changed, only when one of those members changed', async () => {
    const anyAgent = await liveFlow({}, recordName);
    const statusOnly = await liveFlow({ config: { when_changed: ['status'] } }, recordName);
    const agent = await createAgent();
    await kit.api.put(`/api/v1/agents/${agent}`).send({ objective: 'Book visits' }).expect(200);
    await kit.api.post(`/api/v1/agents/${agent}/activate`).expect(200);
    await settled();
    expect((await executionsOf(anyAgent)).map((e) => e.trigger_event.changed)).toEqual([['objective'], ['status']]);
    expect((await executionsOf(statusOnly)).map((e) => e.trigger_event.changed)).toEqual([['status']]);
    await kit.api.post(`/api/v1/flow/${anyAgent}/undeploy`).expect(200);
    await kit.api.post(`/api/v1/flow/${statusOnly}/undeploy`).expect(200);
  });

  it('does not loop: a flow that updates the agent it watches runs once per outside change', async () => {
    const agent = await createAgent('Loop');
    await kit.api.post(`/api/v1/agents/${agent}/activate`).expect(200);
    // Each run appends to the name: without the guard every run would start the next.
    const flow = await liveFlow(
      { agent_uuid: agent },
      { app_uid: 'agents', action_key: 'update_agent', agent_uuid: agent, config: { name: '{{step1.agent.name}}!', status: 'paused' } },
    );
    await kit.api.put(`/api/v1/agents/${agent}`).send({ tone: 'calm' }).expect(200);
    await settled();
    await sleep(500);
    await settled();
    const executions = await executionsOf(flow);
    expect(executions).toHaveLength(1);
    expect(executions[0].steps[0]).toMatchObject({ status: 'succeeded', response: { name: 'Loop!', status: 'paused', changed: ['name', 'status'] } });
    expect(await agentOf(agent)).toMatchObject({ name: 'Loop!', status: 'paused' });
    await kit.api.post(`/api/v1/flow/${flow}/undeploy`).expect(200);
  });

  it('another flow does see the change a flow made', async () => {
    const agent = await createAgent('Chain');
    const first = await liveFlow({ agent_uuid: agent, config: { when_changed: ['tone'] } }, { app_uid: 'agents', action_key: 'update_agent', agent_uuid: agent, config: { status: 'active' } });
    const second = await liveFlow({ agent_uuid: agent, config: { when_changed: ['status'] } }, recordName);
    await kit.api.put(`/api/v1/agents/${agent}`).send({ tone: 'bright' }).expect(200);
    await settled();
    expect(await executionsOf(first)).toHaveLength(1);
    expect((await executionsOf(second)).map((e) => e.trigger_event.changed)).toEqual([['status']]);
  });
});
