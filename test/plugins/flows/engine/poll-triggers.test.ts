import { startTestKernel, type TestKernel } from '../../../../core/testing';
import { AGENTS, FLOWS, TRANSPORT, deployFlow, sql, undeployFlow, waitFor, type Deployed } from './engine-helpers';
import { newFeed, triggerProbe } from './trigger-probe';

/**
 * Poll triggers: deploy publishes the first poll, each poll runs the app's `run` with the
 * stored cursor (outside any transaction) and starts one execution per event. The probe
 * app polls every second; `feed` is the outside system it reads.
 */
const feed = newFeed();
let kit: TestKernel;

beforeAll(async () => {
  kit = await startTestKernel({ plugins: [AGENTS, FLOWS, triggerProbe(feed)], config: { ...TRANSPORT, busPollIntervalMs: 100 } });
});
afterAll(() => kit?.stop());

let nextId = 1;
const add = (...texts: string[]) => texts.forEach((text) => feed.items.push({ id: nextId++, text }));
const pollsOf = (flow: Deployed) => feed.polls.filter((poll) => poll.version === flow.versionUuid);
const deployPolling = (config: Record<string, unknown> = {}) => deployFlow(kit, [{ name: 'trigger', app: 'probe_feed', trigger: 'new_items', config }]);
const eventsOf = async (flow: Deployed) =>
  (await sql<{ trigger_event: unknown }>(kit, 'select trigger_event from flow_executions where flow_uuid = ? order by created_at, uuid', [flow.flowUuid])).map((row) => row.trigger_event);
const storedCursor = async (flow: Deployed) =>
  (await sql<{ cursor: unknown; revision: number; step_uuid: string }>(kit, 'select cursor, revision, step_uuid from flow_trigger_cursors where version_uuid = ?', [flow.versionUuid]))[0];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('poll triggers', () => {
  it('poll from deploy on: a baseline first, then one execution per new item, the cursor stored and given back', async () => {
    add('new: before deploy');
    const flow = await deployPolling({ prefix: 'new' });
    // The first poll, due at once, takes the baseline: nothing that was there before deploy starts the flow.
    await waitFor(() => pollsOf(flow).length, (count) => count >= 2);
    const baseline = nextId - 1;
    expect(pollsOf(flow)[0].cursor).toBeNull();
    expect(pollsOf(flow)[1].cursor).toBe(baseline);
    expect(await storedCursor(flow)).toMatchObject({ cursor: baseline, step_uuid: flow.ids.trigger });

    add('new: one', 'old: skipped by the config', 'new: two');
    const events = await waitFor(() => eventsOf(flow), (found) => found.length >= 2);
    expect(events).toEqual([
      { id: baseline + 1, text: 'new: one' },
      { id: baseline + 3, text: 'new: two' },
    ]);
    // Later polls take up after the newest item and start nothing again.
    const polled = pollsOf(flow).length;
    await waitFor(() => pollsOf(flow).length, (count) => count >= polled + 2);
    expect(pollsOf(flow).at(-1)!.cursor).toBe(baseline + 3);
    expect(await eventsOf(flow)).toHaveLength(2);
    expect(await storedCursor(flow)).toMatchObject({ cursor: baseline + 3 });
    // `run` may call another system for seconds: it never holds a transaction open.
    expect(pollsOf(flow).every((poll) => !poll.inTransaction)).toBe(true);
    await undeployFlow(kit, flow.flowUuid);
  });

  it('a poll that throws starts nothing and is tried again at the next interval with the same cursor', async () => {
    const flow = await deployPolling();
    await waitFor(() => pollsOf(flow).length, (count) => count >= 2);
    feed.failNext = 1;
    add('arrives while the feed fails');
    const [event] = await waitFor(() => eventsOf(flow), (found) => found.length >= 1);
    expect(event).toEqual({ id: nextId - 1, text: 'arrives while the feed fails' });

    const polls = pollsOf(flow);
    const failed = polls.findIndex((poll) => poll.failed);
    expect(failed).toBeGreaterThan(0);
    expect(polls[failed + 1].cursor).toBe(polls[failed].cursor);
    expect(kit.logs.some((line) => line.message === 'poll trigger failed; the next poll tries again with the same cursor' && line.error === 'the feed is unavailable')).toBe(true);
    // Two more polls (the first of them finished, executions and all) start nothing again.
    const polled = pollsOf(flow).length;
    await waitFor(() => pollsOf(flow).length, (count) => count >= polled + 2);
    expect(await eventsOf(flow)).toHaveLength(1);
    await undeployFlow(kit, flow.flowUuid);
  });

  it('stops polling once undeployed (its cursor dropped); a redeploy polls again from a baseline of its own', async () => {
    const flow = await deployPolling();
    await waitFor(() => pollsOf(flow).length, (count) => count >= 2);
    await undeployFlow(kit, flow.flowUuid);
    // A poll already running when the undeploy committed may finish; none starts after it.
    const atUndeploy = pollsOf(flow).length;
    await waitFor(() => storedCursor(flow), (row) => row === undefined);
    add('after undeploy');
    await sleep(2500);
    expect(pollsOf(flow).length).toBeLessThanOrEqual(atUndeploy + 1);
    expect(await eventsOf(flow)).toEqual([]);

    const redeployed = (await kit.api.post(`/api/v1/flow/${flow.flowUuid}/deploy`).expect(200)).body.data.live_version.uuid as string;
    const again: Deployed = { ...flow, versionUuid: redeployed };
    await waitFor(() => pollsOf(again).length, (count) => count >= 2);
    expect(pollsOf(again)[0].cursor).toBeNull();
    expect(await eventsOf(flow)).toEqual([]);
    await undeployFlow(kit, flow.flowUuid);
  });
});
