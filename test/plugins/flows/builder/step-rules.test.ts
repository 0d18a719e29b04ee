import { startTestKernel, type ApiClient, type TestKernel } from '../../../../core/testing';
import { addStep, check, createFlow, echo, flowWithTrigger, manualTrigger, readFlow, type Json } from './builder-helpers';
import { BUILDER_PLUGINS } from './fixture-apps';

/** Step creation rules 1-8 of the spec, each 422 and 409 case, and PATCH's re-check of rules 4-6. */

const MAX_STEPS = 5;
let kit: TestKernel;

beforeAll(async () => {
  kit = await startTestKernel({ plugins: BUILDER_PLUGINS, config: { flows: { maxStepsPerFlow: MAX_STEPS } } });
});
afterAll(() => kit?.stop());

const createAgent = async (api: ApiClient, name = 'Reception'): Promise<string> => (await api.post('/api/v1/agents').send({ name }).expect(201)).body.data.agent_uuid;
const createConnection = async (api: ApiClient, label = 'Main CRM'): Promise<string> =>
  (await api.post('/api/v1/flow/connections').send({ app_uid: 'crm', label, credentials: { api_key: 'key-1234' } }).expect(201)).body.data.uuid;

/** Posts a step expecting 422 whose `errors` names exactly `paths`, and checks the flow did not change at all. */
async function refused(flowUuid: string, body: Json, paths: string[], api: ApiClient = kit.api): Promise<Json> {
  const before = await readFlow(api, flowUuid);
  const res = await api.post(`/api/v1/flow/${flowUuid}/steps`).send(body).expect(422);
  expect(Object.keys(res.body.errors).sort()).toEqual([...paths].sort());
  expect(await readFlow(api, flowUuid)).toEqual(before);
  return res.body.errors;
}

describe('the step as created and read', () => {
  it('answers 201 {data: step} with exactly the spec’s members, plus status_message and continue_on_error', async () => {
    const flow = await createFlow(kit.api);
    const trigger = (await kit.api.post(`/api/v1/flow/${flow.uuid}/steps`).send({ ...manualTrigger, config: { label: 'go' } }).expect(201)).body;
    expect(Object.keys(trigger)).toEqual(['data']);
    expect(trigger.data).toEqual({
      uuid: expect.any(String),
      position: 1,
      kind: 'trigger',
      status: 'ready',
      status_message: null,
      parent_step_uuid: null,
      branch_key: null,
      app: { uid: 'kit', name: 'Kit', icon: 'https://kit.test/icon.png', category: 'builtin', requires_connection: false },
      trigger: { key: 'manual', name: 'Manual start', version: 1, latest_version: 1 },
      action: null,
      agent: null,
      app_connection: null,
      config: { label: 'go' },
      continue_on_error: false,
      last_test: null,
    });
    const action = await addStep(kit.api, flow.uuid, { ...echo('hello'), continue_on_error: true });
    expect(action).toMatchObject({ position: 2, kind: 'action', trigger: null, action: { key: 'echo', name: 'Echo' }, continue_on_error: true, status: 'ready' });
  });

  it('is a trigger with trigger_key and an action with action_key: exactly one of them', async () => {
    const { flow } = await flowWithTrigger(kit.api);
    expect(await refused(flow.uuid, { app_uid: 'kit', config: {} }, ['action_key'])).toEqual({ action_key: [expect.stringContaining('give trigger_key')] });
    expect(await refused(flow.uuid, { app_uid: 'kit', trigger_key: 'manual', action_key: 'echo' }, ['action_key', 'trigger_key'])).toMatchObject({
      action_key: [expect.stringContaining('not both')],
    });
  });

  it('refuses an unknown app, trigger or action with 422 naming the field', async () => {
    const flow = await createFlow(kit.api);
    expect(await refused(flow.uuid, { app_uid: 'nope', trigger_key: 'manual' }, ['app_uid'])).toEqual({ app_uid: [expect.stringContaining('no app "nope"')] });
    expect(await refused(flow.uuid, { app_uid: 'kit', trigger_key: 'nope' }, ['trigger_key'])).toEqual({ trigger_key: ['app "kit" has no trigger "nope"'] });
    await addStep(kit.api, flow.uuid, manualTrigger);
    expect(await refused(flow.uuid, { app_uid: 'kit', action_key: 'nope' }, ['action_key'])).toEqual({ action_key: ['app "kit" has no action "nope"'] });
  });

  it('refuses unknown body members and ill-typed ones before any rule', async () => {
    const { flow } = await flowWithTrigger(kit.api);
    const res = await kit.api.post(`/api/v1/flow/${flow.uuid}/steps`).send({ app_uid: 'kit', action_key: 'echo', config: 'text', colour: 'red', agent_uuid: 'x' }).expect(422);
    expect(Object.keys(res.body.errors).sort()).toEqual(['agent_uuid', 'colour', 'config']);
  });
});

