import path from 'node:path';
import { startTestKernel, type TestKernel, type TestTenant } from '../../../core/testing';

const AGENTS = path.resolve(__dirname, '../../../plugins/agents');
const MEMORIZE = path.resolve(__dirname, '../../../plugins/memorize');
// Memories are made from conversations' closed sessions, of contacts.
const CONVERSATIONS = path.resolve(__dirname, '../../../plugins/conversations');
const CONTACTS = path.resolve(__dirname, '../../../plugins/contacts');
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const NO_OVERRIDE = { success: false, message: 'Agent has no memorize override; assign one first', data: [] };
const AGENT_NOT_FOUND = { success: false, message: 'Agent not found', data: [] };

let kit: TestKernel;

beforeAll(async () => {
  kit = await startTestKernel({ plugins: [AGENTS, CONVERSATIONS, CONTACTS, MEMORIZE] });
});
afterAll(() => kit?.stop());

type Api = TestTenant['api'];

const createAgent = async (api: Api = kit.api, name = 'Reception'): Promise<string> =>
  (await api.post('/api/v1/agents').send({ name }).expect(201)).body.data.agent_uuid;
const memorizeOf = async (uuid: string, api: Api = kit.api) => (await api.get(`/api/v1/agents/${uuid}`).expect(200)).body.data.settings.memorize;
const rowsOf = async (tenantUuid: string): Promise<Array<{ agent_uuid: string | null }>> =>
  kit.kernel.orm.em.fork().getConnection().execute('select agent_uuid from memorize_settings where tenant_uuid = ?', [tenantUuid]);

/** SQL statements the ORM's connection runs while `fn` runs. */
async function statementsDuring(fn: () => Promise<unknown>): Promise<string[]> {
  const spy = jest.spyOn(kit.kernel.orm.config.getLogger(), 'logQuery');
  try {
    await fn();
    return spy.mock.calls.map(([context]) => String(context.query));
  } finally {
    spy.mockRestore();
  }
}

