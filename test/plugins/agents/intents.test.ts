import { startTestKernel, type TestKernel } from '../../../core/testing';
import { AGENTS_PLUGIN, createAgent, failsWith, item, others, readAgent, rejected, write, type Json } from './agent-test-helpers';

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('agent intents', () => {
  let kit: TestKernel;
  beforeAll(async () => {
    kit = await startTestKernel({ plugins: [AGENTS_PLUGIN] });
  });
  afterAll(() => kit?.stop());

  const intentOf = (agent: Json, key: string) => agent.intents.find((i: Json) => i.key === key);

  it('POST adds an intent with defaults filled; the answer never holds the auth token', async () => {
    const { agent_uuid } = await createAgent(kit.api);
    const agent = await write(kit.api, 'post', agent_uuid, 'intents', {
      key: 'book_demo',
      name: 'Book a demo',
      confidence_threshold: 0.7,
      webhook: { url: 'https://crm.example.com/hooks/demo', auth_token: 'tok-book-demo-123' },
      parameters: [{ key: 'email', required: true }, { key: 'seats', type: 'integer', default: '1' }],
    });
    expect(agent.intents).toEqual([
      {
        intent_uuid: expect.any(String),
        key: 'book_demo',
        name: 'Book a demo',
        description: '',
        recommendation_actions: '',
        confidence_threshold: 0.7,
        is_system: false,
        intent_llm_handle_by_response: false,
        webhook: { url: 'https://crm.example.com/hooks/demo', has_auth_token: true },
        parameters: [
          { key: 'email', default: '', type: 'string', required: true },
          { key: 'seats', default: '1', type: 'integer', required: false },
        ],
        created_at: expect.stringMatching(TIMESTAMP),
        updated_at: expect.stringMatching(TIMESTAMP),
      },
    ]);
    expect(JSON.stringify(agent)).not.toContain('tok-book-demo-123');
    expect(JSON.stringify(agent)).not.toContain('"auth_token"');

    const plain = await write(kit.api, 'post', agent_uuid, 'intents', { key: 'plain' });
    expect(intentOf(plain, 'plain')).toMatchObject({ confidence_threshold: 0.5, webhook: { url: null, has_auth_token: false }, parameters: [] });
    expect(intentOf(plain, 'book_demo')).toEqual(agent.intents[0]);
  });

  it('key is unique per agent: POST or PATCH to a taken key is 409; another agent may use it', async () => {
    const { agent_uuid } = await createAgent(kit.api);
    await write(kit.api, 'post', agent_uuid, 'intents', { key: 'book' });
    const agent = await write(kit.api, 'post', agent_uuid, 'intents', { key: 'cancel' });
    await failsWith(kit.api.post(`/api/v1/agents/${agent_uuid}/intents`).send({ key: 'book', name: 'again' }), 409);
    const cancel = intentOf(agent, 'cancel').intent_uuid;
    await failsWith(kit.api.patch(`/api/v1/agents/${agent_uuid}/intents/${cancel}`).send({ key: 'book' }), 409);
    expect(await readAgent(kit.api, agent_uuid)).toEqual(agent);

    // Sending its own key back is not a conflict.
    const same = await write(kit.api, 'patch', agent_uuid, `intents/${cancel}`, { key: 'cancel', name: 'Cancel' });
    expect(intentOf(same, 'cancel').name).toBe('Cancel');

    const other = await createAgent(kit.api);
    const theirs = await write(kit.api, 'post', other.agent_uuid, 'intents', { key: 'book' });
    expect(theirs.intents.map((i: Json) => i.key)).toEqual(['book']);
  });

  it('the built-in tools’ names are refused as keys with 422 on body.key', async () => {
    const { agent_uuid } = await createAgent(kit.api);
    for (const key of ['search_knowledge', 'lookup_records', 'transfer', 'end_conversation', 'find_slots', 'book_appointment', 'reschedule_appointment', 'cancel_appointment']) {
      const res = await kit.api.post(`/api/v1/agents/${agent_uuid}/intents`).send({ key }).expect(422);
      expect(Object.keys(res.body.errors)).toEqual(['body.key']);
    }
    const agent = await write(kit.api, 'post', agent_uuid, 'intents', { key: 'transfer_money' });
    const renamed = intentOf(agent, 'transfer_money').intent_uuid;
    await kit.api.patch(`/api/v1/agents/${agent_uuid}/intents/${renamed}`).send({ key: 'transfer' }).expect(422);
  });

  it('concurrent POSTs of one key: exactly one is added, the others are 409', async () => {
    const { agent_uuid } = await createAgent(kit.api);
    const results = await Promise.all([1, 2, 3].map(() => kit.api.post(`/api/v1/agents/${agent_uuid}/intents`).send({ key: 'race' })));
    expect(results.map((r) => r.status).sort()).toEqual([200, 409, 409]);
    expect((await readAgent(kit.api, agent_uuid)).intents.map((i: Json) => i.key)).toEqual(['race']);
  });

  it('GET one intent answers {data: intent}, the same item the agent lists', async () => {
    const { agent_uuid } = await createAgent(kit.api);
    const agent = await write(kit.api, 'post', agent_uuid, 'intents', { key: 'one', description: 'first', webhook: { url: 'https://x.example.com/h', auth_token: 'tok-one-zzz' } });
    const intent = agent.intents[0];
    const res = await kit.api.get(`/api/v1/agents/${agent_uuid}/intents/${intent.intent_uuid}`).expect(200);
    expect(res.body).toEqual({ data: intent });
    expect(JSON.stringify(res.body)).not.toContain('tok-one-zzz');
    await failsWith(kit.api.get(`/api/v1/agents/${agent_uuid}/intents/01900000-0000-7000-8000-0000000000bb`), 404);
    await failsWith(kit.api.get(`/api/v1/agents/01900000-0000-7000-8000-0000000000bb/intents/${intent.intent_uuid}`), 404);
  });

  it('GET the list pages intents oldest first with the pagination envelope', async () => {
    const { agent_uuid } = await createAgent(kit.api);
    for (const key of ['a1', 'a2', 'a3']) await write(kit.api, 'post', agent_uuid, 'intents', { key });
    const agent = await readAgent(kit.api, agent_uuid);

    const all = await kit.api.get(`/api/v1/agents/${agent_uuid}/intents`).expect(200);
    expect(all.body).toEqual({
      success: true,
      data: { items: agent.intents, pagination: { current_page: 1, per_page: 25, total: 3, last_page: 1, from: 1, to: 3, has_more: false } },
    });
    expect(all.body.data.items.map((i: Json) => i.key)).toEqual(['a1', 'a2', 'a3']);

    const page2 = await kit.api.get(`/api/v1/agents/${agent_uuid}/intents?per_page=2&page=2`).expect(200);
    expect(page2.body.data.items.map((i: Json) => i.key)).toEqual(['a3']);
    expect(page2.body.data.pagination).toEqual({ current_page: 2, per_page: 2, total: 3, last_page: 2, from: 3, to: 3, has_more: false });
    const page1 = await kit.api.get(`/api/v1/agents/${agent_uuid}/intents?per_page=2`).expect(200);
    expect(page1.body.data.pagination).toMatchObject({ has_more: true, from: 1, to: 2 });

    const empty = await createAgent(kit.api);
    const none = await kit.api.get(`/api/v1/agents/${empty.agent_uuid}/intents`).expect(200);
    expect(none.body.data.items).toEqual([]);
    expect(none.body.data.pagination.total).toBe(0);

    await kit.api.get(`/api/v1/agents/${agent_uuid}/intents?per_page=101`).expect(422);
    await failsWith(kit.api.get('/api/v1/agents/01900000-0000-7000-8000-0000000000cc/intents'), 404);
  });

  it('an intent of agent B is 404 on agent A’s paths (GET, PATCH, DELETE), and of another tenant too', async () => {
    const a = await createAgent(kit.api);
    const b = await createAgent(kit.api);
    const bAgent = await write(kit.api, 'post', b.agent_uuid, 'intents', { key: 'theirs' });
    const theirs = bAgent.intents[0].intent_uuid;
    await failsWith(kit.api.get(`/api/v1/agents/${a.agent_uuid}/intents/${theirs}`), 404);
    await failsWith(kit.api.patch(`/api/v1/agents/${a.agent_uuid}/intents/${theirs}`).send({ name: 'x' }), 404);
    await failsWith(kit.api.delete(`/api/v1/agents/${a.agent_uuid}/intents/${theirs}`), 404);
    expect(await readAgent(kit.api, b.agent_uuid)).toEqual(bAgent);

    const tenant = await kit.createTenant();
    await failsWith(tenant.api.get(`/api/v1/agents/${b.agent_uuid}/intents/${theirs}`), 404);
    await failsWith(tenant.api.get(`/api/v1/agents/${b.agent_uuid}/intents`), 404);
  });

  it('confidence_threshold must be within 0..1 (POST and PATCH), bounds included', async () => {
    const { agent_uuid } = await createAgent(kit.api);
    await rejected(kit.api, 'post', agent_uuid, 'intents', { key: 'k', confidence_threshold: 1.01 }, ['confidence_threshold']);
    await rejected(kit.api, 'post', agent_uuid, 'intents', { key: 'k', confidence_threshold: -0.1 }, ['confidence_threshold']);
    await rejected(kit.api, 'post', agent_uuid, 'intents', { key: 'k', confidence_threshold: '0.5' }, ['confidence_threshold']);
    const zero = await write(kit.api, 'post', agent_uuid, 'intents', { key: 'zero', confidence_threshold: 0 });
    const one = await write(kit.api, 'post', agent_uuid, 'intents', { key: 'one', confidence_threshold: 1 });
    expect(intentOf(zero, 'zero').confidence_threshold).toBe(0);
    expect(intentOf(one, 'one').confidence_threshold).toBe(1);
    await rejected(kit.api, 'patch', agent_uuid, `intents/${intentOf(one, 'one').intent_uuid}`, { confidence_threshold: 2 }, ['confidence_threshold']);
  });

  it('webhook.auth_token: absent on PATCH keeps it, null removes it, never returned', async () => {
    const { agent_uuid } = await createAgent(kit.api);
    let agent = await write(kit.api, 'post', agent_uuid, 'intents', { key: 'hook', webhook: { url: 'https://a.example.com/h', auth_token: 'tok-keep-me-42' } });
    const uuid = agent.intents[0].intent_uuid;

    agent = await write(kit.api, 'patch', agent_uuid, `intents/${uuid}`, { name: 'renamed' });
    expect(item(agent.intents, uuid, 'intent_uuid').webhook).toEqual({ url: 'https://a.example.com/h', has_auth_token: true });

    agent = await write(kit.api, 'patch', agent_uuid, `intents/${uuid}`, { webhook: { url: 'https://b.example.com/h' } });
    expect(item(agent.intents, uuid, 'intent_uuid').webhook).toEqual({ url: 'https://b.example.com/h', has_auth_token: true });

    // Sending back what was read (has_auth_token is read-only) keeps the token.
    const read = item(agent.intents, uuid, 'intent_uuid');
    agent = await write(kit.api, 'patch', agent_uuid, `intents/${uuid}`, read);
    expect(item(agent.intents, uuid, 'intent_uuid').webhook).toEqual({ url: 'https://b.example.com/h', has_auth_token: true });

    agent = await write(kit.api, 'patch', agent_uuid, `intents/${uuid}`, { webhook: { auth_token: null } });
    expect(item(agent.intents, uuid, 'intent_uuid').webhook).toEqual({ url: 'https://b.example.com/h', has_auth_token: false });

    agent = await write(kit.api, 'patch', agent_uuid, `intents/${uuid}`, { webhook: { auth_token: 'tok-new-one-77' } });
    expect(item(agent.intents, uuid, 'intent_uuid').webhook.has_auth_token).toBe(true);
    expect(JSON.stringify(agent)).not.toContain('tok-new-one-77');

    const [row] = await kit.kernel.orm.em.fork().getConnection().execute('select webhook_auth_token from agent_intents where uuid = ?', [uuid]);
    expect(row.webhook_auth_token).toMatch(/^sb1:/);
    expect(row.webhook_auth_token).not.toContain('tok-new-one-77');

    agent = await write(kit.api, 'patch', agent_uuid, `intents/${uuid}`, { webhook: { url: null } });
    expect(item(agent.intents, uuid, 'intent_uuid').webhook.url).toBeNull();
  });

  it('PATCH changes only that intent; parameters, when sent, are replaced', async () => {
    const { agent_uuid } = await createAgent(kit.api);
    await write(kit.api, 'post', agent_uuid, 'intents', { key: 'a', parameters: [{ key: 'x' }] });
    const before = await write(kit.api, 'post', agent_uuid, 'intents', { key: 'b', description: 'keep' });
    const a = intentOf(before, 'a');
    const after = await write(kit.api, 'patch', agent_uuid, `intents/${a.intent_uuid}`, {
      description: 'changed',
      is_system: true,
      parameters: [{ key: 'y', type: 'boolean', required: true }],
    });
    expect(intentOf(after, 'a')).toEqual({
      ...a,
      description: 'changed',
      is_system: true,
      parameters: [{ key: 'y', default: '', type: 'boolean', required: true }],
      updated_at: expect.stringMatching(TIMESTAMP),
    });
    expect(others(after.intents, a.intent_uuid, 'intent_uuid')).toEqual(others(before.intents, a.intent_uuid, 'intent_uuid'));
    const keep = await write(kit.api, 'patch', agent_uuid, `intents/${a.intent_uuid}`, { name: 'A' });
    expect(intentOf(keep, 'a').parameters).toEqual([{ key: 'y', default: '', type: 'boolean', required: true }]);
  });

  it('DELETE removes only that intent', async () => {
    const { agent_uuid } = await createAgent(kit.api);
    await write(kit.api, 'post', agent_uuid, 'intents', { key: 'a' });
    const before = await write(kit.api, 'post', agent_uuid, 'intents', { key: 'b' });
    const a = intentOf(before, 'a').intent_uuid;
    const after = await write(kit.api, 'delete', agent_uuid, `intents/${a}`);
    expect(after.intents).toEqual([intentOf(before, 'b')]);
    await failsWith(kit.api.get(`/api/v1/agents/${agent_uuid}/intents/${a}`), 404);
  });

  it('refuses bad bodies with 422 at the dotted path, and writes nothing', async () => {
    const { agent_uuid } = await createAgent(kit.api);
    const agent = await write(kit.api, 'post', agent_uuid, 'intents', { key: 'k' });
    const uuid = agent.intents[0].intent_uuid;
    await rejected(kit.api, 'post', agent_uuid, 'intents', { name: 'no key' }, ['key']);
    await rejected(kit.api, 'post', agent_uuid, 'intents', { key: 'has space' }, ['key']);
    await rejected(kit.api, 'post', agent_uuid, 'intents', { key: 'k2', colour: 'red' }, ['colour']);
    await rejected(kit.api, 'post', agent_uuid, 'intents', { key: 'k2', parameters: [{ key: 'p', type: 'date' }] }, ['parameters.0.type']);
    await rejected(kit.api, 'post', agent_uuid, 'intents', { key: 'k2', parameters: [{ key: 'ok' }, { key: '1bad' }] }, ['parameters.1.key']);
    await rejected(kit.api, 'post', agent_uuid, 'intents', { key: 'k2', webhook: { url: 'ftp://files.example.com' } }, ['webhook.url']);
    await rejected(kit.api, 'post', agent_uuid, 'intents', { key: 'k2', webhook: { url: 'https://a.example.com', token: 'x' } }, ['webhook.token']);
    await rejected(kit.api, 'post', agent_uuid, 'intents', { key: 'k2', webhook: { auth_token: '' } }, ['webhook.auth_token']);
    await rejected(kit.api, 'patch', agent_uuid, `intents/${uuid}`, { is_system: 'yes' }, ['is_system']);
    await rejected(kit.api, 'patch', agent_uuid, `intents/${uuid}`, { key: null }, ['key']);
  });
});
