import { startTestKernel, type TestKernel } from '../../../core/testing';
import { AGENTS_PLUGIN, agentEventProbe, agentMessages, createAgent, eventually, failsWith, item, others, readAgent, rejected, write, type Json } from './agent-test-helpers';

const SECRET = 'a-long-enough-signing-secret-0001';

describe('agent webhooks and write-only secrets', () => {
  let kit: TestKernel;
  beforeAll(async () => {
    // Every level, so request access lines and debug output are checked by the canary test too.
    kit = await startTestKernel({ plugins: [AGENTS_PLUGIN, agentEventProbe], config: { logLevel: 'silly' } });
  });
  afterAll(() => kit?.stop());

  const sql = (query: string, params: unknown[] = []) => kit.kernel.orm.em.fork().getConnection().execute(query, params);

  it('GET /agent-webhook-events lists the catalog, with the agents plugin’s own events', async () => {
    const res = await kit.api.get('/api/v1/agent-webhook-events').expect(200);
    expect(res.body).toEqual({ success: true, message: expect.any(String), data: { items: expect.any(Array) } });
    expect(res.body.data.items).toEqual(
      expect.arrayContaining([
        { name: 'agent.created', description: expect.any(String) },
        { name: 'agent.updated', description: expect.any(String) },
        { name: 'agent.deleted', description: expect.any(String) },
      ]),
    );
  });

  it('POST adds a webhook: has_secret says whether a secret was sent, is_active defaults to true, the secret is never returned', async () => {
    const { agent_uuid } = await createAgent(kit.api);
    const signed = await write(kit.api, 'post', agent_uuid, 'webhooks', { url: 'https://hooks.example.com/a', events: ['agent.updated'], secret: SECRET });
    expect(signed.webhooks).toEqual([
      {
        webhook_uuid: expect.any(String),
        url: 'https://hooks.example.com/a',
        events: ['agent.updated'],
        is_active: true,
        has_secret: true,
        created_at: expect.any(String),
        updated_at: expect.any(String),
      },
    ]);
    expect(JSON.stringify(signed)).not.toContain(SECRET);
    expect(JSON.stringify(signed)).not.toContain('"secret"');

    const unsigned = await write(kit.api, 'post', agent_uuid, 'webhooks', { url: 'https://hooks.example.com/b', events: ['agent.created', 'agent.deleted'], is_active: false });
    expect(unsigned.webhooks).toHaveLength(2);
    expect(item(unsigned.webhooks, signed.webhooks[0].webhook_uuid, 'webhook_uuid')).toEqual(signed.webhooks[0]);
    expect(others(unsigned.webhooks, signed.webhooks[0].webhook_uuid, 'webhook_uuid')).toEqual([
      expect.objectContaining({ url: 'https://hooks.example.com/b', events: ['agent.created', 'agent.deleted'], is_active: false, has_secret: false }),
    ]);
  });

  it('events must come from the catalog: an unknown one is 422 at events.N (POST and PATCH)', async () => {
    const { agent_uuid } = await createAgent(kit.api);
    await rejected(kit.api, 'post', agent_uuid, 'webhooks', { url: 'https://h.example.com', events: ['agent.updated', 'agent.exploded'] }, ['events.1']);
    await rejected(kit.api, 'post', agent_uuid, 'webhooks', { url: 'https://h.example.com', events: [] }, ['events']);
    await rejected(kit.api, 'post', agent_uuid, 'webhooks', { url: 'https://h.example.com', events: ['agent.updated', 'agent.updated'] }, ['events']);
    await rejected(kit.api, 'post', agent_uuid, 'webhooks', { url: 'https://h.example.com' }, ['events']);
    const agent = await write(kit.api, 'post', agent_uuid, 'webhooks', { url: 'https://h.example.com', events: ['agent.updated'] });
    const hook = agent.webhooks[0].webhook_uuid;
    await rejected(kit.api, 'patch', agent_uuid, `webhooks/${hook}`, { events: ['nope', 'agent.created'], url: 'https://changed.example.com' }, ['events.0']);
  });

  it('refuses other bad bodies with 422 at the member, and writes nothing', async () => {
    const { agent_uuid } = await createAgent(kit.api);
    await rejected(kit.api, 'post', agent_uuid, 'webhooks', { url: 'not a url', events: ['agent.updated'] }, ['url']);
    await rejected(kit.api, 'post', agent_uuid, 'webhooks', { url: 'ftp://h.example.com', events: ['agent.updated'] }, ['url']);
    await rejected(kit.api, 'post', agent_uuid, 'webhooks', { url: 'https://h.example.com', events: ['agent.updated'], secret: 'short' }, ['secret']);
    await rejected(kit.api, 'post', agent_uuid, 'webhooks', { url: 'https://h.example.com', events: ['agent.updated'], active: true }, ['active']);
    await rejected(kit.api, 'post', agent_uuid, 'webhooks', { url: 'https://h.example.com', events: 'agent.updated' }, ['events']);
    const agent = await write(kit.api, 'post', agent_uuid, 'webhooks', { url: 'https://h.example.com', events: ['agent.updated'] });
    await rejected(kit.api, 'patch', agent_uuid, `webhooks/${agent.webhooks[0].webhook_uuid}`, { is_active: 'no' }, ['is_active']);
  });

  it('PATCH: secret absent keeps it, null clears it, a new one sets it; other members and webhooks untouched', async () => {
    const { agent_uuid } = await createAgent(kit.api);
    await write(kit.api, 'post', agent_uuid, 'webhooks', { url: 'https://other.example.com', events: ['agent.created'], secret: SECRET });
    let agent = await write(kit.api, 'post', agent_uuid, 'webhooks', { url: 'https://h.example.com', events: ['agent.updated'], secret: SECRET });
    const hook = agent.webhooks[1];
    const other = agent.webhooks[0];

    agent = await write(kit.api, 'patch', agent_uuid, `webhooks/${hook.webhook_uuid}`, { url: 'https://moved.example.com' });
    expect(item(agent.webhooks, hook.webhook_uuid, 'webhook_uuid')).toEqual({ ...hook, url: 'https://moved.example.com', updated_at: expect.any(String) });

    // Sending back what was read (has_secret and timestamps are read-only) keeps the secret.
    agent = await write(kit.api, 'patch', agent_uuid, `webhooks/${hook.webhook_uuid}`, { ...item(agent.webhooks, hook.webhook_uuid, 'webhook_uuid'), has_secret: false });
    expect(item(agent.webhooks, hook.webhook_uuid, 'webhook_uuid').has_secret).toBe(true);

    agent = await write(kit.api, 'patch', agent_uuid, `webhooks/${hook.webhook_uuid}`, { secret: null });
    expect(item(agent.webhooks, hook.webhook_uuid, 'webhook_uuid')).toMatchObject({ has_secret: false, url: 'https://moved.example.com', events: ['agent.updated'] });
    const [cleared] = await sql('select secret from agent_webhooks where uuid = ?', [hook.webhook_uuid]);
    expect(cleared.secret).toBeNull();

    agent = await write(kit.api, 'patch', agent_uuid, `webhooks/${hook.webhook_uuid}`, { secret: 'another-secret-of-some-length', is_active: false });
    expect(item(agent.webhooks, hook.webhook_uuid, 'webhook_uuid')).toMatchObject({ has_secret: true, is_active: false });
    expect(item(agent.webhooks, other.webhook_uuid, 'webhook_uuid')).toEqual(other);
  });

  it('DELETE removes only that webhook; a webhook of agent B on agent A’s path is 404', async () => {
    const a = await createAgent(kit.api);
    await write(kit.api, 'post', a.agent_uuid, 'webhooks', { url: 'https://one.example.com', events: ['agent.updated'] });
    const before = await write(kit.api, 'post', a.agent_uuid, 'webhooks', { url: 'https://two.example.com', events: ['agent.updated'] });
    const after = await write(kit.api, 'delete', a.agent_uuid, `webhooks/${before.webhooks[0].webhook_uuid}`);
    expect(after.webhooks).toEqual([before.webhooks[1]]);

    const b = await createAgent(kit.api);
    const bAgent = await write(kit.api, 'post', b.agent_uuid, 'webhooks', { url: 'https://b.example.com', events: ['agent.updated'], secret: SECRET });
    const theirs = bAgent.webhooks[0].webhook_uuid;
    await failsWith(kit.api.patch(`/api/v1/agents/${a.agent_uuid}/webhooks/${theirs}`).send({ secret: null }), 404);
    await failsWith(kit.api.delete(`/api/v1/agents/${a.agent_uuid}/webhooks/${theirs}`), 404);
    expect(await readAgent(kit.api, b.agent_uuid)).toEqual(bAgent);
  });

  it('canary: a seeded secret and auth token appear in no response, no log line and no bus message, and are sealed at rest', async () => {
    const CANARY_SECRET = 'CANARY-webhook-secret-7f3a9c1e5b';
    const CANARY_TOKEN = 'CANARY-intent-token-2d8e4a6f0c';
    const bodies: string[] = [];
    const keep = async (test: PromiseLike<{ status: number; body: unknown; text?: string }>, status = 200) => {
      const res: any = await test;
      bodies.push(res.text ?? JSON.stringify(res.body));
      if (res.status !== status) throw new Error(`expected ${status}, got ${res.status} ${res.text}`);
      return res.body;
    };
    const api = kit.api;
    const other = await createAgent(api, { name: 'Other' });
    const created = await keep(api.post('/api/v1/agents').send({ name: 'Canary' }), 201);
    const A = `/api/v1/agents/${created.data.agent_uuid}`;

    // Seed the canaries.
    let agent = (await keep(api.post(`${A}/webhooks`).send({ url: 'https://canary.example.com', events: ['agent.updated'], secret: CANARY_SECRET }))).data;
    const hook = agent.webhooks[0].webhook_uuid;
    agent = (await keep(api.post(`${A}/intents`).send({ key: 'canary', webhook: { url: 'https://tool.example.com', auth_token: CANARY_TOKEN } }))).data;
    const intent = agent.intents[0].intent_uuid;

    // Every read.
    await keep(api.get(A));
    await keep(api.get('/api/v1/agents'));
    await keep(api.get('/api/v1/agents?status=pending'));
    await keep(api.get(`${A}/intents`));
    await keep(api.get(`${A}/intents/${intent}`));
    await keep(api.get('/api/v1/agent-webhook-events'));

    // Every write on the agent, each answering with the whole agent.
    await keep(api.put(A).send({ description: 'changed' }));
    await keep(api.post(`${A}/activate`));
    await keep(api.post(`${A}/pause`));
    await keep(api.put(`${A}/guidelines`).send({ guidelines: [{ content: 'g' }] }));
    await keep(api.put(`${A}/training`).send({ training: [{ content: 't' }] }));
    const child = async (segment: string, member: string, idKey: string, body: Json, patch: Json) => {
      const res = await keep(api.post(`${A}/${segment}`).send(body));
      const id = res.data[member][res.data[member].length - 1][idKey];
      await keep(api.patch(`${A}/${segment}/${id}`).send(patch));
      await keep(api.delete(`${A}/${segment}/${id}`));
    };
    await child('guidelines', 'guidelines', 'uuid', { content: 'x' }, { content: 'y' });
    await child('notes', 'notes', 'uuid', { content: 'x' }, { content: 'y' });
    await child('training', 'training', 'uuid', { content: 'x' }, { content: 'y' });
    await child('procedures', 'procedures', 'uuid', { name: 'p', steps: [{ order: 1, description: 's', intent_uuid: intent }] }, { name: 'q' });
    await child('intents', 'intents', 'intent_uuid', { key: 'other', webhook: { auth_token: 'short-lived' } }, { name: 'n' });
    await child('webhooks', 'webhooks', 'webhook_uuid', { url: 'https://x.example.com', events: ['agent.created'] }, { is_active: false });
    await child('routing-rules', 'routing_rules', 'uuid', { destination_type: 'agent', destination_agent_uuid: other.agent_uuid }, { is_active: false });
    await child('guard-rules', 'guard_rules', 'uuid', { when_condition: 'w', then_action: 'end_conversation', say_before_end: 'bye' }, { name: 'n' });
    await child('phone-numbers', 'phone_numbers', 'phone_number_uuid', { number: '+14155550199' }, { status: 'inactive' });
    await child('channels', 'channels', 'uuid', { type: 'sms' }, { name: 'n' });
    // Changes to the canaries' own rows that keep them.
    await keep(api.patch(`${A}/webhooks/${hook}`).send({ url: 'https://canary2.example.com' }));
    await keep(api.patch(`${A}/intents/${intent}`).send({ name: 'renamed', webhook: { url: 'https://tool2.example.com' } }));
    // Refusals that carry the canary in their request.
    await keep(api.post(`${A}/webhooks`).send({ url: 'https://y.example.com', events: ['nope'], secret: CANARY_SECRET }), 422);
    await keep(api.post(`${A}/webhooks`).send({ url: 'https://y.example.com', events: ['agent.updated'], secret: `${CANARY_SECRET}${'x'.repeat(1024)}` }), 422);
    await keep(api.post(`${A}/intents`).send({ key: 'canary', webhook: { auth_token: CANARY_TOKEN } }), 409);
    await keep(api.patch(`${A}/intents/${intent}`).send({ webhook: { auth_token: CANARY_TOKEN, url: 'nope' } }), 422);

    agent = await readAgent(api, created.data.agent_uuid);
    expect(item(agent.webhooks, hook, 'webhook_uuid')).toMatchObject({ has_secret: true, url: 'https://canary2.example.com' });
    expect(item(agent.intents, intent, 'intent_uuid').webhook).toEqual({ url: 'https://tool2.example.com', has_auth_token: true });

    // At rest: sealed `sb1:` values, not the plaintext.
    const [webhookRow] = await sql('select secret from agent_webhooks where uuid = ?', [hook]);
    expect(webhookRow.secret).toMatch(/^sb1:/);
    expect(webhookRow.secret).not.toContain(CANARY_SECRET);
    const [intentRow] = await sql('select webhook_auth_token from agent_intents where uuid = ?', [intent]);
    expect(intentRow.webhook_auth_token).toMatch(/^sb1:/);
    expect(intentRow.webhook_auth_token).not.toContain(CANARY_TOKEN);
    const allSecrets = await sql('select secret from agent_webhooks where secret is not null');
    for (const row of allSecrets) expect(row.secret).toMatch(/^sb1:/);

    await keep(api.delete(A));

    // The bus carried the agent on every write; wait for the last one before reading.
    await eventually(() => agentMessages.find((m) => m.topic === 'agent.deleted' && m.payload.agent_uuid === created.data.agent_uuid));

    expect(bodies.length).toBeGreaterThan(40);
    for (const canary of [CANARY_SECRET, CANARY_TOKEN]) {
      for (const body of bodies) expect(body).not.toContain(canary);
      for (const line of kit.logs) expect(JSON.stringify(line)).not.toContain(canary);
      for (const message of agentMessages) expect(JSON.stringify(message)).not.toContain(canary);
    }
    expect(kit.logs.some((line) => line.message === 'request')).toBe(true);
  });
});
