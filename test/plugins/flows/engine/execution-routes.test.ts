import { newUuid } from '../../../../core';
import { startTestKernel, type TestKernel, type TestTenant } from '../../../../core/testing';
import { AGENTS, FLOWS, PROBE, TRANSPORT, deleteFlow, deployFlow, finished, fire, stepRows, waitFor, type Deployed } from './engine-helpers';

/** GET /api/v1/flow/:uuid/executions and /executions/:execution: the history of a flow's runs. */
let kit: TestKernel;
let other: TestTenant;
let flow: Deployed;
/** Oldest first: succeeded, failed, running (paused), succeeded. */
let executions: string[];
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

beforeAll(async () => {
  kit = await startTestKernel({ plugins: [AGENTS, FLOWS, PROBE], config: { ...TRANSPORT, busPollIntervalMs: 50 } });
  other = await kit.createTenant();
  flow = await deployFlow(kit, [
    { name: 'trigger' },
    { name: 'choose', action: 'choose', config: { branch: '{{step1.way}}' } },
    { name: 'ok', action: 'echo', parent: 'choose', branch: 'true', config: { value: '{{step1.n}}' } },
    { name: 'boom', action: 'fail', parent: 'choose', branch: 'false', config: { message: 'no way' } },
    { name: 'wait', action: 'wait', config: { ms: '{{step1.wait}}' } },
  ]);
  executions = [];
  // One at a time, so that creation order is the order they were fired in.
  for (const event of [
    { way: 'true', n: 1, wait: 0 },
    { way: 'false', n: 2, wait: 0 },
    { way: 'true', n: 3, wait: 600_000 },
    { way: 'true', n: 4, wait: 0 },
  ]) {
    const [uuid] = await fire(kit.api, flow.versionUuid, [event]);
    executions.push(uuid);
  }
  for (const uuid of [executions[0], executions[1], executions[3]]) await finished(kit, uuid);
  await waitFor(() => stepRows(kit, executions[2]), (rows) => rows.length === 3);
});
afterAll(() => kit?.stop());

const list = (query = '', api = kit.api, uuid = flow.flowUuid) => api.get(`/api/v1/flow/${uuid}/executions${query}`);
const read = (execution: string, api = kit.api, uuid = flow.flowUuid) => api.get(`/api/v1/flow/${uuid}/executions/${execution}`);

describe('GET /api/v1/flow/:uuid/executions', () => {
  it('lists the flow’s executions newest first, as summaries', async () => {
    const { body } = await list().expect(200);
    expect(body.success).toBe(true);
    expect(body.data.items.map((item: { uuid: string }) => item.uuid)).toEqual([...executions].reverse());
    expect(body.data.items.map((item: { status: string }) => item.status)).toEqual(['succeeded', 'running', 'failed', 'succeeded']);
    const failed = body.data.items[2];
    expect(failed).toEqual({
      uuid: executions[1],
      flow_uuid: flow.flowUuid,
      version: 1,
      version_uuid: flow.versionUuid,
      status: 'failed',
      error: 'Step 4 (probe.fail) failed: no way',
      created_at: expect.stringMatching(ISO),
      started_at: expect.stringMatching(ISO),
      finished_at: expect.stringMatching(ISO),
    });
    expect(body.data.items[1]).toMatchObject({ status: 'running', finished_at: null, error: null });
    expect(body.data.pagination).toEqual({ current_page: 1, per_page: 25, total: 4, last_page: 1, from: 1, to: 4, has_more: false });
  });

  it('pages', async () => {
    const { body } = await list('?per_page=3&page=2').expect(200);
    expect(body.data.items.map((item: { uuid: string }) => item.uuid)).toEqual([executions[0]]);
    expect(body.data.pagination).toMatchObject({ current_page: 2, per_page: 3, total: 4, last_page: 2, from: 4, to: 4, has_more: false });
  });

  it('filters by status', async () => {
    const ids = async (status: string) => (await list(`?status=${status}`).expect(200)).body.data.items.map((item: { uuid: string }) => item.uuid);
    expect(await ids('succeeded')).toEqual([executions[3], executions[0]]);
    expect(await ids('failed')).toEqual([executions[1]]);
    expect(await ids('running')).toEqual([executions[2]]);
    expect(await ids('queued')).toEqual([]);
    const bad = await list('?status=done').expect(422);
    expect(Object.keys(bad.body.errors)).toEqual(['status']);
  });

  it('answers an empty page for a flow that never ran', async () => {
    const idle = await deployFlow(kit, [{ name: 'trigger' }]);
    const { body } = await list('', kit.api, idle.flowUuid).expect(200);
    expect(body.data).toEqual({ items: [], pagination: { current_page: 1, per_page: 25, total: 0, last_page: 1, from: null, to: null, has_more: false } });
  });
});

