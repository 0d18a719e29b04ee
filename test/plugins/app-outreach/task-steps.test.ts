import path from 'node:path';
import supertest from 'supertest';
import { startTestKernel, type TestKernel } from '../../../core/testing';

const PLUGINS = ['agents', 'flows', 'app-agents', 'app-webhook', 'conversations', 'contacts', 'outreach', 'app-outreach'].map((id) =>
  path.resolve(__dirname, '../../../plugins', id),
);

let kit: TestKernel;
beforeAll(async () => {
  kit = await startTestKernel({ plugins: PLUGINS, config: { busPollIntervalMs: 200 } });
});
afterAll(() => kit?.stop());

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const createAgent = async (name = 'Reception'): Promise<string> => (await kit.api.post('/api/v1/agents').send({ name }).expect(201)).body.data.agent_uuid;

/** Executions of a flow with their steps, oldest first. */
async function executionsOf(flow: string): Promise<Array<Record<string, any>>> {
  const list = (await kit.api.get(`/api/v1/flow/${flow}/executions?per_page=100`).expect(200)).body.data.items as Array<{ uuid: string }>;
  const full = await Promise.all(list.map(async ({ uuid }) => (await kit.api.get(`/api/v1/flow/${flow}/executions/${uuid}`).expect(200)).body.data));
  return full.reverse();
}

async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`condition not met in time: ${JSON.stringify(value).slice(0, 500)}`);
    await sleep(100);
  }
}

async function flowWith(name: string, steps: Array<Record<string, unknown>>): Promise<{ uuid: string; steps: Array<Record<string, any>> }> {
  const flow = (await kit.api.post('/api/v1/flow').send({ name }).expect(201)).body.data.uuid;
  const made = [];
  for (const step of steps) made.push((await kit.api.post(`/api/v1/flow/${flow}/steps`).send(step).expect(201)).body.data);
  await kit.api.post(`/api/v1/flow/${flow}/deploy`).expect(200);
  return { uuid: flow, steps: made };
}

describe('the agents app gains the outreach steps', () => {
  it('lists create_task among its actions and task_completed among its triggers', async () => {
    const actions: Array<{ key: string }> = (await kit.api.get('/api/v1/flow/apps/agents/actions').expect(200)).body.data;
    const triggers: Array<{ key: string }> = (await kit.api.get('/api/v1/flow/apps/agents/triggers').expect(200)).body.data;
    expect(actions.map((action) => action.key)).toEqual(['update_agent', 'create_task']);
    expect(triggers.map((trigger) => trigger.key)).toEqual(['agent_updated', 'task_completed']);
  });

  it('create_task schedules a task for the step’s agent; task_completed starts a flow when it completes', async () => {
    const agent = await createAgent();
    const other = await createAgent('Other');
    const intake = await flowWith('Intake', [
      { app_uid: 'webhook', trigger_key: 'catch_hook' },
      {
        app_uid: 'agents',
        action_key: 'create_task',
        agent_uuid: agent,
        config: { type: 'follow_up', title: 'Call back {{step1.body.name}}', contact: { phone_number: '{{step1.body.phone}}', name: '{{step1.body.name}}' } },
      },
    ]);
    const watched = await flowWith('On completion', [{ app_uid: 'agents', trigger_key: 'task_completed', agent_uuid: agent, config: { types: ['follow_up'] } }]);
    const elsewhere = await flowWith('Other agent', [{ app_uid: 'agents', trigger_key: 'task_completed', agent_uuid: other }]);

    const hookPath = new URL(intake.steps[0].config.hook_url).pathname;
    await supertest(kit.url).post(hookPath).set('Host', `${kit.tenant.slug}.${kit.kernel.config.core.baseDomain}`).send({ name: 'Ana', phone: '+34600000001' }).expect(202);

    const [created] = await eventually(() => executionsOf(intake.uuid), (runs) => runs.length === 1 && runs[0].status !== 'queued' && runs[0].status !== 'running');
    expect(created).toMatchObject({ status: 'succeeded', steps: [{ position: 2, status: 'succeeded', response: { type: 'follow_up', agent_uuid: agent, title: 'Call back Ana' } }] });
    const taskUuid: string = created.steps[0].response.uuid;

    const [completion] = await eventually(() => executionsOf(watched.uuid), (runs) => runs.length === 1);
    expect(completion.trigger_event).toMatchObject({ task: { uuid: taskUuid, status: 'completed', agent_uuid: agent } });
    const contact = (await kit.api.get(`/api/v1/contacts/${completion.trigger_event.task.contact_uuid}`).expect(200)).body.data;
    expect(contact).toMatchObject({ phone_number: '+34600000001', name: 'Ana' });
    expect(await executionsOf(elsewhere.uuid)).toHaveLength(0);
  });

  it('a create_task body the API would refuse fails the step with the API’s messages', async () => {
    const agent = await createAgent();
    const intake = await flowWith('Bad intake', [
      { app_uid: 'webhook', trigger_key: 'catch_hook' },
      { app_uid: 'agents', action_key: 'create_task', agent_uuid: agent, config: { type: 'follow_up', contact_uuid: '{{step1.body.contact}}' } },
    ]);
    const hookPath = new URL(intake.steps[0].config.hook_url).pathname;
    await supertest(kit.url).post(hookPath).set('Host', `${kit.tenant.slug}.${kit.kernel.config.core.baseDomain}`).send({ contact: '0190d5c2-0000-7000-8000-00000000dead' }).expect(202);
    const [run] = await eventually(() => executionsOf(intake.uuid), (runs) => runs.length === 1 && runs[0].status === 'failed');
    expect(JSON.stringify(run.steps[0].error)).toContain('contact_uuid');
  });
});
