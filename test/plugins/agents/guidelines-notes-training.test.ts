import { startTestKernel, type TestKernel } from '../../../core/testing';
import { AGENTS_PLUGIN, agentEventProbe, agentMessages, createAgent, eventually, failsWith, ids, item, others, readAgent, rejected, write, type Json } from './agent-test-helpers';

describe('agent guidelines, notes and training rows', () => {
  let kit: TestKernel;
  beforeAll(async () => {
    kit = await startTestKernel({ plugins: [AGENTS_PLUGIN, agentEventProbe] });
  });
  afterAll(() => kit?.stop());

  /** An agent with two guidelines, two notes and two training rows, added one by one. */
  async function seeded(): Promise<Json> {
    const agent = await createAgent(kit.api);
    const uuid = agent.agent_uuid;
    await write(kit.api, 'post', uuid, 'guidelines', { content: 'Be brief', order: 1 });
    await write(kit.api, 'post', uuid, 'guidelines', { content: 'Be kind', order: 2 });
    await write(kit.api, 'post', uuid, 'notes', { content: 'Note one', order: 1 });
    await write(kit.api, 'post', uuid, 'notes', { content: 'Note two', order: 2 });
    await write(kit.api, 'post', uuid, 'training', { content: 'Hi', intent: 'greet', response: 'Hello!' });
    return write(kit.api, 'post', uuid, 'training', { content: 'Price?', intent: 'pricing', response: '10 EUR' });
  }

  describe('PUT /guidelines (replace all)', () => {
    it('makes the guidelines exactly the items sent, sorted by order, and leaves the other lists alone', async () => {
      const before = await seeded();
      const after = await write(kit.api, 'put', before.agent_uuid, 'guidelines', {
        guidelines: [
          { content: 'Third', order: 30 },
          { content: 'First', order: 10 },
          { content: 'Second', order: 20 },
        ],
      });
      expect(after.guidelines.map(({ content, order }: Json) => ({ content, order }))).toEqual([
        { content: 'First', order: 10 },
        { content: 'Second', order: 20 },
        { content: 'Third', order: 30 },
      ]);
      for (const old of ids(before.guidelines)) expect(ids(after.guidelines)).not.toContain(old);
      expect(after.notes).toEqual(before.notes);
      expect(after.training).toEqual(before.training);
    });

    it('gives items without order their position (1, 2, ...) and ignores a uuid sent back', async () => {
      const before = await seeded();
      const stale = before.guidelines[0].uuid;
      const after = await write(kit.api, 'put', before.agent_uuid, 'guidelines', { guidelines: [{ uuid: stale, content: 'A' }, { content: 'B' }] });
      expect(after.guidelines.map(({ content, order }: Json) => ({ content, order }))).toEqual([
        { content: 'A', order: 1 },
        { content: 'B', order: 2 },
      ]);
    });

    it('an empty array clears them', async () => {
      const before = await seeded();
      const after = await write(kit.api, 'put', before.agent_uuid, 'guidelines', { guidelines: [] });
      expect(after.guidelines).toEqual([]);
      expect(after.notes).toEqual(before.notes);
    });

    it('refuses a bad item with 422 at its dotted path, and writes nothing', async () => {
      const { agent_uuid } = await seeded();
      await rejected(kit.api, 'put', agent_uuid, 'guidelines', { guidelines: [{ content: 'ok' }, { order: 2 }] }, ['guidelines.1.content']);
      await rejected(kit.api, 'put', agent_uuid, 'guidelines', { guidelines: [{ content: 'ok', order: 'first' }] }, ['guidelines.0.order']);
      await rejected(kit.api, 'put', agent_uuid, 'guidelines', { guidelines: [{ content: 'ok', colour: 'red' }] }, ['guidelines.0.colour']);
      await rejected(kit.api, 'put', agent_uuid, 'guidelines', { guidelines: [], notes: [] }, ['notes']);
      await rejected(kit.api, 'put', agent_uuid, 'guidelines', { guidelines: 'Be brief' }, ['guidelines']);
    });
  });

  describe('PUT /training (replace all)', () => {
    it('makes the training rows exactly the items sent, filling intent and response', async () => {
      const before = await seeded();
      const after = await write(kit.api, 'put', before.agent_uuid, 'training', {
        training: [{ content: 'Bye', intent: 'farewell', response: 'See you' }, { content: 'Open?' }],
      });
      expect(after.training.map(({ uuid, ...row }: Json) => row)).toEqual([
        { content: 'Bye', intent: 'farewell', response: 'See you' },
        { content: 'Open?', intent: '', response: '' },
      ]);
      for (const old of ids(before.training)) expect(ids(after.training)).not.toContain(old);
      expect(after.guidelines).toEqual(before.guidelines);
      expect(after.notes).toEqual(before.notes);
    });

    it('an empty array clears them', async () => {
      const before = await seeded();
      const after = await write(kit.api, 'put', before.agent_uuid, 'training', { training: [] });
      expect(after.training).toEqual([]);
      expect(after.guidelines).toEqual(before.guidelines);
    });

    it('refuses bad rows with 422 at their paths, and writes nothing', async () => {
      const { agent_uuid } = await seeded();
      await rejected(kit.api, 'put', agent_uuid, 'training', { training: [{ content: 'a' }, { content: 'b', intent: 7 }] }, ['training.1.intent']);
      await rejected(kit.api, 'put', agent_uuid, 'training', { training: [{ intent: 'x' }] }, ['training.0.content']);
      await rejected(kit.api, 'put', agent_uuid, 'training', {}, ['training']);
    });
  });

  describe('POST (append one)', () => {
    it('appends a guideline without order last; the others keep their uuids and contents', async () => {
      const before = await seeded();
      const after = await write(kit.api, 'post', before.agent_uuid, 'guidelines', { content: 'Never promise dates' });
      expect(after.guidelines).toHaveLength(3);
      expect(after.guidelines.slice(0, 2)).toEqual(before.guidelines);
      expect(after.guidelines[2]).toEqual({ uuid: expect.any(String), content: 'Never promise dates', order: 3 });
      expect(after.notes).toEqual(before.notes);
      expect(after.training).toEqual(before.training);
    });

    it('goes after the highest order, not after the count', async () => {
      const agent = await createAgent(kit.api);
      await write(kit.api, 'post', agent.agent_uuid, 'guidelines', { content: 'far', order: 50 });
      await write(kit.api, 'post', agent.agent_uuid, 'guidelines', { content: 'near', order: 5 });
      const after = await write(kit.api, 'post', agent.agent_uuid, 'guidelines', { content: 'last' });
      expect(after.guidelines.map(({ content, order }: Json) => [content, order])).toEqual([
        ['near', 5],
        ['far', 50],
        ['last', 51],
      ]);
    });

    it('places a guideline with an order by that order', async () => {
      const before = await seeded();
      const after = await write(kit.api, 'post', before.agent_uuid, 'guidelines', { content: 'Greet first', order: 0 });
      expect(after.guidelines.map((g: Json) => g.content)).toEqual(['Greet first', 'Be brief', 'Be kind']);
      expect(after.guidelines.slice(1)).toEqual(before.guidelines);
    });

    it('adds a note; existing notes, guidelines and training are unchanged; notes come sorted by order', async () => {
      const before = await seeded();
      const last = await write(kit.api, 'post', before.agent_uuid, 'notes', { content: 'Note three' });
      expect(last.notes.slice(0, 2)).toEqual(before.notes);
      expect(last.notes[2]).toEqual({ uuid: expect.any(String), content: 'Note three', order: 3 });
      const between = await write(kit.api, 'post', before.agent_uuid, 'notes', { content: 'Note one and a half', order: 1 });
      expect(between.notes.map((n: Json) => n.order)).toEqual([1, 1, 2, 3]);
      expect(between.notes.map((n: Json) => n.content)).toContain('Note one and a half');
      expect(others(between.notes, between.notes.find((n: Json) => n.content === 'Note one and a half').uuid)).toEqual(last.notes);
      expect(between.guidelines).toEqual(before.guidelines);
      expect(between.training).toEqual(before.training);
    });

    it('appends a training row with intent and response defaulting to empty', async () => {
      const before = await seeded();
      const after = await write(kit.api, 'post', before.agent_uuid, 'training', { content: 'Where are you?' });
      expect(after.training).toHaveLength(3);
      expect(after.training.slice(0, 2)).toEqual(before.training);
      expect(after.training[2]).toEqual({ uuid: expect.any(String), content: 'Where are you?', intent: '', response: '' });
    });

    it('refuses bad bodies with 422 naming the member, and writes nothing', async () => {
      const { agent_uuid } = await seeded();
      await rejected(kit.api, 'post', agent_uuid, 'guidelines', { content: '' }, ['content']);
      await rejected(kit.api, 'post', agent_uuid, 'guidelines', { order: 1 }, ['content']);
      await rejected(kit.api, 'post', agent_uuid, 'guidelines', { content: 'x', order: 1.5 }, ['order']);
      await rejected(kit.api, 'post', agent_uuid, 'guidelines', { content: 'x', order: -1 }, ['order']);
      await rejected(kit.api, 'post', agent_uuid, 'notes', { content: 'x', priority: 1 }, ['priority']);
      await rejected(kit.api, 'post', agent_uuid, 'notes', { content: 42 }, ['content']);
      await rejected(kit.api, 'post', agent_uuid, 'training', { content: 'x', response: ['a'] }, ['response']);
      await rejected(kit.api, 'post', agent_uuid, 'training', { content: 'x', answer: 'y' }, ['answer']);
    });

    it('answers 404 for an unknown agent and for an agent of another tenant', async () => {
      await failsWith(kit.api.post('/api/v1/agents/01900000-0000-7000-8000-000000000000/guidelines').send({ content: 'x' }), 404);
      const other = await kit.createTenant();
      const theirs = await createAgent(other.api);
      await failsWith(kit.api.post(`/api/v1/agents/${theirs.agent_uuid}/notes`).send({ content: 'x' }), 404);
      expect((await readAgent(other.api, theirs.agent_uuid)).notes).toEqual([]);
    });

    it('concurrent POSTs without order each go last, one after another (distinct orders)', async () => {
      const agent = await createAgent(kit.api);
      const results = await Promise.all([1, 2, 3, 4, 5].map((n) => kit.api.post(`/api/v1/agents/${agent.agent_uuid}/notes`).send({ content: `n${n}` })));
      expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
      const notes = (await readAgent(kit.api, agent.agent_uuid)).notes;
      expect(notes.map((n: Json) => n.order)).toEqual([1, 2, 3, 4, 5]);
      expect(notes.map((n: Json) => n.content).sort()).toEqual(['n1', 'n2', 'n3', 'n4', 'n5']);
    });

    it('appending after an item at the highest allowed order gives an order the API itself accepts back', async () => {
      // `order` is 0..1_000_000. "Goes last" must not produce an order the schema refuses,
      // or a client can no longer send back what it read.
      const agent = await createAgent(kit.api);
      await write(kit.api, 'post', agent.agent_uuid, 'guidelines', { content: 'at the top', order: 1_000_000 });
      const res = await kit.api.post(`/api/v1/agents/${agent.agent_uuid}/guidelines`).send({ content: 'after it' });
      if (res.status === 422) return; // refusing is acceptable too
      expect(res.status).toBe(200);
      const guidelines = res.body.data.guidelines;
      expect(guidelines.map((g: Json) => g.content)).toEqual(['at the top', 'after it']);
      for (const g of guidelines) expect(g.order).toBeLessThanOrEqual(1_000_000);
      await kit.api.put(`/api/v1/agents/${agent.agent_uuid}/guidelines`).send({ guidelines }).expect(200);
    });

    it('every sub-resource write on an unknown agent is 404 with the error envelope', async () => {
      const A = '/api/v1/agents/01900000-0000-7000-8000-000000000001';
      await failsWith(kit.api.put(`${A}/guidelines`).send({ guidelines: [] }), 404);
      await failsWith(kit.api.put(`${A}/training`).send({ training: [] }), 404);
      const bodies: Array<[string, Json]> = [
        ['guidelines', { content: 'x' }],
        ['notes', { content: 'x' }],
        ['training', { content: 'x' }],
        ['procedures', { name: 'x' }],
        ['intents', { key: 'x' }],
        ['webhooks', { url: 'https://h.example.com', events: ['agent.updated'] }],
        ['routing-rules', { destination_type: 'extension', destination: '1' }],
        ['guard-rules', { when_condition: 'x', then_action: 'end_conversation', say_before_end: 'bye' }],
        ['phone-numbers', { number: '+14155550100' }],
        ['channels', { type: 'sms' }],
      ];
      for (const [segment, body] of bodies) await failsWith(kit.api.post(`${A}/${segment}`).send(body), 404);
    });
  });

  describe('PATCH and DELETE by uuid', () => {
    it('PATCH a guideline changes only that one', async () => {
      const before = await seeded();
      const [first, second] = before.guidelines;
      const after = await write(kit.api, 'patch', before.agent_uuid, `guidelines/${second.uuid}`, { content: 'Be very kind' });
      expect(item(after.guidelines, second.uuid)).toEqual({ uuid: second.uuid, content: 'Be very kind', order: 2 });
      expect(item(after.guidelines, first.uuid)).toEqual(first);
      expect(after.notes).toEqual(before.notes);
    });

    it('PATCH order re-sorts the list; content is kept', async () => {
      const before = await seeded();
      const [first, second] = before.guidelines;
      const after = await write(kit.api, 'patch', before.agent_uuid, `guidelines/${first.uuid}`, { order: 9 });
      expect(after.guidelines).toEqual([second, { ...first, order: 9 }]);
    });

    it('PATCH a note and a training row changes only that one', async () => {
      const before = await seeded();
      const note = before.notes[0];
      const row = before.training[1];
      let after = await write(kit.api, 'patch', before.agent_uuid, `notes/${note.uuid}`, { content: 'Changed note' });
      expect(after.notes).toEqual([{ ...note, content: 'Changed note' }, before.notes[1]]);
      after = await write(kit.api, 'patch', before.agent_uuid, `training/${row.uuid}`, { response: '12 EUR' });
      expect(item(after.training, row.uuid)).toEqual({ ...row, response: '12 EUR' });
      expect(others(after.training, row.uuid)).toEqual(others(before.training, row.uuid));
      expect(after.guidelines).toEqual(before.guidelines);
    });

    it('an empty PATCH changes nothing of the item', async () => {
      const before = await seeded();
      const after = await write(kit.api, 'patch', before.agent_uuid, `notes/${before.notes[1].uuid}`, {});
      expect(after.notes).toEqual(before.notes);
    });

    it('DELETE removes only that item, for each list', async () => {
      const before = await seeded();
      let after = await write(kit.api, 'delete', before.agent_uuid, `guidelines/${before.guidelines[0].uuid}`);
      expect(after.guidelines).toEqual([before.guidelines[1]]);
      after = await write(kit.api, 'delete', before.agent_uuid, `notes/${before.notes[1].uuid}`);
      expect(after.notes).toEqual([before.notes[0]]);
      after = await write(kit.api, 'delete', before.agent_uuid, `training/${before.training[0].uuid}`);
      expect(after.training).toEqual([before.training[1]]);
      expect(after.guidelines).toEqual([before.guidelines[1]]);
      await failsWith(kit.api.delete(`/api/v1/agents/${before.agent_uuid}/notes/${before.notes[1].uuid}`), 404);
    });

    it('a child uuid of agent B on agent A’s path is 404, and B’s item is untouched', async () => {
      const a = await seeded();
      const b = await seeded();
      for (const [segment, list] of [
        ['guidelines', 'guidelines'],
        ['notes', 'notes'],
        ['training', 'training'],
      ]) {
        const theirs = b[list][0].uuid;
        await failsWith(kit.api.patch(`/api/v1/agents/${a.agent_uuid}/${segment}/${theirs}`).send({ content: 'hijack' }), 404);
        await failsWith(kit.api.delete(`/api/v1/agents/${a.agent_uuid}/${segment}/${theirs}`), 404);
      }
      expect(await readAgent(kit.api, b.agent_uuid)).toEqual(b);
      expect(await readAgent(kit.api, a.agent_uuid)).toEqual(a);
    });

    it('refuses bad PATCH bodies with 422 at the member, and changes nothing', async () => {
      const before = await seeded();
      const g = before.guidelines[0].uuid;
      await rejected(kit.api, 'patch', before.agent_uuid, `guidelines/${g}`, { content: '' }, ['content']);
      await rejected(kit.api, 'patch', before.agent_uuid, `guidelines/${g}`, { order: '2' }, ['order']);
      await rejected(kit.api, 'patch', before.agent_uuid, `guidelines/${g}`, { text: 'x' }, ['text']);
      await rejected(kit.api, 'patch', before.agent_uuid, `training/${before.training[0].uuid}`, { intent: null }, ['intent']);
    });

    it('a malformed item uuid is 422 naming the parameter', async () => {
      const before = await seeded();
      const res = await kit.api.patch(`/api/v1/agents/${before.agent_uuid}/guidelines/not-a-uuid`).send({ content: 'x' }).expect(422);
      expect(Object.keys(res.body.errors)).toEqual(['guidelineUuid']);
    });
  });

  describe('events', () => {
    it('a sub-resource write publishes agent.updated naming the list, with the agent as returned', async () => {
      const agent = await createAgent(kit.api);
      const after = await write(kit.api, 'post', agent.agent_uuid, 'notes', { content: 'announce me' });
      const message = await eventually(() =>
        agentMessages.find((m) => m.topic === 'agent.updated' && m.payload.agent_uuid === agent.agent_uuid && m.payload.changed.includes('notes')),
      );
      expect(message.payload).toEqual({ agent_uuid: agent.agent_uuid, changed: ['notes'], agent: after });
      expect(message.tenant).toBe(kit.tenant.uuid);

      await write(kit.api, 'put', agent.agent_uuid, 'guidelines', { guidelines: [{ content: 'g' }] });
      const replaced = await eventually(() =>
        agentMessages.find((m) => m.topic === 'agent.updated' && m.payload.agent_uuid === agent.agent_uuid && m.payload.changed.includes('guidelines')),
      );
      expect(replaced.payload.changed).toEqual(['guidelines']);
      expect(replaced.payload.agent.guidelines.map((g: Json) => g.content)).toEqual(['g']);
    });

    it('a refused write publishes nothing', async () => {
      const agent = await createAgent(kit.api);
      await rejected(kit.api, 'post', agent.agent_uuid, 'notes', { content: '' }, ['content']);
      await write(kit.api, 'post', agent.agent_uuid, 'training', { content: 'marker' });
      await eventually(() => agentMessages.find((m) => m.topic === 'agent.updated' && m.payload.agent_uuid === agent.agent_uuid));
      const updates = agentMessages.filter((m) => m.topic === 'agent.updated' && m.payload.agent_uuid === agent.agent_uuid);
      expect(updates.map((m) => m.payload.changed)).toEqual([['training']]);
    });
  });
});
