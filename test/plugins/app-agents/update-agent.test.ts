import path from 'node:path';
import { coreServices, type TenantRef, type TenantService } from '../../../core';
import { startTestKernel, type TestKernel, type TestTenant } from '../../../core/testing';
import { agentWriterRef, type AgentWriter } from '../../../plugins/agents';
import { agentsApp } from '../../../plugins/app-agents';
import { inputProblems, runAction } from '../../../plugins/flows/testing-kit';

const PLUGINS = ['agents', 'flows', 'app-agents'].map((id) => path.resolve(__dirname, '../../../plugins', id));
const FLOW = '0190d5c2-0000-7000-8000-00000000f10a';

// `serve` runs no consumers, so the agent.updated messages a write publishes stay in the outbox to be read.
let kit: TestKernel;
beforeAll(async () => {
  kit = await startTestKernel({ plugins: PLUGINS, role: 'serve' });
});
afterAll(() => kit?.stop());

const updateAgent = agentsApp.actions!.find((action) => action.key === 'update_agent')!;

/** Runs `fn` as the tenant's work in one transaction, as the engine runs a step. */
function inTransaction<T>(tenant: TenantRef, fn: () => Promise<T>): Promise<T> {
  const tenants = kit.kernel.container.resolve<TenantService>(coreServices.tenant.id);
  return tenants.run(tenant, () => kit.kernel.orm.em.fork().transactional(fn));
}

/** The action as the engine runs a step of flow FLOW (the test kit: the tenant's transaction, the deps app-agents provided). */
const run = async (agentUuid: string | null, input: Record<string, unknown>, tenant: TenantRef = kit.tenant) =>
  (await runAction(agentsApp, 'update_agent', input, { kit, tenant, agentUuid, step: { flowUuid: FLOW } })).output;

const createAgent = async (body: Record<string, unknown> = {}, owner: TestTenant = kit): Promise<string> =>
  (await owner.api.post('/api/v1/agents').send({ name: 'Reception', ...body }).expect(201)).body.data.agent_uuid;
const agentOf = async (uuid: string) => (await kit.api.get(`/api/v1/agents/${uuid}`).expect(200)).body.data;
const updatesOf = (uuid: string): Promise<Array<{ payload: { changed: string[] }; headers: Record<string, string> }>> =>
  kit.kernel.orm.em
    .fork()
    .getConnection()
    .execute(`select payload, headers from bus_outbox where topic = 'agent.updated' and payload->>'agent_uuid' = ? order by id`, [uuid]);

describe('agents app: update_agent', () => {
  it('changes members and status in one write, announced once as caused by the flow, and outputs a summary', async () => {
    const uuid = await createAgent();
    const output = await run(uuid, { name: 'Front desk', tone: 'warm', status: 'active' });
    expect(output).toEqual({
      agent_uuid: uuid,
      name: 'Front desk',
      status: 'active',
      language: 'en-US',
      timezone: 'UTC',
      updated_at: expect.any(String),
      changed: ['name', 'tone', 'status'],
    });
    expect(await agentOf(uuid)).toMatchObject({ name: 'Front desk', tone: 'warm', status: 'active' });
    const [event, ...others] = await updatesOf(uuid);
    expect(others).toEqual([]);
    expect(event).toMatchObject({ payload: { changed: ['name', 'tone', 'status'] }, headers: { 'agent-uuid': uuid, 'caused-by': `flow:${FLOW}` } });
  });

  it('writes and announces nothing when the agent already has the values (so a flow reacting to its own change stops)', async () => {
    const uuid = await createAgent({ tone: 'warm' });
    await run(uuid, { status: 'active' });
    const before = await agentOf(uuid);
    const output = await run(uuid, { status: 'active', tone: 'warm', name: 'Reception' });
    expect(output).toMatchObject({ status: 'active', changed: [], updated_at: before.updated_at });
    expect(await agentOf(uuid)).toEqual(before);
    expect((await updatesOf(uuid)).map((event) => event.payload.changed)).toEqual([['status']]);
  });

  it('pauses an active agent, and refuses to pause a pending one with the API’s message, writing nothing', async () => {
    const pending = await createAgent();
    await expect(run(pending, { status: 'paused', name: 'Renamed' })).rejects.toThrow('A pending agent cannot be paused; activate it first');
    expect(await agentOf(pending)).toMatchObject({ name: 'Reception', status: 'pending' });
    await run(pending, { status: 'active' });
    expect(await run(pending, { status: 'paused' })).toMatchObject({ status: 'paused', changed: ['status'] });
  });

  it('checks members as PUT /agents/{uuid} does: a language outside the catalog fails the step, writing nothing', async () => {
    const uuid = await createAgent();
    const failure = await run(uuid, { language: 'xx-XX', name: 'Changed' }).catch((error: unknown) => error);
    expect(failure).toMatchObject({ status: 422, errors: { language: [expect.any(String)] } });
    expect(await agentOf(uuid)).toMatchObject({ name: 'Reception', language: 'en-US' });
    expect(await updatesOf(uuid)).toEqual([]);
  });

  it('fails for a step without an agent, an unknown agent, and another tenant’s agent', async () => {
    // Refused as the builder refuses such a step, before the action runs (which refuses it too).
    await expect(run(null, { status: 'active' })).rejects.toThrow('agent_uuid is required');
    await expect(run('0190d5c2-0000-7000-8000-0000000000ff', { status: 'active' })).rejects.toThrow('Agent not found');
    const other = await kit.createTenant();
    const theirs = await createAgent({}, other);
    await expect(run(theirs, { status: 'active' })).rejects.toThrow('Agent not found');
  });

  it('its input is a documented subset of the agent: at least one member, known members, PUT’s formats', () => {
    const problems = (config: unknown) => inputProblems(updateAgent, config);
    expect(problems({ status: 'paused' })).toEqual({});
    expect(problems({})).toHaveProperty(['config']);
    expect(problems({ status: 'deleted', guidelines: [], name: '' })).toEqual({
      'config.status': [expect.any(String)],
      'config.guidelines': ['is not a known member'],
      'config.name': [expect.any(String)],
    });
  });

  it('the writer service refuses what the schema refuses, when another plugin calls it directly', async () => {
    const writer = kit.kernel.container.resolve<AgentWriter>(agentWriterRef.id);
    const uuid = await createAgent();
    const failure = await inTransaction(kit.tenant, () => writer.update(uuid, { name: '', colour: 'red' } as never)).catch((error: unknown) => error);
    expect(failure).toMatchObject({ status: 422, errors: { name: [expect.any(String)], colour: ['is not allowed'] } });
    expect(await inTransaction(kit.tenant, () => writer.activate(uuid))).toMatchObject({ agent: { status: 'active' }, changed: ['status'] });
  });
});