describe('GET /api/v1/flow/:uuid/executions/:execution', () => {
  it('shows the trigger event and each step that ran, in order', async () => {
    const { body } = await read(executions[0]).expect(200);
    expect(body.data).toEqual({
      uuid: executions[0],
      flow_uuid: flow.flowUuid,
      version: 1,
      version_uuid: flow.versionUuid,
      status: 'succeeded',
      error: null,
      created_at: expect.stringMatching(ISO),
      started_at: expect.stringMatching(ISO),
      finished_at: expect.stringMatching(ISO),
      trigger_event: { way: 'true', n: 1, wait: 0 },
      steps: [
        { step_uuid: flow.ids.choose, position: 2, status: 'succeeded', request: { branch: 'true' }, response: { chose: 'true' }, error: null, duration_ms: expect.any(Number) },
        { step_uuid: flow.ids.ok, position: 3, status: 'succeeded', request: { value: 1 }, response: { value: 1 }, error: null, duration_ms: expect.any(Number) },
        { step_uuid: flow.ids.wait, position: 5, status: 'succeeded', request: { ms: 0 }, response: { resume_at: expect.stringMatching(ISO) }, error: null, duration_ms: expect.any(Number) },
      ],
    });
  });

  it('shows a failed step’s error and a paused step as waiting', async () => {
    const failed = (await read(executions[1]).expect(200)).body.data;
    expect(failed.steps.map((step: any) => [step.position, step.status, step.error, step.response])).toEqual([
      [2, 'succeeded', null, { chose: 'false' }],
      [4, 'failed', 'no way', null],
    ]);
    const paused = (await read(executions[2]).expect(200)).body.data;
    expect(paused).toMatchObject({ status: 'running', finished_at: null });
    expect(paused.steps.at(-1)).toMatchObject({ step_uuid: flow.ids.wait, status: 'waiting' });
  });
});

describe('executions that are not there', () => {
  const notFound = (message: string) => ({ success: false, message, data: [] });

  it('answers 404 for an unknown flow or execution, or an execution of another flow', async () => {
    await list('', kit.api, newUuid()).expect(404, notFound('Flow not found'));
    await read(executions[0], kit.api, newUuid()).expect(404, notFound('Flow not found'));
    await read(newUuid()).expect(404, notFound('Execution not found'));
    const sibling = await deployFlow(kit, [{ name: 'trigger' }]);
    await read(executions[0], kit.api, sibling.flowUuid).expect(404, notFound('Execution not found'));
  });

  it('answers 404 to another tenant', async () => {
    await list('', other.api).expect(404, notFound('Flow not found'));
    await read(executions[0], other.api).expect(404, notFound('Flow not found'));
  });

  it('answers 404 once the flow is deleted', async () => {
    const doomed = await deployFlow(kit, [{ name: 'trigger' }, { name: 'echo', action: 'echo' }]);
    const [uuid] = await fire(kit.api, doomed.versionUuid);
    await finished(kit, uuid);
    await read(uuid, kit.api, doomed.flowUuid).expect(200);
    await deleteFlow(kit, doomed.flowUuid);
    await list('', kit.api, doomed.flowUuid).expect(404, notFound('Flow not found'));
    await read(uuid, kit.api, doomed.flowUuid).expect(404, notFound('Flow not found'));
  });
});