describe('rule 2: a trigger', () => {
  it('needs a flow without a trigger: one trigger per flow', async () => {
    const { flow } = await flowWithTrigger(kit.api);
    expect(await refused(flow.uuid, manualTrigger, ['trigger_key'])).toEqual({ trigger_key: [expect.stringContaining('already has a trigger')] });
  });

  it('needs an app that supports triggers', async () => {
    const flow = await createFlow(kit.api);
    expect(await refused(flow.uuid, { app_uid: 'crm', trigger_key: 'create_contact', app_connection_uuid: await createConnection(kit.api) }, ['trigger_key'])).toEqual({
      trigger_key: ['app "crm" has no triggers (supports_trigger is false)'],
    });
  });

  it('is always step 1: it takes no place of its own, and added after the actions it still comes first', async () => {
    const { flow, trigger } = await flowWithTrigger(kit.api);
    const action = await addStep(kit.api, flow.uuid, echo('a'));
    await kit.api.delete(`/api/v1/flow/${flow.uuid}/steps/${trigger.uuid}`).expect(200);
    expect(await refused(flow.uuid, { ...manualTrigger, insert_after_step_uuid: action.uuid, parent_step_uuid: action.uuid, branch_key: 'true' }, ['branch_key', 'insert_after_step_uuid', 'parent_step_uuid'])).toEqual({
      insert_after_step_uuid: ['must be null for a trigger: the trigger is always step 1'],
      parent_step_uuid: ['must be null for a trigger: the trigger is always step 1'],
      branch_key: ['must be null for a trigger: the trigger is always step 1'],
    });
    const again = await addStep(kit.api, flow.uuid, manualTrigger);
    expect(again.position).toBe(1);
    expect((await readFlow(kit.api, flow.uuid)).steps.map((step: Json) => step.uuid)).toEqual([again.uuid, action.uuid]);
  });
});

describe('rule 3: an action', () => {
  it('needs a flow that already has its trigger', async () => {
    const flow = await createFlow(kit.api);
    expect(await refused(flow.uuid, echo('early'), ['action_key'])).toEqual({ action_key: [expect.stringContaining('no trigger yet')] });
  });

  it('needs an app that supports actions', async () => {
    const { flow } = await flowWithTrigger(kit.api);
    expect(await refused(flow.uuid, { app_uid: 'clock', action_key: 'tick' }, ['action_key'])).toEqual({ action_key: ['app "clock" has no actions (supports_action is false)'] });
  });
});

