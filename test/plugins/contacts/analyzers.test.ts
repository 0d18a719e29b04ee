import path from 'node:path';
import { startTestKernel, type TestKernel, type TestTenant } from '../../../core/testing';
import { sweepCrossTenant, type ResourceFixture } from '../../../core/testing/cross-tenant-sweep';
import { fixtures as agentFixtures } from '../../../plugins/agents/testing';
import { fixtures as analyzerFixtures } from '../../../plugins/contacts/analyzers/testing-fixtures';
import { fixtures as conversationFixtures } from '../../../plugins/conversations/testing';

const PLUGINS = ['agents', 'conversations', 'contacts'].map((id) => path.resolve(__dirname, '../../../plugins', id));
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const NOT_FOUND = { success: false, message: 'Contact analyzer not found', data: [] };

let kit: TestKernel;

beforeAll(async () => {
  kit = await startTestKernel({ plugins: PLUGINS });
});
afterAll(() => kit?.stop());

type Api = TestTenant['api'];

const createField = (tenant: TestTenant, key: string, dataType = 'text') =>
  tenant.api.post('/api/v1/contact-fields').send({ key, name: key, data_type: dataType }).expect(201);

const create = (api: Api, body: Record<string, unknown>) => api.post('/api/v1/contact-analyzers').send(body);
const errorsOf = async (api: Api, body: Record<string, unknown>) => {
  const res = await create(api, body).expect(422);
  return res.body.errors;
};

describe('POST /api/v1/contact-analyzers', () => {
  it('creates an analyzer with the defaults: enabled, not auto-approved, and says what it writes', async () => {
    const tenant = await kit.createTenant();
    const res = await create(tenant.api, { analyzer_id: 'b_company', instruction: 'The company the customer works for.' }).expect(201);
    expect(res.body).toEqual({
      data: {
        analyzer_id: 'b_company',
        name: '',
        instruction: 'The company the customer works for.',
        enabled: true,
        auto_approve: false,
        field: 'company',
        created_at: expect.stringMatching(ISO),
        updated_at: expect.stringMatching(ISO),
      },
    });
    await tenant.api.get('/api/v1/contact-analyzers/b_company').expect(200, res.body);
  });

  it('takes name, enabled and auto_approve, and ignores read-only members sent back', async () => {
    const tenant = await kit.createTenant();
    const res = await create(tenant.api, {
      analyzer_id: 'p_qualified',
      name: 'Qualified',
      instruction: 'The customer confirmed budget and timing.',
      enabled: false,
      auto_approve: true,
      field: 'whatever',
      created_at: '2020-01-01T00:00:00.000Z',
    }).expect(201);
    expect(res.body.data).toMatchObject({ analyzer_id: 'p_qualified', name: 'Qualified', enabled: false, auto_approve: true, field: 'pipeline_stage' });
    expect(res.body.data.created_at).not.toBe('2020-01-01T00:00:00.000Z');
  });

  it('accepts every built-in field after b_, and refuses anything else at analyzer_id', async () => {
    const tenant = await kit.createTenant();
    for (const field of ['name', 'surname', 'email', 'phone_number', 'timezone', 'country_code', 'primary_language', 'company', 'city', 'lead_source']) {
      const res = await create(tenant.api, { analyzer_id: `b_${field}`, instruction: 'x' }).expect(201);
      expect(res.body.data.field).toBe(field);
    }
    for (const id of ['b_pipeline_stage', 'b_custom_fields', 'b_opted_out', 'b_uuid', 'b_', 'b_Company']) {
      expect(await errorsOf(tenant.api, { analyzer_id: id, instruction: 'x' })).toEqual({ analyzer_id: [expect.stringContaining('is not a built-in contact field')] });
    }
  });

  it('f_ needs the key of an existing contact field', async () => {
    const tenant = await kit.createTenant();
    expect(await errorsOf(tenant.api, { analyzer_id: 'f_budget', instruction: 'x' })).toEqual({ analyzer_id: ['no contact field has the key "budget"'] });
    await createField(tenant, 'budget', 'number');
    const res = await create(tenant.api, { analyzer_id: 'f_budget', instruction: 'The budget.' }).expect(201);
    expect(res.body.data.field).toBe('custom_fields.budget');
    // Another tenant's field is not this tenant's.
    const other = await kit.createTenant();
    expect(await errorsOf(other.api, { analyzer_id: 'f_budget', instruction: 'x' })).toEqual({ analyzer_id: ['no contact field has the key "budget"'] });
  });

  it('p_ takes a stage key of ^[a-z][a-z0-9_]{0,63}$', async () => {
    const tenant = await kit.createTenant();
    for (const id of ['p_a', 'p_demo_booked', `p_a${'b'.repeat(63)}`]) await create(tenant.api, { analyzer_id: id, instruction: 'x' }).expect(201);
    for (const id of ['p_', 'p_Demo', 'p_1st', 'p_demo-booked', `p_a${'b'.repeat(64)}`, 'p_demo booked']) {
      expect(await errorsOf(tenant.api, { analyzer_id: id, instruction: 'x' })).toEqual({ analyzer_id: [expect.stringContaining('^[a-z][a-z0-9_]{0,63}$')] });
    }
  });

  it('refuses other prefixes, a missing instruction and unknown members', async () => {
    const tenant = await kit.createTenant();
    expect(await errorsOf(tenant.api, { analyzer_id: 'x_company', instruction: 'x' })).toEqual({ analyzer_id: [expect.stringContaining('must start with b_')] });
    expect(Object.keys(await errorsOf(tenant.api, { analyzer_id: 'b_city' }))).toEqual(['instruction']);
    expect(Object.keys(await errorsOf(tenant.api, { analyzer_id: 'b_city', instruction: 'x', colour: 'red' }))).toEqual(['colour']);
  });

  it('a duplicate analyzer_id is a 409; the same id in another tenant is fine', async () => {
    const tenant = await kit.createTenant();
    await create(tenant.api, { analyzer_id: 'b_city', instruction: 'x' }).expect(201);
    const res = await create(tenant.api, { analyzer_id: 'b_city', instruction: 'y' }).expect(409);
    expect(res.body).toEqual({ success: false, message: 'A contact analyzer with this analyzer_id already exists', data: [] });
    const other = await kit.createTenant();
    await create(other.api, { analyzer_id: 'b_city', instruction: 'x' }).expect(201);
  });

  it('two requests creating the same id at once: one 201, one 409', async () => {
    const tenant = await kit.createTenant();
    const statuses = await Promise.all([1, 2].map(() => create(tenant.api, { analyzer_id: 'b_surname', instruction: 'x' }).then((res) => res.status)));
    expect(statuses.sort()).toEqual([201, 409]);
  });
});

