import { startTestKernel, type TestKernel, type TestTenant } from '../../../../core/testing';
import { SEGMENT_TOPIC } from '../../../../plugins/flows/engine/segment-message';
import { AGENTS, FLOWS, PROBE, TRANSPORT, deleteFlow, deployFlow, fire, sql, undeployFlow } from './engine-helpers';

/**
 * FlowTriggers as trigger sources use it (through the probe plugin's routes). The kernel
 * only serves: no worker runs the executions, so what `fire` wrote stays to be seen.
 */
let kit: TestKernel;
let other: TestTenant;

beforeAll(async () => {
  kit = await startTestKernel({ plugins: [AGENTS, FLOWS, PROBE], role: 'serve', config: TRANSPORT });
  other = await kit.createTenant();
});
afterAll(() => kit?.stop());

const ask = async (query: Record<string, string>, api = kit.api) => (await api.get('/api/v1/probe/triggers').query(query).expect(200)).body.data;

describe('FlowTriggers', () => {
  it('live() lists the tenant’s live flows of one trigger, with the trigger step as deployed', async () => {
    const agentUuid: string = (await kit.api.post('/api/v1/agents').send({ name: 'Sales' }).expect(201)).body.data.agent_uuid;
    const spec = [{ name: 'trigger', app: 'probe_agent', trigger: 'agent_event', config: { channel: 'sales' }, agentUuid }, { name: 'echo', action: 'echo' }];
    const first = await deployFlow(kit, spec);
    const second = await deployFlow(kit, spec);
    const undeployed = await deployFlow(kit, spec);
    const deleted = await deployFlow(kit, spec);
    const theirAgent: string = (await other.api.post('/api/v1/agents').send({ name: 'Theirs' }).expect(201)).body.data.agent_uuid;
    await deployFlow(other, [{ ...spec[0], agentUuid: theirAgent }]);
    await undeployFlow(kit, undeployed.flowUuid);
    await deleteFlow(kit, deleted.flowUuid);

    const { live } = await ask({ app_uid: 'probe_agent', trigger_key: 'agent_event' });
    expect(live.sort((a: any, b: any) => a.versionUuid.localeCompare(b.versionUuid))).toEqual(
      [first, second].map((flow) => ({
        flowUuid: flow.flowUuid,
        versionUuid: flow.versionUuid,
        stepUuid: flow.ids.trigger,
        version: 1,
        config: { channel: 'sales' },
        agentUuid,
        appConnectionUuid: null,
      })),
    );
    expect((await ask({ app_uid: 'probe_agent', trigger_key: 'other_event' })).live).toEqual([]);
  });

  it('byHookToken() finds a live flow by its hook token, and nothing once undeployed, deleted, or in another tenant', async () => {
    const hooked = async () => {
      const flow = await deployFlow(kit, [{ name: 'trigger', trigger: 'hooked' }]);
      return { ...flow, token: String(flow.triggerConfig.hook_url).split('/').pop()! };
    };
    const [live, undeployed, deleted] = [await hooked(), await hooked(), await hooked()];
    await undeployFlow(kit, undeployed.flowUuid);
    await deleteFlow(kit, deleted.flowUuid);

    expect((await ask({ hook_token: live.token })).by_hook_token).toMatchObject({ flowUuid: live.flowUuid, versionUuid: live.versionUuid, stepUuid: live.ids.trigger });
    expect((await ask({ hook_token: live.token }, other.api)).by_hook_token).toBeNull();
    expect((await ask({ hook_token: undeployed.token })).by_hook_token).toBeNull();
    expect((await ask({ hook_token: deleted.token })).by_hook_token).toBeNull();
    expect((await ask({ hook_token: 'no-such-token' })).by_hook_token).toBeNull();
  });

  it('liveVersion() answers while the version is live, and null after undeploy or delete', async () => {
    const undeployed = await deployFlow(kit, [{ name: 'trigger' }]);
    const deleted = await deployFlow(kit, [{ name: 'trigger' }]);
    for (const flow of [undeployed, deleted]) expect((await ask({ version_uuid: flow.versionUuid })).live_version).toMatchObject({ versionUuid: flow.versionUuid });
    expect((await ask({ version_uuid: undeployed.versionUuid }, other.api)).live_version).toBeNull();

    await undeployFlow(kit, undeployed.flowUuid);
    await deleteFlow(kit, deleted.flowUuid);
    for (const flow of [undeployed, deleted]) expect((await ask({ version_uuid: flow.versionUuid })).live_version).toBeNull();
  });

  it('liveVersion() answers only the newest version after a redeploy', async () => {
    const flow = await deployFlow(kit, [{ name: 'trigger' }]);
    await undeployFlow(kit, flow.flowUuid);
    const redeployed = (await kit.api.post(`/api/v1/flow/${flow.flowUuid}/deploy`).expect(200)).body.data.live_version;
    expect(redeployed.number).toBe(2);
    expect((await ask({ version_uuid: flow.versionUuid })).live_version).toBeNull();
    expect((await ask({ version_uuid: redeployed.uuid })).live_version).toMatchObject({ flowUuid: flow.flowUuid, versionUuid: redeployed.uuid });
  });

  it('treats a deleted flow as not live even if its version were still active', async () => {
    // The builder's DELETE also undeploys; FlowTriggers does not rely on it.
    const flow = await deployFlow(kit, [{ name: 'trigger', trigger: 'hooked' }]);
    const token = String(flow.triggerConfig.hook_url).split('/').pop()!;
    await sql(kit, 'update flows set deleted_at = now() where uuid = ?', [flow.flowUuid]);
    const answer = await ask({ app_uid: 'probe', trigger_key: 'hooked', hook_token: token, version_uuid: flow.versionUuid });
    expect(answer.live.filter((trigger: { flowUuid: string }) => trigger.flowUuid === flow.flowUuid)).toEqual([]);
    expect(answer).toMatchObject({ by_hook_token: null, live_version: null });
  });

  it('fire() writes a queued execution at the step after the trigger, and the message that runs it', async () => {
    const flow = await deployFlow(kit, [{ name: 'trigger' }, { name: 'first', action: 'echo' }, { name: 'second', action: 'echo' }]);
    const { data, outbox } = (await kit.api.post('/api/v1/probe/fire').send({ version_uuid: flow.versionUuid, events: [{ order: 42 }], outbox: true }).expect(200)).body;
    const [uuid] = data;
    // The message, as the transaction that wrote the execution saw it (the relay may have sent it since).
    expect(outbox).toEqual([{ topic: SEGMENT_TOPIC, payload: { execution_uuid: uuid, segment: 0 }, tenant_uuid: kit.tenant.uuid }]);

    const [execution] = await sql(kit, 'select * from flow_executions where uuid = ?', [uuid]);
    expect(execution).toMatchObject({
      tenant_uuid: kit.tenant.uuid,
      flow_uuid: flow.flowUuid,
      version_uuid: flow.versionUuid,
      status: 'queued',
      trigger_event: { order: 42 },
      cursor: flow.ids.first,
      segment: 0,
      started_at: null,
      finished_at: null,
      error: null,
    });
  });

  it('fire() writes nothing when the caller’s transaction rolls back', async () => {
    const flow = await deployFlow(kit, [{ name: 'trigger' }, { name: 'first', action: 'echo' }]);
    const pending = () => sql(kit, 'select id from bus_outbox where topic = ?', [SEGMENT_TOPIC]);
    const before = await pending();
    await kit.api.post('/api/v1/probe/fire').send({ version_uuid: flow.versionUuid, events: [{}, {}], rollback: true }).expect(409);
    expect(await sql(kit, 'select 1 from flow_executions where flow_uuid = ?', [flow.flowUuid])).toEqual([]);
    expect(await pending()).toEqual(before);
  });
});