describe('rules 4 and 5: connections', () => {
  it('4: a connect app needs app_connection_uuid, a connection of this app, and shows it as {uuid, label}', async () => {
    const { flow } = await flowWithTrigger(kit.api);
    const contact = { app_uid: 'crm', action_key: 'create_contact', config: { email: 'a@b.test' } };
    expect(await refused(flow.uuid, contact, ['app_connection_uuid'])).toEqual({ app_connection_uuid: [expect.stringContaining('is required')] });
    expect(await refused(flow.uuid, { ...contact, app_connection_uuid: '0190d5c2-0000-7000-8000-000000000000' }, ['app_connection_uuid'])).toEqual({
      app_connection_uuid: ['is not a connection of app "crm" in this tenant'],
    });
    const connection = await createConnection(kit.api, 'Sales CRM');
    const step = await addStep(kit.api, flow.uuid, { ...contact, app_connection_uuid: connection });
    expect(step).toMatchObject({ app: { uid: 'crm', category: 'connect', requires_connection: true }, app_connection: { uuid: connection, label: 'Sales CRM' }, status: 'ready' });
  });

  it('5: a builtin app takes no connection', async () => {
    const { flow } = await flowWithTrigger(kit.api);
    expect(await refused(flow.uuid, { ...echo('x'), app_connection_uuid: await createConnection(kit.api) }, ['app_connection_uuid'])).toEqual({
      app_connection_uuid: ['must be null: "kit" is a builtin app and takes no connection'],
    });
    expect((await addStep(kit.api, flow.uuid, { ...echo('x'), app_connection_uuid: null })).app_connection).toBeNull();
  });
});

describe('rule 6: agents', () => {
  it('actions of an agent app need agent_uuid, an agent of this tenant, shown as {uuid, name}', async () => {
    const { flow } = await flowWithTrigger(kit.api);
    const notify = { app_uid: 'staff', action_key: 'notify', config: { text: 'hi' } };
    expect(await refused(flow.uuid, notify, ['agent_uuid'])).toEqual({ agent_uuid: ['is required: actions of "staff" act on an agent'] });
    const other = await kit.createTenant();
    const theirs = await createAgent(other.api);
    expect(await refused(flow.uuid, { ...notify, agent_uuid: theirs }, ['agent_uuid'])).toEqual({ agent_uuid: ['is not an agent of this tenant'] });
    const mine = await createAgent(kit.api, 'Front desk');
    expect(await addStep(kit.api, flow.uuid, { ...notify, agent_uuid: mine })).toMatchObject({ agent: { uuid: mine, name: 'Front desk' }, status: 'ready' });
  });

  it('a trigger of an agent app may go without one; steps of other apps take none', async () => {
    const flow = await createFlow(kit.api);
    expect((await addStep(kit.api, flow.uuid, { app_uid: 'staff', trigger_key: 'agent_changed' })).agent).toBeNull();
    expect(await refused(flow.uuid, { ...echo('x'), agent_uuid: await createAgent(kit.api) }, ['agent_uuid'])).toEqual({ agent_uuid: ['must be null: steps of "kit" take no agent'] });
  });

  it('a step whose agent is deleted later becomes a draft saying so, and shows no agent', async () => {
    const { flow } = await flowWithTrigger(kit.api);
    const agent = await createAgent(kit.api, 'Leaving');
    const step = await addStep(kit.api, flow.uuid, { app_uid: 'staff', action_key: 'notify', agent_uuid: agent, config: { text: 'bye' } });
    await kit.api.delete(`/api/v1/agents/${agent}`).expect(200);
    const read = (await kit.api.get(`/api/v1/flow/${flow.uuid}/steps/${step.uuid}`).expect(200)).body.data;
    expect(read).toMatchObject({ agent: null, status: 'draft', status_message: 'agent_uuid: the agent was deleted' });
  });
});

