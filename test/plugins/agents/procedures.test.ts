import { startTestKernel, type TestKernel } from '../../../core/testing';
import { AGENTS_PLUGIN, createAgent, failsWith, item, others, readAgent, rejected, write, type Json } from './agent-test-helpers';

describe('agent procedures', () => {
  let kit: TestKernel;
  beforeAll(async () => {
    kit = await startTestKernel({ plugins: [AGENTS_PLUGIN] });
  });
  afterAll(() => kit?.stop());

  /** An agent with two intents and two procedures (the first calls intent `book`). */
  async function seeded(): Promise<{ agent: Json; book: string; cancel: string }> {
    const { agent_uuid } = await createAgent(kit.api);
    let agent = await write(kit.api, 'post', agent_uuid, 'intents', { key: 'book' });
    agent = await write(kit.api, 'post', agent_uuid, 'intents', { key: 'cancel' });
    const book = agent.intents.find((i: Json) => i.key === 'book').intent_uuid;
    const cancel = agent.intents.find((i: Json) => i.key === 'cancel').intent_uuid;
    await write(kit.api, 'post', agent_uuid, 'procedures', {
      name: 'Booking',
      description: 'How to book',
      steps: [
        { order: 2, description: 'Book it', intent_uuid: book },
        { order: 1, description: 'Ask for a date' },
      ],
    });
    agent = await write(kit.api, 'post', agent_uuid, 'procedures', { name: 'Small talk' });
    return { agent, book, cancel };
  }

  it('POST adds a procedure with its steps sorted by order, intent_uuid always present; existing ones unchanged', async () => {
    const { agent, book } = await seeded();
    const [booking, smallTalk] = agent.procedures;
    expect(booking).toEqual({
      uuid: expect.any(String),
      name: 'Booking',
      description: 'How to book',
      steps: [
        { order: 1, description: 'Ask for a date', intent_uuid: null },
        { order: 2, description: 'Book it', intent_uuid: book },
      ],
    });
    expect(smallTalk).toEqual({ uuid: expect.any(String), name: 'Small talk', description: '', steps: [] });

    const after = await write(kit.api, 'post', agent.agent_uuid, 'procedures', { name: 'Refunds', steps: [{ order: 5, description: 'Apologise' }] });
    expect(after.procedures).toHaveLength(3);
    expect(item(after.procedures, booking.uuid)).toEqual(booking);
    expect(item(after.procedures, smallTalk.uuid)).toEqual(smallTalk);
    expect(after.intents).toEqual(agent.intents);
  });

  it('PATCH with only name keeps steps and description', async () => {
    const { agent } = await seeded();
    const booking = agent.procedures[0];
    const after = await write(kit.api, 'patch', agent.agent_uuid, `procedures/${booking.uuid}`, { name: 'Bookings' });
    expect(item(after.procedures, booking.uuid)).toEqual({ ...booking, name: 'Bookings' });
    expect(others(after.procedures, booking.uuid)).toEqual(others(agent.procedures, booking.uuid));
  });

  it('PATCH with steps replaces that procedure’s steps (sorted), and only that procedure', async () => {
    const { agent, cancel } = await seeded();
    const booking = agent.procedures[0];
    const after = await write(kit.api, 'patch', agent.agent_uuid, `procedures/${booking.uuid}`, {
      steps: [
        { order: 30, description: 'c', intent_uuid: cancel },
        { order: 10, description: 'a', intent_uuid: null },
        { order: 20, description: 'b' },
      ],
    });
    expect(item(after.procedures, booking.uuid)).toEqual({
      ...booking,
      steps: [
        { order: 10, description: 'a', intent_uuid: null },
        { order: 20, description: 'b', intent_uuid: null },
        { order: 30, description: 'c', intent_uuid: cancel },
      ],
    });
    expect(others(after.procedures, booking.uuid)).toEqual(others(agent.procedures, booking.uuid));

    const cleared = await write(kit.api, 'patch', agent.agent_uuid, `procedures/${booking.uuid}`, { steps: [] });
    expect(item(cleared.procedures, booking.uuid)).toEqual({ ...booking, steps: [] });
  });

  it('a step intent_uuid of another agent, or unknown, is 422 at steps.N.intent_uuid (POST and PATCH), nothing written', async () => {
    const { agent, book } = await seeded();
    const other = await seeded();
    const foreign = other.book;
    const unknown = '01900000-0000-7000-8000-0000000000aa';
    await rejected(kit.api, 'post', agent.agent_uuid, 'procedures', { name: 'X', steps: [{ order: 1, description: 'a', intent_uuid: foreign }] }, ['steps.0.intent_uuid']);
    await rejected(
      kit.api,
      'post',
      agent.agent_uuid,
      'procedures',
      { name: 'X', steps: [{ order: 1, description: 'ok', intent_uuid: book }, { order: 2, description: 'a', intent_uuid: unknown }] },
      ['steps.1.intent_uuid'],
    );
    const booking = agent.procedures[0].uuid;
    await rejected(
      kit.api,
      'patch',
      agent.agent_uuid,
      `procedures/${booking}`,
      { name: 'Renamed', steps: [{ order: 1, description: 'a', intent_uuid: unknown }, { order: 2, description: 'b', intent_uuid: foreign }] },
      ['steps.0.intent_uuid', 'steps.1.intent_uuid'],
    );
  });

  it('an intent of another tenant is refused the same way (422, not 404 or 500)', async () => {
    const { agent } = await seeded();
    const tenant = await kit.createTenant();
    const theirs = await createAgent(tenant.api);
    const withIntent = await write(tenant.api, 'post', theirs.agent_uuid, 'intents', { key: 'theirs' });
    const intent = withIntent.intents[0].intent_uuid;
    await rejected(kit.api, 'post', agent.agent_uuid, 'procedures', { name: 'X', steps: [{ order: 1, description: 'a', intent_uuid: intent }] }, ['steps.0.intent_uuid']);
  });

  it('deleting an intent a step calls is 409 and keeps it; once no step calls it, it can go', async () => {
    const { agent, book } = await seeded();
    const booking = agent.procedures[0];
    await failsWith(kit.api.delete(`/api/v1/agents/${agent.agent_uuid}/intents/${book}`), 409);
    expect(await readAgent(kit.api, agent.agent_uuid)).toEqual(agent);

    await write(kit.api, 'patch', agent.agent_uuid, `procedures/${booking.uuid}`, { steps: [{ order: 1, description: 'manual' }] });
    const after = await write(kit.api, 'delete', agent.agent_uuid, `intents/${book}`);
    expect(after.intents.map((i: Json) => i.key)).toEqual(['cancel']);
  });

  it('deleting an intent no step calls is fine even while another intent is called', async () => {
    const { agent, cancel } = await seeded();
    const after = await write(kit.api, 'delete', agent.agent_uuid, `intents/${cancel}`);
    expect(after.intents.map((i: Json) => i.key)).toEqual(['book']);
    expect(after.procedures).toEqual(agent.procedures);
  });

  it('DELETE removes only that procedure; a second DELETE is 404', async () => {
    const { agent } = await seeded();
    const [booking, smallTalk] = agent.procedures;
    const after = await write(kit.api, 'delete', agent.agent_uuid, `procedures/${booking.uuid}`);
    expect(after.procedures).toEqual([smallTalk]);
    expect(after.intents).toEqual(agent.intents);
    await failsWith(kit.api.delete(`/api/v1/agents/${agent.agent_uuid}/procedures/${booking.uuid}`), 404);
  });

  it('refuses bad bodies with 422 at the dotted path, and writes nothing', async () => {
    const { agent } = await seeded();
    const uuid = agent.agent_uuid;
    const booking = agent.procedures[0].uuid;
    await rejected(kit.api, 'post', uuid, 'procedures', { description: 'no name' }, ['name']);
    await rejected(kit.api, 'post', uuid, 'procedures', { name: '' }, ['name']);
    await rejected(kit.api, 'post', uuid, 'procedures', { name: 'x', steps: [{ order: 'one', description: 'a' }] }, ['steps.0.order']);
    await rejected(kit.api, 'post', uuid, 'procedures', { name: 'x', steps: [{ order: 1, description: 'a' }, { order: 2 }] }, ['steps.1.description']);
    await rejected(kit.api, 'post', uuid, 'procedures', { name: 'x', steps: [{ order: 1, description: 'a', tool: 'y' }] }, ['steps.0.tool']);
    await rejected(kit.api, 'post', uuid, 'procedures', { name: 'x', steps: [{ order: 1, description: 'a', intent_uuid: 'book' }] }, ['steps.0.intent_uuid']);
    await rejected(kit.api, 'post', uuid, 'procedures', { name: 'x', owner: 'me' }, ['owner']);
    await rejected(kit.api, 'patch', uuid, `procedures/${booking}`, { steps: 'none' }, ['steps']);
    await rejected(kit.api, 'patch', uuid, `procedures/${booking}`, { name: null }, ['name']);
  });

  it('a procedure uuid of agent B on agent A’s path is 404; B’s procedure is untouched', async () => {
    const a = await seeded();
    const b = await seeded();
    const theirs = b.agent.procedures[0].uuid;
    await failsWith(kit.api.patch(`/api/v1/agents/${a.agent.agent_uuid}/procedures/${theirs}`).send({ name: 'hijack' }), 404);
    await failsWith(kit.api.delete(`/api/v1/agents/${a.agent.agent_uuid}/procedures/${theirs}`), 404);
    expect(await readAgent(kit.api, b.agent.agent_uuid)).toEqual(b.agent);
    expect(await readAgent(kit.api, a.agent.agent_uuid)).toEqual(a.agent);
  });
});
