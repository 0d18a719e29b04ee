import { startTestKernel, type TestKernel } from '../../../../core/testing';
import { addStep, check, createFlow, echo, flowWithTrigger, readFlow, type Json } from './builder-helpers';
import { BUILDER_PLUGINS, lifecycleCalls } from './fixture-apps';

/** Deploy (draft -> live, an immutable version, the trigger's onDeploy) and undeploy (live -> draft, onUndeploy). */

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
let kit: TestKernel;

beforeAll(async () => {
  kit = await startTestKernel({ plugins: BUILDER_PLUGINS });
});
afterAll(() => kit?.stop());

const versionsOf = (flowUuid: string): Promise<Json[]> =>
  kit.kernel.orm.em
    .fork()
    .getConnection()
    .execute('select uuid, number, active, definition, trigger_app_uid, trigger_key, hook_token from flow_versions where flow_uuid = ? order by number', [flowUuid]);
const callsFor = (flowUuid: string) => lifecycleCalls.filter((call) => call.flowUuid === flowUuid);

describe('POST /api/v1/flow/{uuid}/deploy', () => {
  it('refuses a flow without a trigger with 422', async () => {
    const flow = await createFlow(kit.api);
    const res = await kit.api.post(`/api/v1/flow/${flow.uuid}/deploy`).expect(422);
    expect(res.body).toEqual({ message: 'The flow has no trigger', errors: { steps: [expect.stringContaining('the flow has no trigger')] } });
  });

  it('refuses a flow with steps that are not ready with 422 naming each by position, and stays a draft', async () => {
    const { flow } = await flowWithTrigger(kit.api);
    await addStep(kit.api, flow.uuid, echo('fine'));
    await addStep(kit.api, flow.uuid, { app_uid: 'kit', action_key: 'echo', config: {} });
    await addStep(kit.api, flow.uuid, { app_uid: 'kit', action_key: 'wait', config: { seconds: 0 } });
    const res = await kit.api.post(`/api/v1/flow/${flow.uuid}/deploy`).expect(422);
    expect(res.body).toEqual({
      message: '2 steps are not ready',
      errors: {
        'steps.3': ['step 3 (kit.echo) is not ready: config.message is required'],
        'steps.4': ['step 4 (kit.wait) is not ready: config.seconds must be >= 1'],
      },
    });
    expect(await readFlow(kit.api, flow.uuid)).toMatchObject({ status: 'draft', live_version: null });
    expect(await versionsOf(flow.uuid)).toEqual([]);
  });

  it('snapshots the flow as version 1 with every step’s links, makes it live and starts the trigger in the same transaction', async () => {
    const { flow, trigger } = await flowWithTrigger(kit.api, 'Deploy me');
    await kit.api.patch(`/api/v1/flow/${flow.uuid}/steps/${trigger.uuid}`).send({ config: { label: 'go' } }).expect(200);
    const branch = await addStep(kit.api, flow.uuid, check('{{step1.order.id}}'));
    const t1 = await addStep(kit.api, flow.uuid, echo('{{step2.matched}}', { parent_step_uuid: branch.uuid, branch_key: 'true', continue_on_error: true }));
    const z = await addStep(kit.api, flow.uuid, echo('z'));

    const res = await kit.api.post(`/api/v1/flow/${flow.uuid}/deploy`).expect(200);
    expect(Object.keys(res.body)).toEqual(['data']);
    const live = res.body.data;
    expect(live).toMatchObject({ status: 'live', live_version: { uuid: expect.any(String), number: 1, deployed_at: expect.stringMatching(ISO) } });
    expect(await readFlow(kit.api, flow.uuid)).toEqual(live);

    const [version] = await versionsOf(flow.uuid);
    expect(version).toMatchObject({ uuid: live.live_version.uuid, number: 1, active: true, trigger_app_uid: 'kit', trigger_key: 'manual', hook_token: null });
    const common = { agent_uuid: null, app_connection_uuid: null, app_uid: 'kit', definition_version: 1 };
    expect(version.definition).toEqual({
      trigger: trigger.uuid,
      steps: {
        [trigger.uuid]: { ...common, uuid: trigger.uuid, position: 1, kind: 'trigger', trigger_key: 'manual', action_key: null, config: { label: 'go' }, continue_on_error: false, next: branch.uuid },
        [branch.uuid]: {
          ...common,
          uuid: branch.uuid,
          position: 2,
          kind: 'action',
          trigger_key: null,
          action_key: 'check',
          config: { value: `{{#${trigger.uuid}.order.id}}` },
          continue_on_error: false,
          next: z.uuid,
          branches: { true: t1.uuid, false: null },
        },
        [t1.uuid]: { ...common, uuid: t1.uuid, position: 3, kind: 'action', trigger_key: null, action_key: 'echo', config: { message: `{{#${branch.uuid}.matched}}` }, continue_on_error: true, next: z.uuid },
        [z.uuid]: { ...common, uuid: z.uuid, position: 4, kind: 'action', trigger_key: null, action_key: 'echo', config: { message: 'z' }, continue_on_error: false, next: null },
      },
    });
    expect(callsFor(flow.uuid)).toEqual([
      { hook: 'deploy', flowUuid: flow.uuid, stepUuid: trigger.uuid, versionUuid: version.uuid, input: { label: 'go' }, tenant: 'acme', versionRows: 1 },
    ]);
  });

  it('answers 409 when the flow is already live, and makes no second version', async () => {
    const { flow } = await flowWithTrigger(kit.api);
    await kit.api.post(`/api/v1/flow/${flow.uuid}/deploy`).expect(200);
    const res = await kit.api.post(`/api/v1/flow/${flow.uuid}/deploy`).expect(409);
    expect(res.body).toEqual({ success: false, message: expect.stringContaining('already live'), data: [] });
    expect((await versionsOf(flow.uuid)).length).toBe(1);
  });

  it('keeps the hook token of a hook trigger on the version, where hooks find the live flow', async () => {
    const flow = await createFlow(kit.api);
    const hooked = await addStep(kit.api, flow.uuid, { app_uid: 'kit', trigger_key: 'hooked' });
    await kit.api.post(`/api/v1/flow/${flow.uuid}/deploy`).expect(200);
    expect((await versionsOf(flow.uuid))[0].hook_token).toBe(hooked.config.hook_url.split('/').pop());
  });

  it('writes nothing when the trigger refuses to start (its error rolls the deploy back)', async () => {
    const flow = await createFlow(kit.api);
    await addStep(kit.api, flow.uuid, { app_uid: 'kit', trigger_key: 'manual', config: { refuse_deploy: true } });
    await kit.api.post(`/api/v1/flow/${flow.uuid}/deploy`).expect(500);
    expect(await readFlow(kit.api, flow.uuid)).toMatchObject({ status: 'draft', live_version: null });
    expect(await versionsOf(flow.uuid)).toEqual([]);
  });
});