describe('rule 7: branch children', () => {
  it('need parent_step_uuid naming a branching step of this flow, and branch_key one of its branches', async () => {
    const { flow, trigger } = await flowWithTrigger(kit.api);
    const plain = await addStep(kit.api, flow.uuid, echo('plain'));
    const branching = await addStep(kit.api, flow.uuid, check());
    const other = await flowWithTrigger(kit.api);
    const elsewhere = await addStep(kit.api, other.flow.uuid, check());

    expect(await refused(flow.uuid, { ...echo('x'), parent_step_uuid: elsewhere.uuid, branch_key: 'true' }, ['parent_step_uuid'])).toEqual({ parent_step_uuid: ['is not a step of this flow'] });
    expect(await refused(flow.uuid, { ...echo('x'), parent_step_uuid: plain.uuid, branch_key: 'true' }, ['parent_step_uuid'])).toEqual({
      parent_step_uuid: [expect.stringContaining('step 2 (kit.echo) does not branch')],
    });
    expect(await refused(flow.uuid, { ...echo('x'), parent_step_uuid: trigger.uuid, branch_key: 'true' }, ['parent_step_uuid'])).toEqual({
      parent_step_uuid: [expect.stringContaining('step 1 (kit.manual) does not branch')],
    });
    expect(await refused(flow.uuid, { ...echo('x'), parent_step_uuid: branching.uuid }, ['branch_key'])).toEqual({ branch_key: ['is required with parent_step_uuid: one of true, false'] });
    expect(await refused(flow.uuid, { ...echo('x'), parent_step_uuid: branching.uuid, branch_key: 'maybe' }, ['branch_key'])).toEqual({
      branch_key: ['"maybe" is not a branch of step 3 (kit.check): one of true, false'],
    });
    expect(await refused(flow.uuid, { ...echo('x'), branch_key: 'true' }, ['branch_key'])).toEqual({ branch_key: ['is only allowed with parent_step_uuid'] });

    const child = await addStep(kit.api, flow.uuid, { ...echo('child'), parent_step_uuid: branching.uuid, branch_key: 'false' });
    expect(child).toMatchObject({ parent_step_uuid: branching.uuid, branch_key: 'false', position: 4 });
  });
});

describe('rule 8: a live flow cannot be edited', () => {
  it('answers 409 to adding, changing or deleting a step until undeployed, and changes nothing', async () => {
    const { flow, trigger } = await flowWithTrigger(kit.api);
    const step = await addStep(kit.api, flow.uuid, echo('one'));
    await kit.api.post(`/api/v1/flow/${flow.uuid}/deploy`).expect(200);
    const live = await readFlow(kit.api, flow.uuid);
    const conflict = async (request: Promise<{ status: number; body: unknown }>) => {
      const res = await request;
      expect([res.status, res.body]).toEqual([409, { success: false, message: expect.stringContaining('undeploy it first'), data: [] }]);
    };

    await conflict(kit.api.post(`/api/v1/flow/${flow.uuid}/steps`).send(echo('two')));
    // 409 wins over 422: whatever else is wrong, the client must undeploy first.
    await conflict(kit.api.post(`/api/v1/flow/${flow.uuid}/steps`).send({ app_uid: 'nope', action_key: 'x' }));
    await conflict(kit.api.patch(`/api/v1/flow/${flow.uuid}/steps/${step.uuid}`).send({ config: { message: 'changed' } }));
    await conflict(kit.api.delete(`/api/v1/flow/${flow.uuid}/steps/${trigger.uuid}`));
    expect(await readFlow(kit.api, flow.uuid)).toEqual(live);

    await kit.api.post(`/api/v1/flow/${flow.uuid}/undeploy`).expect(200);
    await addStep(kit.api, flow.uuid, echo('two'));
  });
});

describe('all problems at once', () => {
  it('one 422 names every broken rule, and writes nothing', async () => {
    const { flow } = await flowWithTrigger(kit.api);
    const errors = await refused(
      flow.uuid,
      { app_uid: 'crm', action_key: 'nope', agent_uuid: await createAgent(kit.api), parent_step_uuid: '0190d5c2-0000-7000-8000-000000000000', branch_key: 'true' },
      ['action_key', 'agent_uuid', 'app_connection_uuid', 'parent_step_uuid'],
    );
    expect(errors.action_key).toEqual(['app "crm" has no action "nope"']);
  });
});

