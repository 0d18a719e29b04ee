import { startTestKernel, type TestKernel } from '../../../../core/testing';
import { addStep, check, echo, flowWithTrigger, readFlow, type Json } from './builder-helpers';
import { BUILDER_PLUGINS } from './fixture-apps';

/** POST /api/v1/flow/{uuid}/steps/{step}/test: runs one step and keeps its output in last_test for the steps after it. */

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
let kit: TestKernel;

beforeAll(async () => {
  kit = await startTestKernel({ plugins: BUILDER_PLUGINS });
});
afterAll(() => kit?.stop());

const runTest = async (flowUuid: string, stepUuid: string): Promise<Json> => {
  const res = await kit.api.post(`/api/v1/flow/${flowUuid}/steps/${stepUuid}/test`).expect(200);
  expect(Object.keys(res.body)).toEqual(['data']);
  return res.body.data;
};

/** An execution row as the engine writes it: only its trigger event matters here. */
async function recordExecution(flowUuid: string, versionUuid: string, triggerEvent: unknown, createdAt: string): Promise<void> {
  await kit.kernel.orm.em
    .fork()
    .getConnection()
    .execute(
      `insert into flow_executions (uuid, tenant_uuid, created_at, updated_at, flow_uuid, version_uuid, status, trigger_event) values (gen_random_uuid(), ?, ?, ?, ?, ?, 'succeeded', ?)`,
      [kit.tenant.uuid, createdAt, createdAt, flowUuid, versionUuid, JSON.stringify(triggerEvent)],
    );
}

describe('testing a trigger', () => {
  it('gives its sample output while the flow has no execution', async () => {
    const { flow, trigger } = await flowWithTrigger(kit.api);
    const tested = await runTest(flow.uuid, trigger.uuid);
    expect(tested).toEqual({ ...trigger, last_test: { data: { order: { id: 42, total: 9.5 } }, error: null, tested_at: expect.stringMatching(ISO) } });
    expect((await readFlow(kit.api, flow.uuid)).steps[0]).toEqual(tested);
  });

  it('gives the event of the flow’s latest execution once there is one', async () => {
    const { flow, trigger } = await flowWithTrigger(kit.api);
    const version = (await kit.api.post(`/api/v1/flow/${flow.uuid}/deploy`).expect(200)).body.data.live_version.uuid;
    await recordExecution(flow.uuid, version, { order: { id: 7 } }, '2030-01-01T00:00:00Z');
    await recordExecution(flow.uuid, version, { order: { id: 8 } }, '2030-01-02T00:00:00Z');
    // Testing changes no step definition, so it is allowed while the flow is live.
    expect((await runTest(flow.uuid, trigger.uuid)).last_test.data).toEqual({ order: { id: 8 } });
  });
});

describe('testing an action', () => {
  it('renders its references from the earlier steps’ last_test.data, runs it once and keeps the output for later steps', async () => {
    const { flow, trigger } = await flowWithTrigger(kit.api);
    const first = await addStep(kit.api, flow.uuid, { app_uid: 'kit', action_key: 'echo', config: { message: 'order {{step1.order.id}}', count: '{{step1.order.id}}' } });
    const second = await addStep(kit.api, flow.uuid, echo('{{step2.echoed}}!'));

    // Nothing tested before it: references render empty.
    expect((await runTest(flow.uuid, second.uuid)).last_test).toEqual({ data: { echoed: '!', count: null }, error: null, tested_at: expect.stringMatching(ISO) });

    await runTest(flow.uuid, trigger.uuid);
    expect((await runTest(flow.uuid, first.uuid)).last_test.data).toEqual({ echoed: 'order 42', count: 42 });
    expect((await runTest(flow.uuid, second.uuid)).last_test.data).toEqual({ echoed: 'order 42!', count: null });
  });

  it('answers 200 when the action fails, with the error in last_test.error and no data', async () => {
    const { flow } = await flowWithTrigger(kit.api);
    const failing = await addStep(kit.api, flow.uuid, { app_uid: 'kit', action_key: 'fail', config: {} });
    expect((await runTest(flow.uuid, failing.uuid)).last_test).toEqual({ data: null, error: 'the fixture failed on purpose', tested_at: expect.stringMatching(ISO) });
    const invalid = await addStep(kit.api, flow.uuid, { app_uid: 'kit', action_key: 'echo', config: {} });
    expect((await runTest(flow.uuid, invalid.uuid)).last_test).toMatchObject({ data: null, error: expect.stringContaining('message') });
  });

  it('keeps the output of a pausing action (it does not wait) and of a branching one', async () => {
    const { flow } = await flowWithTrigger(kit.api);
    const wait = await addStep(kit.api, flow.uuid, { app_uid: 'kit', action_key: 'wait', config: { seconds: 3600 } });
    const started = Date.now();
    const waited = (await runTest(flow.uuid, wait.uuid)).last_test;
    expect(Date.now() - started).toBeLessThan(5000);
    expect(waited).toMatchObject({ error: null, data: { until: expect.stringMatching(ISO) } });
    expect(Date.parse(waited.data.until)).toBeGreaterThan(started + 3500_000);
    const branching = await addStep(kit.api, flow.uuid, check('no'));
    expect((await runTest(flow.uuid, branching.uuid)).last_test.data).toEqual({ matched: false });
  });

  it('gives an agent action its agent', async () => {
    const { flow } = await flowWithTrigger(kit.api);
    const agent = (await kit.api.post('/api/v1/agents').send({ name: 'Tester' }).expect(201)).body.data.agent_uuid;
    const notify = await addStep(kit.api, flow.uuid, { app_uid: 'staff', action_key: 'notify', agent_uuid: agent, config: { text: 'hi' } });
    expect((await runTest(flow.uuid, notify.uuid)).last_test.data).toEqual({ agent_uuid: agent });
  });
});

it('answers 404 for a step of another flow or tenant', async () => {
  const { flow } = await flowWithTrigger(kit.api);
  const other = await flowWithTrigger(kit.api);
  await kit.api.post(`/api/v1/flow/${flow.uuid}/steps/${other.trigger.uuid}/test`).expect(404, { success: false, message: 'Step not found', data: [] });
  const stranger = await kit.createTenant();
  await stranger.api.post(`/api/v1/flow/${flow.uuid}/steps/${other.trigger.uuid}/test`).expect(404);
});
