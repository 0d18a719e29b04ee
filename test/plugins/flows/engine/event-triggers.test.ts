import { startTestKernel, type TestKernel } from '../../../../core/testing';
import { flowCause } from '../../../../plugins/flows';
import { AGENTS, FLOWS, TRANSPORT, deployFlow, sql, undeployFlow, waitFor, type Deployed } from './engine-helpers';
import { SIGNAL_TOPIC, newFeed, triggerProbe } from './trigger-probe';

/**
 * Event triggers: the flows plugin consumes each event trigger's topic and starts the live
 * flows whose `matches` accepts the event. The probe app's `signal` trigger matches by colour.
 */
const feed = newFeed();
let kit: TestKernel;

beforeAll(async () => {
  kit = await startTestKernel({ plugins: [AGENTS, FLOWS, triggerProbe(feed)], config: { ...TRANSPORT, busPollIntervalMs: 50 } });
});
afterAll(() => kit?.stop());

const deploySignal = (color: string) => deployFlow(kit, [{ name: 'trigger', app: 'probe_feed', trigger: 'signal', config: { color } }]);
const CONSUMER = 'flows.fire-probe_feed-signal';
const handled = async () => (await sql<{ n: number }>(kit, 'select count(*)::int as n from bus_inbox where consumer = ?', [CONSUMER]))[0].n;

/** Publishes a signal and waits until the trigger's consumer has handled it (its inbox record commits with the executions it started). */
const signal = async (color: string, causedBy?: string) => {
  const before = await handled();
  await kit.api.post('/api/v1/probe-feed/signals').send({ color, ...(causedBy ? { caused_by: causedBy } : {}) }).expect(204);
  await waitFor(handled, (count) => count > before);
};
const eventsOf = async (flow: Deployed) =>
  (await sql<{ trigger_event: unknown }>(kit, 'select trigger_event from flow_executions where flow_uuid = ? order by created_at, uuid', [flow.flowUuid])).map((row) => row.trigger_event);

describe('event triggers', () => {
  it('the flows plugin consumes each event trigger’s topic, one consumer per trigger; a poll trigger gets none', () => {
    const consumers = kit.kernel.bus.consumers.filter((consumer) => consumer.name.startsWith('flows.fire-probe_feed'));
    expect(consumers.map(({ name, topics }) => ({ name, topics }))).toEqual([{ name: CONSUMER, topics: [SIGNAL_TOPIC] }]);
  });

  it('starts each live flow whose matches() accepts the event, once, with the payload as the trigger’s output', async () => {
    const [red, alsoRed, blue, undeployed] = [await deploySignal('red'), await deploySignal('red'), await deploySignal('blue'), await deploySignal('red')];
    await undeployFlow(kit, undeployed.flowUuid);
    feed.matched.length = 0;

    await signal('red');
    expect(await eventsOf(red)).toEqual([{ color: 'red' }]);
    expect(await eventsOf(alsoRed)).toEqual([{ color: 'red' }]);
    expect(await eventsOf(blue)).toEqual([]);
    expect(await eventsOf(undeployed)).toEqual([]);
    // Asked for every live flow of the trigger (the blue one refused it), never for one undeployed.
    expect(feed.matched.sort((a, b) => a.wanted.localeCompare(b.wanted))).toEqual([
      { wanted: 'blue', got: 'red' },
      { wanted: 'red', got: 'red' },
      { wanted: 'red', got: 'red' },
    ]);

    await signal('blue');
    expect(await eventsOf(blue)).toEqual([{ color: 'blue' }]);
    expect(await eventsOf(red)).toHaveLength(1);
    for (const flow of [red, alsoRed, blue]) await undeployFlow(kit, flow.flowUuid);
  });

  it('does not start a flow with an event that flow caused, and does not even ask matches(); other flows still see it', async () => {
    const writer = await deploySignal('green');
    const watcher = await deploySignal('green');
    feed.matched.length = 0;

    await signal('green', flowCause(writer.flowUuid));
    expect(await eventsOf(writer)).toEqual([]);
    expect(await eventsOf(watcher)).toEqual([{ color: 'green' }]);
    expect(feed.matched).toEqual([{ wanted: 'green', got: 'green' }]);
    for (const flow of [writer, watcher]) await undeployFlow(kit, flow.flowUuid);
  });
});