async function eventually(check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('the default: GET|PUT /api/v1/memorize/default', () => {
  it('before it is saved, returns the built-in values without writing a row', async () => {
    const tenant = await kit.createTenant();
    const res = await tenant.api.get('/api/v1/memorize/default').expect(200);
    expect(res.body).toEqual({
      success: true,
      message: 'Default memorize settings',
      data: {
        agent_uuid: null,
        is_default: true,
        source: 'default',
        enabled: false,
        retention_days: 365,
        fields: [],
        summary_prompt: expect.stringMatching(/\S/),
        created_at: null,
        updated_at: null,
      },
    });
    expect(await rowsOf(tenant.tenant.uuid)).toEqual([]);
  });

  it('PUT is a partial update: members left out keep their value', async () => {
    const tenant = await kit.createTenant();
    const before = (await tenant.api.get('/api/v1/memorize/default').expect(200)).body.data;

    const first = await tenant.api.put('/api/v1/memorize/default').send({ enabled: true }).expect(200);
    expect(first.body).toMatchObject({ success: true, message: 'Default memorize settings updated' });
    expect(first.body.data).toEqual({ ...before, enabled: true, created_at: expect.stringMatching(ISO), updated_at: expect.stringMatching(ISO) });

    const fields = [{ key: 'preferred_name', description: 'How to address the contact' }];
    const second = await tenant.api.put('/api/v1/memorize/default').send({ retention_days: 30, fields }).expect(200);
    expect(second.body.data).toMatchObject({ enabled: true, retention_days: 30, fields, summary_prompt: before.summary_prompt, source: 'default', agent_uuid: null, is_default: true });
    expect(second.body.data.created_at).toBe(first.body.data.created_at);
    expect(second.body.data.updated_at >= first.body.data.updated_at).toBe(true);

    await tenant.api.put('/api/v1/memorize/default').send({ summary_prompt: 'Keep it short.' }).expect(200);
    const read = await tenant.api.get('/api/v1/memorize/default').expect(200);
    expect(read.body.data).toMatchObject({ enabled: true, retention_days: 30, fields, summary_prompt: 'Keep it short.' });
    expect(await rowsOf(tenant.tenant.uuid)).toEqual([{ agent_uuid: null }]);
  });

  it('an empty body changes nothing, and read-only members can be sent back as read', async () => {
    const tenant = await kit.createTenant();
    const saved = (await tenant.api.put('/api/v1/memorize/default').send({ retention_days: 7 }).expect(200)).body.data;
    const unchanged = await tenant.api.put('/api/v1/memorize/default').send({}).expect(200);
    expect(unchanged.body.data).toEqual(saved);
    const sentBack = await tenant.api.put('/api/v1/memorize/default').send({ ...saved, source: 'agent', agent_uuid: saved.created_at, enabled: true }).expect(200);
    expect(sentBack.body.data).toMatchObject({ source: 'default', agent_uuid: null, is_default: true, enabled: true, retention_days: 7 });
  });

  it("each tenant has its own default", async () => {
    const one = await kit.createTenant();
    const two = await kit.createTenant();
    await one.api.put('/api/v1/memorize/default').send({ retention_days: 11 }).expect(200);
    await two.api.put('/api/v1/memorize/default').send({ retention_days: 22 }).expect(200);
    expect((await one.api.get('/api/v1/memorize/default')).body.data.retention_days).toBe(11);
    expect((await two.api.get('/api/v1/memorize/default')).body.data.retention_days).toBe(22);
  });
});

describe('agent overrides: POST .../memorize/assign, PUT|DELETE /api/v1/agents/{uuid}/memorize', () => {
  it('assign copies the current default; a second assign returns the existing override', async () => {
    const tenant = await kit.createTenant();
    const fields = [{ key: 'budget', description: 'The budget' }];
    await tenant.api.put('/api/v1/memorize/default').send({ enabled: true, retention_days: 90, fields }).expect(200);
    const agent = await createAgent(tenant.api);

    const assigned = await tenant.api.post(`/api/v1/agents/${agent}/memorize/assign`).expect(200);
    expect(assigned.body).toEqual({
      success: true,
      message: 'Memorize override assigned',
      data: {
        agent_uuid: agent,
        is_default: false,
        source: 'agent',
        enabled: true,
        retention_days: 90,
        fields,
        summary_prompt: expect.stringMatching(/\S/),
        created_at: expect.stringMatching(ISO),
        updated_at: expect.stringMatching(ISO),
      },
    });

    // The override is its own copy: changing the default afterwards leaves it alone.
    await tenant.api.put('/api/v1/memorize/default').send({ retention_days: 5 }).expect(200);
    const again = await tenant.api.post(`/api/v1/agents/${agent}/memorize/assign`).expect(200);
    expect(again.body).toEqual({ success: true, message: 'Agent already has a memorize override', data: assigned.body.data });
  });

  it('assign works before the default was ever saved (from the built-in values), and still writes no default', async () => {
    const tenant = await kit.createTenant();
    const agent = await createAgent(tenant.api);
    const res = await tenant.api.post(`/api/v1/agents/${agent}/memorize/assign`).expect(200);
    expect(res.body.data).toMatchObject({ agent_uuid: agent, source: 'agent', enabled: false, retention_days: 365, fields: [] });
    expect(await rowsOf(tenant.tenant.uuid)).toEqual([{ agent_uuid: agent }]);
  });

  it('PUT is a partial update of the override and leaves the default alone; without an override it answers 404', async () => {
    const agent = await createAgent();
    await kit.api.put(`/api/v1/agents/${agent}/memorize`).send({ enabled: true }).expect(404, NO_OVERRIDE);

    const assigned = (await kit.api.post(`/api/v1/agents/${agent}/memorize/assign`).expect(200)).body.data;
    const fields = [
      { key: 'pet_name', description: 'The name of the pet' },
      { key: 'kids', description: '' },
    ];
    const changed = await kit.api.put(`/api/v1/agents/${agent}/memorize`).send({ fields }).expect(200);
    expect(changed.body).toMatchObject({ success: true, message: 'Memorize override updated' });
    expect(changed.body.data).toEqual({ ...assigned, fields, updated_at: expect.stringMatching(ISO) });

    const again = await kit.api.put(`/api/v1/agents/${agent}/memorize`).send({ retention_days: 3650, enabled: true }).expect(200);
    expect(again.body.data).toMatchObject({ fields, retention_days: 3650, enabled: true, source: 'agent', agent_uuid: agent });
    expect((await kit.api.get('/api/v1/memorize/default')).body.data.retention_days).not.toBe(3650);
  });

  it('DELETE removes the override and is idempotent: deleted true, then false', async () => {
    const agent = await createAgent();
    await kit.api.delete(`/api/v1/agents/${agent}/memorize`).expect(200, { success: true, message: 'Agent had no memorize override', data: { deleted: false } });
    await kit.api.post(`/api/v1/agents/${agent}/memorize/assign`).expect(200);
    await kit.api.delete(`/api/v1/agents/${agent}/memorize`).expect(200, { success: true, message: 'Memorize override removed', data: { deleted: true } });
    await kit.api.delete(`/api/v1/agents/${agent}/memorize`).expect(200, { success: true, message: 'Agent had no memorize override', data: { deleted: false } });
    await kit.api.put(`/api/v1/agents/${agent}/memorize`).send({ enabled: true }).expect(404, NO_OVERRIDE);
    // Assign works again, from the default.
    expect((await kit.api.post(`/api/v1/agents/${agent}/memorize/assign`).expect(200)).body.message).toBe('Memorize override assigned');
  });

  it('an unknown agent answers 404 on every agent route', async () => {
    const unknown = '0190d5c2-0000-7000-8000-000000000099';
    await kit.api.post(`/api/v1/agents/${unknown}/memorize/assign`).expect(404, AGENT_NOT_FOUND);
    await kit.api.put(`/api/v1/agents/${unknown}/memorize`).send({ enabled: true }).expect(404, AGENT_NOT_FOUND);
    await kit.api.delete(`/api/v1/agents/${unknown}/memorize`).expect(404, AGENT_NOT_FOUND);
    const res = await kit.api.delete('/api/v1/agents/not-a-uuid/memorize').expect(422);
    expect(Object.keys(res.body.errors)).toEqual(['uuid']);
  });

  it("another tenant's agent answers 404 and is left untouched", async () => {
    const owner = await kit.createTenant();
    const agent = await createAgent(owner.api);
    await owner.api.post(`/api/v1/agents/${agent}/memorize/assign`).expect(200);

    await kit.api.post(`/api/v1/agents/${agent}/memorize/assign`).expect(404, AGENT_NOT_FOUND);
    await kit.api.put(`/api/v1/agents/${agent}/memorize`).send({ enabled: true }).expect(404, AGENT_NOT_FOUND);
    await kit.api.delete(`/api/v1/agents/${agent}/memorize`).expect(404, AGENT_NOT_FOUND);
    expect(await memorizeOf(agent, owner.api)).toMatchObject({ source: 'agent', enabled: false });
    expect(await rowsOf(kit.tenant.uuid)).not.toContainEqual({ agent_uuid: agent });
  });
});

describe('settings.memorize on the agent', () => {
  it('shows the effective settings: the default, then the override, then the default again after delete', async () => {
    const tenant = await kit.createTenant();
    const agent = await createAgent(tenant.api);

    const inherited = await memorizeOf(agent, tenant.api);
    expect(inherited).toEqual((await tenant.api.get('/api/v1/memorize/default')).body.data);
    expect(inherited).toMatchObject({ source: 'default', agent_uuid: null, is_default: true, enabled: false });

    // The default's changes show on agents without an override.
    await tenant.api.put('/api/v1/memorize/default').send({ enabled: true, retention_days: 60 }).expect(200);
    expect(await memorizeOf(agent, tenant.api)).toMatchObject({ source: 'default', enabled: true, retention_days: 60 });

    await tenant.api.post(`/api/v1/agents/${agent}/memorize/assign`).expect(200);
    const override = (await tenant.api.put(`/api/v1/agents/${agent}/memorize`).send({ retention_days: 15 }).expect(200)).body.data;
    expect(await memorizeOf(agent, tenant.api)).toEqual(override);
    expect(override).toMatchObject({ source: 'agent', agent_uuid: agent, is_default: false, enabled: true, retention_days: 15 });

    // The list shows the same, and another agent still inherits the default.
    const other = await createAgent(tenant.api, 'Other');
    const list = (await tenant.api.get('/api/v1/agents?per_page=100').expect(200)).body.data.items;
    const byUuid = new Map(list.map((a: any) => [a.agent_uuid, a.settings.memorize]));
    expect(byUuid.get(agent)).toEqual(override);
    expect(byUuid.get(other)).toMatchObject({ source: 'default', retention_days: 60 });

    await tenant.api.delete(`/api/v1/agents/${agent}/memorize`).expect(200);
    expect(await memorizeOf(agent, tenant.api)).toMatchObject({ source: 'default', agent_uuid: null, enabled: true, retention_days: 60 });
  });

  it('is read-only on the agent: a PUT of the agent with settings.memorize ignores it', async () => {
    const agent = await createAgent();
    const read = (await kit.api.get(`/api/v1/agents/${agent}`).expect(200)).body.data;
    const res = await kit.api
      .put(`/api/v1/agents/${agent}`)
      .send({ ...read, settings: { ...read.settings, memorize: { ...read.settings.memorize, retention_days: 1 } } })
      .expect(200);
    expect(res.body.data.settings.memorize).toEqual(read.settings.memorize);
    expect(await rowsOf(kit.tenant.uuid)).not.toContainEqual({ agent_uuid: agent });
  });

  it('is loaded for a whole page in one query, however many agents the page has', async () => {
    const tenant = await kit.createTenant();
    const agents: string[] = [];
    for (let i = 0; i < 5; i++) agents.push(await createAgent(tenant.api, `Agent ${i}`));
    await tenant.api.put('/api/v1/memorize/default').send({ retention_days: 42 }).expect(200);
    for (const agent of agents.slice(0, 3)) await tenant.api.post(`/api/v1/agents/${agent}/memorize/assign`).expect(200);

    let page: any[] = [];
    const five = await statementsDuring(async () => {
      page = (await tenant.api.get('/api/v1/agents?per_page=5').expect(200)).body.data.items;
    });
    const one = await statementsDuring(() => tenant.api.get('/api/v1/agents?per_page=1').expect(200));
    const single = await statementsDuring(() => tenant.api.get(`/api/v1/agents/${agents[4]}`).expect(200));

    // The counting works (it sees the statements at all) ...
    expect(five.length).toBeGreaterThan(0);
    expect(five.filter((sql) => sql.includes('agents')).length).toBeGreaterThan(0);
    // ... and the settings cost one statement per page, not one per agent.
    const memorize = (statements: string[]) => statements.filter((sql) => sql.includes('memorize_settings'));
    expect(memorize(five)).toHaveLength(1);
    expect(memorize(one)).toHaveLength(1);
    expect(memorize(single)).toHaveLength(1);
    expect(five.length).toBe(one.length);

    expect(page).toHaveLength(5);
    const sources = new Map(page.map((a) => [a.agent_uuid, a.settings.memorize.source]));
    expect(agents.map((uuid) => sources.get(uuid))).toEqual(['agent', 'agent', 'agent', 'default', 'default']);
    expect(page.every((a) => a.settings.memorize.retention_days === 42)).toBe(true);
  });
});

describe('bad input: 422 with dotted paths', () => {
  const paths = (res: { body: { errors: Record<string, string[]> } }) => Object.keys(res.body.errors).sort();
  let agent: string;
  beforeAll(async () => {
    agent = await createAgent();
    await kit.api.post(`/api/v1/agents/${agent}/memorize/assign`).expect(200);
  });

  for (const [name, url] of [
    ['the default', () => '/api/v1/memorize/default'],
    ['an override', () => `/api/v1/agents/${agent}/memorize`],
  ] as const) {
    describe(name, () => {
      it('refuses wrong types and unknown members, naming each', async () => {
        const res = await kit.api.put(url()).send({ enabled: 'yes', retention_days: '30', fields: {}, summary_prompt: 5, bogus: 1 }).expect(422);
        expect(paths(res)).toEqual(['bogus', 'enabled', 'fields', 'retention_days', 'summary_prompt']);
        expect(res.body.message).toEqual(expect.any(String));
      });

      it('refuses retention_days out of 1..3650 and non-integers', async () => {
        for (const retention_days of [0, -1, 3651, 1.5]) {
          const res = await kit.api.put(url()).send({ retention_days }).expect(422);
          expect(paths(res)).toEqual(['retention_days']);
        }
        await kit.api.put(url()).send({ retention_days: 1 }).expect(200);
        await kit.api.put(url()).send({ retention_days: 3650 }).expect(200);
      });

      it('refuses bad field items: keys, members, duplicates, too many', async () => {
        const bad = await kit.api
          .put(url())
          .send({ fields: [{ key: 'Budget', description: 'x' }, { key: 'ok' }, { key: 'also_ok', description: 'x', extra: true }, { key: `a${'b'.repeat(64)}`, description: 'x' }] })
          .expect(422);
        expect(paths(bad)).toEqual(['fields.0.key', 'fields.1.description', 'fields.2.extra', 'fields.3.key']);

        const duplicate = await kit.api
          .put(url())
          .send({ fields: [{ key: 'budget', description: 'a' }, { key: 'name', description: 'b' }, { key: 'budget', description: 'c' }] })
          .expect(422);
        expect(duplicate.body.errors).toEqual({ 'fields.2.key': [expect.stringContaining('fields.0.key')] });

        const many = Array.from({ length: 101 }, (_, i) => ({ key: `field_${i}`, description: '' }));
        expect(paths(await kit.api.put(url()).send({ fields: many }).expect(422))).toEqual(['fields']);
        await kit.api.put(url()).send({ fields: many.slice(0, 100) }).expect(200);
      });

      it('refuses a summary_prompt over 20000 characters', async () => {
        expect(paths(await kit.api.put(url()).send({ summary_prompt: 'x'.repeat(20_001) }).expect(422))).toEqual(['summary_prompt']);
        await kit.api.put(url()).send({ summary_prompt: 'x'.repeat(20_000) }).expect(200);
      });

      it('changes nothing when refused', async () => {
        const before = (await kit.api.get(`/api/v1/agents/${agent}`)).body.data.settings.memorize;
        const defaultBefore = (await kit.api.get('/api/v1/memorize/default')).body.data;
        await kit.api.put(url()).send({ enabled: !before.enabled, fields: [{ key: 'a', description: '' }, { key: 'a', description: '' }] }).expect(422);
        expect((await kit.api.get(`/api/v1/agents/${agent}`)).body.data.settings.memorize).toEqual(before);
        expect((await kit.api.get('/api/v1/memorize/default')).body.data).toEqual(defaultBefore);
      });
    });
  }
});

describe('when the agent is deleted', () => {
  it('its override goes too (on agent.deleted), and the default stays', async () => {
    const tenant = await kit.createTenant();
    await tenant.api.put('/api/v1/memorize/default').send({ enabled: true }).expect(200);
    const agent = await createAgent(tenant.api);
    const kept = await createAgent(tenant.api, 'Kept');
    await tenant.api.post(`/api/v1/agents/${agent}/memorize/assign`).expect(200);
    await tenant.api.post(`/api/v1/agents/${kept}/memorize/assign`).expect(200);

    await tenant.api.delete(`/api/v1/agents/${agent}`).expect(200);
    await tenant.api.post(`/api/v1/agents/${agent}/memorize/assign`).expect(404, AGENT_NOT_FOUND);
    await eventually(async () => !(await rowsOf(tenant.tenant.uuid)).some((row) => row.agent_uuid === agent));
    expect((await rowsOf(tenant.tenant.uuid)).map((row) => row.agent_uuid).sort()).toEqual([kept, null].sort());
  });
});