describe('POST /api/v1/flow/{uuid}/undeploy', () => {
  it('returns the flow to draft, deactivates its version (kept as history) and stops the trigger; steps can change again', async () => {
    const { flow, trigger } = await flowWithTrigger(kit.api);
    const deployed = (await kit.api.post(`/api/v1/flow/${flow.uuid}/deploy`).expect(200)).body.data;
    const res = await kit.api.post(`/api/v1/flow/${flow.uuid}/undeploy`).expect(200);
    expect(res.body.data).toEqual({ ...deployed, status: 'draft', live_version: null, updated_at: expect.stringMatching(ISO) });
    const [version] = await versionsOf(flow.uuid);
    expect(version).toMatchObject({ uuid: deployed.live_version.uuid, active: false });
    expect(callsFor(flow.uuid).map((call) => [call.hook, call.versionUuid, call.stepUuid, call.versionRows])).toEqual([
      ['deploy', version.uuid, trigger.uuid, 1],
      // Inside the undeploying transaction the version is already inactive.
      ['undeploy', version.uuid, trigger.uuid, 0],
    ]);
    await addStep(kit.api, flow.uuid, echo('after undeploy'));
  });

  it('is a no-op 200 on a draft flow', async () => {
    const { flow } = await flowWithTrigger(kit.api);
    const before = await readFlow(kit.api, flow.uuid);
    await kit.api.post(`/api/v1/flow/${flow.uuid}/undeploy`).expect(200, { data: before });
    expect(callsFor(flow.uuid)).toEqual([]);
  });

  it('numbers later deploys 2, 3, ...; an earlier version never changes with later edits', async () => {
    const { flow } = await flowWithTrigger(kit.api);
    const step = await addStep(kit.api, flow.uuid, echo('v1'));
    await kit.api.post(`/api/v1/flow/${flow.uuid}/deploy`).expect(200);
    await kit.api.post(`/api/v1/flow/${flow.uuid}/undeploy`).expect(200);
    await kit.api.patch(`/api/v1/flow/${flow.uuid}/steps/${step.uuid}`).send({ config: { message: 'v2' } }).expect(200);
    const second = (await kit.api.post(`/api/v1/flow/${flow.uuid}/deploy`).expect(200)).body.data;
    expect(second.live_version.number).toBe(2);
    const [v1, v2] = await versionsOf(flow.uuid);
    expect([v1.active, v1.definition.steps[step.uuid].config]).toEqual([false, { message: 'v1' }]);
    expect([v2.active, v2.uuid, v2.definition.steps[step.uuid].config]).toEqual([true, second.live_version.uuid, { message: 'v2' }]);
  });
});

describe('a live flow', () => {
  it('may be renamed and described (PATCH), staying live on the same version', async () => {
    const { flow } = await flowWithTrigger(kit.api);
    const live = (await kit.api.post(`/api/v1/flow/${flow.uuid}/deploy`).expect(200)).body.data;
    const renamed = (await kit.api.patch(`/api/v1/flow/${flow.uuid}`).send({ name: 'Renamed live', description: 'still running' }).expect(200)).body.data;
    expect(renamed).toEqual({ ...live, name: 'Renamed live', description: 'still running', updated_at: expect.stringMatching(ISO) });
  });

  it('when deleted, is undeployed first: its version stops and its trigger’s onUndeploy runs', async () => {
    const { flow } = await flowWithTrigger(kit.api);
    await kit.api.post(`/api/v1/flow/${flow.uuid}/deploy`).expect(200);
    await kit.api.delete(`/api/v1/flow/${flow.uuid}`).expect(200);
    expect((await versionsOf(flow.uuid)).map((version) => version.active)).toEqual([false]);
    expect(callsFor(flow.uuid).map((call) => call.hook)).toEqual(['deploy', 'undeploy']);
    await kit.api.get(`/api/v1/flow/${flow.uuid}`).expect(404);
  });
});