describe('the step limit (maxStepsPerFlow)', () => {
  it(`refuses step ${MAX_STEPS + 1} with 422`, async () => {
    const { flow } = await flowWithTrigger(kit.api);
    for (let n = 2; n <= MAX_STEPS; n++) await addStep(kit.api, flow.uuid, echo(`s${n}`));
    expect(await refused(flow.uuid, echo('one too many'), ['steps'])).toEqual({ steps: [`a flow has at most ${MAX_STEPS} steps`] });
  });
});

describe('PATCH /api/v1/flow/{uuid}/steps/{step}', () => {
  it('changes config, agent_uuid, app_connection_uuid and continue_on_error; members absent stay; read-only members are ignored', async () => {
    const { flow } = await flowWithTrigger(kit.api);
    const [first, second] = [await createAgent(kit.api, 'First'), await createAgent(kit.api, 'Second')];
    const step = await addStep(kit.api, flow.uuid, { app_uid: 'staff', action_key: 'notify', agent_uuid: first, config: { text: 'a' } });
    const path = `/api/v1/flow/${flow.uuid}/steps/${step.uuid}`;
    const moved = (await kit.api.patch(path).send({ agent_uuid: second }).expect(200)).body.data;
    expect(moved).toEqual({ ...step, agent: { uuid: second, name: 'Second' } });
    const sentBack = (await kit.api.patch(path).send({ ...moved, position: 9, kind: 'trigger', status: 'ready', config: { text: 'b' }, continue_on_error: true }).expect(200)).body.data;
    expect(sentBack).toEqual({ ...moved, config: { text: 'b' }, continue_on_error: true });
    await kit.api.get(path).expect(200, { data: sentBack });
  });

  it('re-checks rules 4-6 against the resulting connection and agent, and refuses a change of app or place', async () => {
    const { flow } = await flowWithTrigger(kit.api);
    const agent = await createAgent(kit.api);
    const staff = await addStep(kit.api, flow.uuid, { app_uid: 'staff', action_key: 'notify', agent_uuid: agent, config: { text: 'a' } });
    const kitStep = await addStep(kit.api, flow.uuid, echo('k'));
    const connection = await createConnection(kit.api);
    const crm = await addStep(kit.api, flow.uuid, { app_uid: 'crm', action_key: 'create_contact', app_connection_uuid: connection, config: { email: 'x' } });
    const patch = async (step: Json, body: Json, paths: string[]) => {
      const res = await kit.api.patch(`/api/v1/flow/${flow.uuid}/steps/${step.uuid}`).send(body).expect(422);
      expect(Object.keys(res.body.errors).sort()).toEqual(paths);
    };
    const before = await readFlow(kit.api, flow.uuid);
    await patch(staff, { agent_uuid: null }, ['agent_uuid']);
    await patch(staff, { agent_uuid: await createAgent((await kit.createTenant()).api) }, ['agent_uuid']);
    await patch(kitStep, { app_connection_uuid: connection, agent_uuid: agent }, ['agent_uuid', 'app_connection_uuid']);
    await patch(crm, { app_connection_uuid: null }, ['app_connection_uuid']);
    await patch(crm, { app_uid: 'kit', action_key: 'echo', insert_after_step_uuid: staff.uuid }, ['action_key', 'app_uid', 'insert_after_step_uuid']);
    expect(await readFlow(kit.api, flow.uuid)).toEqual(before);
  });

  it('answers 404 for a step of another flow', async () => {
    const a = await flowWithTrigger(kit.api);
    const b = await flowWithTrigger(kit.api);
    await kit.api.get(`/api/v1/flow/${a.flow.uuid}/steps/${b.trigger.uuid}`).expect(404, { success: false, message: 'Step not found', data: [] });
    await kit.api.patch(`/api/v1/flow/${a.flow.uuid}/steps/${b.trigger.uuid}`).send({}).expect(404);
    await kit.api.delete(`/api/v1/flow/${a.flow.uuid}/steps/${b.trigger.uuid}`).expect(404);
  });
});
