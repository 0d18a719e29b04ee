import { startTestKernel, type TestKernel } from '../../../../core/testing';
import { SEGMENT_TOPIC } from '../../../../plugins/flows/engine/segment-message';
import { AGENTS, FLOWS, PROBE, TRANSPORT, deployFlow, executionRow, finished, fire, sql, stepRows, waitFor } from './engine-helpers';

/** A paused execution resumes through a delayed bus message; a message of a segment that already ran changes nothing. */
let kit: TestKernel;

beforeAll(async () => {
  kit = await startTestKernel({ plugins: [AGENTS, FLOWS, PROBE], config: { ...TRANSPORT, busPollIntervalMs: 50 } });
});
afterAll(() => kit?.stop());

const PAUSE_MS = 1500;

/** Publishes a segment message as a worker would, and waits until the engine's consumer has handled it. */
async function sendSegment(payload: Record<string, unknown>): Promise<void> {
  const messageId = await kit.kernel.orm.em
    .fork()
    .transactional((em) => kit.kernel.bus.outbox.insert(em as never, { topic: SEGMENT_TOPIC, payload, tenantUuid: kit.tenant.uuid }));
  await waitFor(() => sql(kit, `select 1 from bus_inbox where consumer = 'flows.execute' and message_id = ?`, [messageId]), (rows) => rows.length === 1);
}

const stateOf = async (uuid: string) => ({ execution: await executionRow(kit, uuid), steps: await stepRows(kit, uuid) });

describe('a paused execution', () => {
  it('waits without a worker, then resumes at the time the step asked for, marking the paused step succeeded', async () => {
    const flow = await deployFlow(kit, [
      { name: 'trigger' },
      { name: 'before', action: 'echo', config: { value: 'a' } },
      { name: 'wait', action: 'wait', config: { ms: PAUSE_MS } },
      { name: 'after', action: 'echo', config: { value: '{{step3.resume_at}}' } },
    ]);
    const [uuid] = await fire(kit.api, flow.versionUuid);

    const paused = await waitFor(() => stepRows(kit, uuid), (rows) => rows.length === 2);
    expect(paused.map((step) => [step.step_uuid, step.status])).toEqual([
      [flow.ids.before, 'succeeded'],
      [flow.ids.wait, 'waiting'],
    ]);
    const resumeAt: string = paused[1].response.resume_at;
    expect(await executionRow(kit, uuid)).toMatchObject({ status: 'running', cursor: flow.ids.after, segment: 1, finished_at: null });
    // The resume is a message due then, in the outbox: no worker sleeps through the pause.
    const [pending] = await sql(kit, `select payload, due_at from bus_outbox where topic = ? and payload->>'execution_uuid' = ?`, [SEGMENT_TOPIC, uuid]);
    expect(pending.payload).toEqual({ execution_uuid: uuid, segment: 1, resume: flow.ids.wait });
    expect(new Date(pending.due_at).toISOString()).toBe(resumeAt);

    const done = await finished(kit, uuid);
    expect(done).toMatchObject({ status: 'succeeded', segment: 1 });
    expect(new Date(done.finished_at!).getTime()).toBeGreaterThanOrEqual(new Date(resumeAt).getTime());
    const steps = await stepRows(kit, uuid);
    expect(steps.map((step) => [step.step_uuid, step.status])).toEqual([
      [flow.ids.before, 'succeeded'],
      [flow.ids.wait, 'succeeded'],
      [flow.ids.after, 'succeeded'],
    ]);
    expect(steps[2].request).toEqual({ value: resumeAt });
  });

  it('finishes after the pause when the pausing step is the last', async () => {
    const flow = await deployFlow(kit, [{ name: 'trigger' }, { name: 'wait', action: 'wait', config: { ms: 200 } }]);
    const [uuid] = await fire(kit.api, flow.versionUuid);
    expect(await finished(kit, uuid)).toMatchObject({ status: 'succeeded', cursor: null });
    expect((await stepRows(kit, uuid)).map((step) => step.status)).toEqual(['succeeded']);
  });
});

describe('a stale segment message', () => {
  it('is ignored while the execution waits', async () => {
    const flow = await deployFlow(kit, [
      { name: 'trigger' },
      { name: 'before', action: 'echo' },
      { name: 'wait', action: 'wait', config: { ms: 60_000 } },
      { name: 'after', action: 'echo' },
    ]);
    const [uuid] = await fire(kit.api, flow.versionUuid);
    await waitFor(() => stepRows(kit, uuid), (rows) => rows.length === 2);
    const before = await stateOf(uuid);

    await sendSegment({ execution_uuid: uuid, segment: 0 });
    await sendSegment({ execution_uuid: uuid, segment: 0, resume: flow.ids.wait });
    expect(await stateOf(uuid)).toEqual(before);
    const [row] = await sql(kit, 'select status from flow_execution_steps where execution_uuid = ? and step_uuid = ?', [uuid, flow.ids.wait]);
    expect(row.status).toBe('waiting');
  });

  it('is ignored once the execution finished, and so is a repeat of its last segment', async () => {
    const flow = await deployFlow(kit, [{ name: 'trigger' }, { name: 'one', action: 'echo' }, { name: 'two', action: 'echo' }]);
    const [uuid] = await fire(kit.api, flow.versionUuid);
    await finished(kit, uuid);
    const before = await stateOf(uuid);
    const [{ updated_at }] = await sql(kit, 'select updated_at from flow_executions where uuid = ?', [uuid]);

    await sendSegment({ execution_uuid: uuid, segment: 0 });
    await sendSegment({ execution_uuid: uuid, segment: 1 });
    expect(await stateOf(uuid)).toEqual(before);
    expect((await sql(kit, 'select updated_at from flow_executions where uuid = ?', [uuid]))[0].updated_at).toEqual(updated_at);
  });

  it('for an execution that no longer exists is dropped without a retry', async () => {
    const missing = '01900000-0000-7000-8000-000000000000';
    await sendSegment({ execution_uuid: missing, segment: 0 });
    expect(await sql(kit, `select 1 from bus_outbox where payload->>'execution_uuid' = ?`, [missing])).toEqual([]);
    expect(await sql(kit, `select 1 from bus_dead_letters where payload->>'execution_uuid' = ?`, [missing])).toEqual([]);
  });
});