describe('GET /api/v1/contact-analyzers', () => {
  it('pages the analyzers in creation order and filters by enabled', async () => {
    const tenant = await kit.createTenant();
    for (const [id, enabled] of [
      ['b_name', true],
      ['b_city', false],
      ['b_company', true],
      ['p_won', false],
    ] as const) {
      await create(tenant.api, { analyzer_id: id, instruction: 'x', enabled }).expect(201);
    }
    const all = await tenant.api.get('/api/v1/contact-analyzers?per_page=3').expect(200);
    expect(all.body.data.items.map((a: { analyzer_id: string }) => a.analyzer_id)).toEqual(['b_name', 'b_city', 'b_company']);
    expect(all.body.data.pagination).toEqual({ current_page: 1, per_page: 3, total: 4, last_page: 2, from: 1, to: 3, has_more: true });
    const second = await tenant.api.get('/api/v1/contact-analyzers?per_page=3&page=2').expect(200);
    expect(second.body.data.items.map((a: { analyzer_id: string }) => a.analyzer_id)).toEqual(['p_won']);

    const enabled = await tenant.api.get('/api/v1/contact-analyzers?enabled=true').expect(200);
    expect(enabled.body.data.items.map((a: { analyzer_id: string }) => a.analyzer_id)).toEqual(['b_name', 'b_company']);
    const disabled = await tenant.api.get('/api/v1/contact-analyzers?enabled=false').expect(200);
    expect(disabled.body.data.items.map((a: { analyzer_id: string }) => a.analyzer_id)).toEqual(['b_city', 'p_won']);
    await tenant.api.get('/api/v1/contact-analyzers?enabled=maybe').expect(422);
    // Another tenant sees none of them.
    const other = await kit.createTenant();
    expect((await other.api.get('/api/v1/contact-analyzers').expect(200)).body.data.items).toEqual([]);
  });
});

