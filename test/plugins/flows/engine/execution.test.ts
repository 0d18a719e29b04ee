import { startTestKernel, type TestKernel } from '../../../../core/testing';
import { CallRecorder } from './call-recorder';
import { AGENTS, FLOWS, PROBE, TRANSPORT, deleteFlow, deployFlow, executionRow, finished, fire, stepRows, undeployFlow, waitFor } from './engine-helpers';

/** Executions run by the engine's consumer: segments, step records, branches, failures. */
let kit: TestKernel;
const recorder = new CallRecorder();
let url: string;

beforeAll(async () => {
  url = await recorder.start();
  kit = await startTestKernel({ plugins: [AGENTS, FLOWS, PROBE], config: { ...TRANSPORT, busPollIntervalMs: 50 } });
});
afterAll(async () => {
  recorder.release(); // a failed test may leave a call held, and its segment with it
  await kit?.stop();
  await recorder.stop();
});

describe('an execution', () => {
  it('runs pure steps in one segment, rendering each config with the outputs so far', async () => {
    const flow = await deployFlow(kit, [
      { name: 'trigger' },
      { name: 'greet', action: 'echo', config: { value: '{{step1.greeting}}' } },
      { name: 'sentence', action: 'echo', config: { value: 'They said {{step2.value}} {{step1.n}} times' } },
      { name: 'typed', action: 'typed', config: { count: '{{step1.n}}', label: '{{step3.value}}' } },
    ]);
    const [uuid] = await fire(kit.api, flow.versionUuid, [{ greeting: 'hello', n: 3 }]);

    const execution = await finished(kit, uuid);
    expect(execution).toMatchObject({ status: 'succeeded', cursor: null, segment: 0, error: null });
    expect(new Date(execution.finished_at!).getTime()).toBeGreaterThanOrEqual(new Date(execution.started_at!).getTime());
    const steps = await stepRows(kit, uuid);
    expect(steps).toEqual([
      expect.objectContaining({ step_uuid: flow.ids.greet, position: 2, status: 'succeeded', request: { value: 'hello' }, response: { value: 'hello' }, error: null }),
      expect.objectContaining({ step_uuid: flow.ids.sentence, position: 3, request: { value: 'They said hello 3 times' } }),
      expect.objectContaining({ step_uuid: flow.ids.typed, position: 4, request: { count: 3, label: 'They said hello 3 times' } }),
    ]);
    for (const step of steps) expect(step.duration_ms).toBeGreaterThanOrEqual(0);
  });

  it("writes a segment's step records and the execution's new state in one statement", async () => {
    const flow = await deployFlow(kit, [{ name: 'trigger' }, ...['a', 'b', 'c', 'd'].map((name) => ({ name, action: 'echo', config: { value: name } }))]);
    const logQuery = jest.spyOn(kit.kernel.orm.config.getLogger(), 'logQuery');
    try {
      const [uuid] = await fire(kit.api, flow.versionUuid);
      await finished(kit, uuid);
      expect(await stepRows(kit, uuid)).toHaveLength(4);
      const writes = logQuery.mock.calls.map(([context]) => String(context.query)).filter((query) => query.includes('insert into flow_execution_steps'));
      expect(writes).toHaveLength(1);
      expect(writes[0]).toMatch(/^with steps as \(insert into flow_execution_steps .*\) update flow_executions set status = /);
    } finally {
      logQuery.mockRestore();
    }
  });

  it('commits each impure step with the cursor past it before running the next, and passes its output on', async () => {
    const flow = await deployFlow(kit, [
      { name: 'trigger' },
      { name: 'first', action: 'call', config: { url, note: 'one' } },
      { name: 'echo', action: 'echo', config: { value: '{{step2.received}}' } },
      { name: 'second', action: 'call', config: { url, note: '{{step3.value}} then two' } },
      { name: 'last', action: 'echo', config: { value: '{{step4.received}}' } },
    ]);
    const callsBefore = recorder.calls.length;
    recorder.holding = false;
    const [uuid] = await fire(kit.api, flow.versionUuid);
    // Hold the second call: what is committed meanwhile is what a crash would leave.
    await waitFor(async () => recorder.calls.length, (n) => n >= callsBefore + 1);
    recorder.holding = true;
    await waitFor(async () => recorder.calls.length, (n) => n >= callsBefore + 2);
    const midway = await executionRow(kit, uuid);
    expect(midway).toMatchObject({ status: 'running', cursor: flow.ids.echo, segment: 1 });
    expect((await stepRows(kit, uuid)).map((step) => step.step_uuid)).toEqual([flow.ids.first]);
    recorder.release();

    expect(await finished(kit, uuid)).toMatchObject({ status: 'succeeded', segment: 2 });
    const steps = await stepRows(kit, uuid);
    expect(steps.map((step) => [step.position, step.status])).toEqual([
      [2, 'succeeded'],
      [3, 'succeeded'],
      [4, 'succeeded'],
      [5, 'succeeded'],
    ]);
    expect(steps[2].request).toEqual({ url, note: 'one then two' });
    expect(steps[3].request).toEqual({ value: 'one then two' });
    expect(recorder.calls.slice(callsBefore).map((call) => call.idempotencyKey)).toEqual([`${uuid}:${flow.ids.first}`, `${uuid}:${flow.ids.second}`]);
  });

  it('finishes in the segment of its last impure step when nothing follows it', async () => {
    const flow = await deployFlow(kit, [{ name: 'trigger' }, { name: 'only', action: 'call', config: { url } }]);
    const [uuid] = await fire(kit.api, flow.versionUuid);
    expect(await finished(kit, uuid)).toMatchObject({ status: 'succeeded', segment: 0 });
  });

  it('runs the chosen branch, then the step after the branching step', async () => {
    const flow = await deployFlow(kit, [
      { name: 'trigger' },
      { name: 'choose', action: 'choose', config: { branch: '{{step1.way}}' } },
      { name: 'yes1', action: 'echo', parent: 'choose', branch: 'true' },
      { name: 'yes2', action: 'echo', parent: 'choose', branch: 'true' },
      { name: 'no', action: 'echo', parent: 'choose', branch: 'false' },
      { name: 'after', action: 'echo', config: { value: '{{step2.chose}}' } },
    ]);
    const [yes, no] = await fire(kit.api, flow.versionUuid, [{ way: 'true' }, { way: 'false' }]);
    await finished(kit, yes);
    await finished(kit, no);
    const ran = async (uuid: string) => (await stepRows(kit, uuid)).map((step) => [step.step_uuid, step.position]);
    expect(await ran(yes)).toEqual([
      [flow.ids.choose, 2],
      [flow.ids.yes1, 3],
      [flow.ids.yes2, 4],
      [flow.ids.after, 6],
    ]);
    expect(await ran(no)).toEqual([
      [flow.ids.choose, 2],
      [flow.ids.no, 5],
      [flow.ids.after, 6],
    ]);
    expect((await stepRows(kit, no)).at(-1)!.response).toEqual({ value: 'false' });
  });

  it('skips to the step after the branching step when the chosen branch is empty', async () => {
    const flow = await deployFlow(kit, [
      { name: 'trigger' },
      { name: 'choose', action: 'choose', config: { branch: 'false' } },
      { name: 'yes', action: 'echo', parent: 'choose', branch: 'true' },
      { name: 'after', action: 'echo' },
    ]);
    const [uuid] = await fire(kit.api, flow.versionUuid);
    expect(await finished(kit, uuid)).toMatchObject({ status: 'succeeded' });
    expect((await stepRows(kit, uuid)).map((step) => step.step_uuid)).toEqual([flow.ids.choose, flow.ids.after]);
  });

  it('fails at a failing step with its error, running nothing after it', async () => {
    const flow = await deployFlow(kit, [
      { name: 'trigger' },
      { name: 'ok', action: 'echo', config: { value: 1 } },
      { name: 'boom', action: 'fail', config: { message: 'the API said no' } },
      { name: 'never', action: 'echo' },
    ]);
    const [uuid] = await fire(kit.api, flow.versionUuid);
    const execution = await finished(kit, uuid);
    expect(execution).toMatchObject({ status: 'failed', cursor: null, error: 'Step 3 (probe.fail) failed: the API said no' });
    expect(execution.finished_at).not.toBeNull();
    expect((await stepRows(kit, uuid)).map((step) => [step.step_uuid, step.status, step.error])).toEqual([
      [flow.ids.ok, 'succeeded', null],
      [flow.ids.boom, 'failed', 'the API said no'],
    ]);
  });

  it('records a failing step with continue_on_error and goes on; references to it render null', async () => {
    const flow = await deployFlow(kit, [
      { name: 'trigger' },
      { name: 'boom', action: 'fail', config: { message: 'flaky' }, continueOnError: true },
      { name: 'after', action: 'echo', config: { value: '{{step2.anything}}' } },
    ]);
    const [uuid] = await fire(kit.api, flow.versionUuid);
    expect(await finished(kit, uuid)).toMatchObject({ status: 'succeeded', error: null });
    expect((await stepRows(kit, uuid)).map((step) => [step.status, step.error, step.response])).toEqual([
      ['failed', 'flaky', null],
      ['succeeded', null, { value: null }],
    ]);
  });

  it('fails at a step whose rendered input does not validate, naming the member', async () => {
    const flow = await deployFlow(kit, [{ name: 'trigger' }, { name: 'typed', action: 'typed', config: { count: '{{step1.count}}', label: 'x' } }]);
    const [uuid] = await fire(kit.api, flow.versionUuid, [{ count: 'many' }]);
    expect(await finished(kit, uuid)).toMatchObject({ status: 'failed', error: 'Step 2 (probe.typed) failed: Invalid input: config.count must be integer' });
    expect((await stepRows(kit, uuid))[0]).toMatchObject({ status: 'failed', request: { count: 'many', label: 'x' }, response: null });
  });

  it('succeeds at once when the flow has only its trigger', async () => {
    const flow = await deployFlow(kit, [{ name: 'trigger' }]);
    const [uuid] = await fire(kit.api, flow.versionUuid, [{ any: 'thing' }]);
    expect(await finished(kit, uuid)).toMatchObject({ status: 'succeeded' });
    expect(await stepRows(kit, uuid)).toEqual([]);
  });

  it('still runs to its end when its flow is undeployed or deleted meanwhile (pending executions are not cancelled)', async () => {
    const spec = [{ name: 'trigger' }, { name: 'wait', action: 'wait', config: { ms: 300 } }, { name: 'after', action: 'echo' }];
    const undeployed = await deployFlow(kit, spec);
    const deleted = await deployFlow(kit, spec);
    const [first] = await fire(kit.api, undeployed.versionUuid);
    const [second] = await fire(kit.api, deleted.versionUuid);
    for (const uuid of [first, second]) await waitFor(() => stepRows(kit, uuid), (rows) => rows.length === 1);
    await undeployFlow(kit, undeployed.flowUuid);
    await deleteFlow(kit, deleted.flowUuid);
    for (const uuid of [first, second]) {
      expect(await finished(kit, uuid)).toMatchObject({ status: 'succeeded' });
      expect(await stepRows(kit, uuid)).toHaveLength(2);
    }
  });
});