describe('GET|PATCH|DELETE /api/v1/contact-analyzers/:analyzer_id', () => {
  it('changes the members sent, and nothing else', async () => {
    const tenant = await kit.createTenant();
    const created = (await create(tenant.api, { analyzer_id: 'b_company', name: 'Company', instruction: 'x' }).expect(201)).body.data;
    const res = await tenant.api.patch('/api/v1/contact-analyzers/b_company').send({ instruction: 'The employer.', auto_approve: true }).expect(200);
    expect(res.body.data).toEqual({ ...created, instruction: 'The employer.', auto_approve: true, updated_at: expect.stringMatching(ISO) });
    // What was read can be sent back whole.
    const back = await tenant.api.patch('/api/v1/contact-analyzers/b_company').send({ ...res.body.data, enabled: false }).expect(200);
    expect(back.body.data).toMatchObject({ analyzer_id: 'b_company', enabled: false, instruction: 'The employer.' });
    await tenant.api.get('/api/v1/contact-analyzers/b_company').expect(200, { data: back.body.data });
  });

  it('analyzer_id is immutable', async () => {
    const tenant = await kit.createTenant();
    await create(tenant.api, { analyzer_id: 'b_company', instruction: 'x' }).expect(201);
    const res = await tenant.api.patch('/api/v1/contact-analyzers/b_company').send({ analyzer_id: 'b_city' }).expect(422);
    expect(res.body.errors).toEqual({ analyzer_id: ['cannot be changed'] });
    await tenant.api.get('/api/v1/contact-analyzers/b_city').expect(404, NOT_FOUND);
  });

  it('deletes; then the id is unknown (404) and free again', async () => {
    const tenant = await kit.createTenant();
    await create(tenant.api, { analyzer_id: 'b_company', instruction: 'x' }).expect(201);
    await tenant.api.delete('/api/v1/contact-analyzers/b_company').expect(200, { success: true, message: 'Contact analyzer deleted', data: { deleted: true } });
    await tenant.api.get('/api/v1/contact-analyzers/b_company').expect(404, NOT_FOUND);
    await tenant.api.patch('/api/v1/contact-analyzers/b_company').send({ enabled: false }).expect(404, NOT_FOUND);
    await tenant.api.delete('/api/v1/contact-analyzers/b_company').expect(404, NOT_FOUND);
    await create(tenant.api, { analyzer_id: 'b_company', instruction: 'again' }).expect(201);
  });

  it('an unknown id is a 404 with the resource’s message', async () => {
    await kit.api.get('/api/v1/contact-analyzers/b_nothing').expect(404, NOT_FOUND);
    await kit.api.get('/api/v1/contact-analyzers/whatever').expect(404, NOT_FOUND);
  });
});

describe('cross-tenant isolation', () => {
  it('every contact analyzer and approval route that takes an id answers 404 to another tenant’s ids', async () => {
    // The approval fixture writes into the database, so it is handed the kit.
    const withKit = (fixture: ResourceFixture) => (owner: TestTenant) => (fixture as (owner: TestTenant, kit: TestKernel) => ReturnType<ResourceFixture>)(owner, kit);
    const fixtures = {
      ...agentFixtures,
      ...conversationFixtures,
      'contacts.analyzer': analyzerFixtures['contacts.analyzer'],
      'contacts.approval': withKit(analyzerFixtures['contacts.approval']),
    };
    const results = (await sweepCrossTenant(kit, fixtures)).filter((r) => /\/contact-(analyzers|approvals)\b/.test(r.route));
    expect(results.filter((r) => !r.member).map((r) => r.route).sort()).toEqual([
      'DELETE /api/v1/contact-analyzers/:analyzer_id',
      'GET /api/v1/contact-analyzers/:analyzer_id',
      'GET /api/v1/contact-approvals/:uuid',
      'PATCH /api/v1/contact-analyzers/:analyzer_id',
      'POST /api/v1/contact-approvals/:uuid/approve',
      'POST /api/v1/contact-approvals/:uuid/reject',
    ]);
    expect(results.filter((r) => r.problem)).toEqual([]);
  });
});
