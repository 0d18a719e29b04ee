import { startTestKernel, type TestKernel, type TestTenant } from '../../../core/testing';
import { ISO, PLUGINS, statementsDuring } from './contacts-test-helpers';

let kit: TestKernel;

beforeAll(async () => {
  kit = await startTestKernel({ plugins: PLUGINS });
});
afterAll(() => kit?.stop());

const NOT_FOUND = { success: false, message: 'Contact field not found', data: [] };

const errorsOf = (res: { status: number; body: any }) => {
  expect(res.status).toBe(422);
  return res.body.errors as Record<string, string[]>;
};

async function field(tenant: TestTenant, body: Record<string, unknown>): Promise<any> {
  return (await tenant.api.post('/api/v1/contact-fields').send(body).expect(201)).body.data;
}

describe('POST /api/v1/contact-fields', () => {
  it('defines a field, `text` unless a type is given, and answers 201 {data}', async () => {
    const tenant = await kit.createTenant();
    const res = await tenant.api.post('/api/v1/contact-fields').send({ key: 'industry', name: ' Industry ' }).expect(201);
    expect(res.body).toEqual({
      data: { key: 'industry', name: 'Industry', data_type: 'text', description: '', created_at: expect.stringMatching(ISO), updated_at: expect.stringMatching(ISO) },
    });
    const typed = await field(tenant, { key: 'score_2', name: 'Score', data_type: 'number', description: 'Lead score' });
    expect([typed.data_type, typed.description]).toEqual(['number', 'Lead score']);
    expect((await tenant.api.get('/api/v1/contact-fields/industry').expect(200)).body).toEqual(res.body);
  });

  it('refuses keys off the pattern, keys of built-in members, unknown types and empty names with 422', async () => {
    for (const key of ['Industry', '1st', '_x', 'with-dash', 'a'.repeat(65), '']) {
      expect(Object.keys(errorsOf(await kit.api.post('/api/v1/contact-fields').send({ key, name: 'x' })))).toEqual(['key']);
    }
    for (const key of ['email', 'phone_number', 'custom_fields', 'opted_out', 'pipeline_stage', 'uuid']) {
      const res = await kit.api.post('/api/v1/contact-fields').send({ key, name: 'x' });
      expect(errorsOf(res)).toEqual({ key: ['is a built-in member of a contact, not a custom field key'] });
    }
    expect(Object.keys(errorsOf(await kit.api.post('/api/v1/contact-fields').send({ key: 'ok', name: 'x', data_type: 'money' })))).toEqual(['data_type']);
    expect(Object.keys(errorsOf(await kit.api.post('/api/v1/contact-fields').send({ key: 'ok', name: '  ' })))).toEqual(['name']);
  });

  it('a key the tenant already has is a 409; another tenant may have it', async () => {
    const tenant = await kit.createTenant();
    await field(tenant, { key: 'industry', name: 'Industry' });
    const res = await tenant.api.post('/api/v1/contact-fields').send({ key: 'industry', name: 'Again', data_type: 'number' }).expect(409);
    expect(res.body).toEqual({ success: false, message: 'A contact field with key "industry" already exists', data: [] });
    await field(await kit.createTenant(), { key: 'industry', name: 'Industry' });
  });
});

describe('GET /api/v1/contact-fields', () => {
  it('lists the fields by key, paginated', async () => {
    const tenant = await kit.createTenant();
    for (const key of ['zeta', 'alpha', 'mid']) await field(tenant, { key, name: key });
    const res = await tenant.api.get('/api/v1/contact-fields?per_page=2').expect(200);
    expect(res.body.data.items.map((f: any) => f.key)).toEqual(['alpha', 'mid']);
    expect(res.body.data.pagination).toEqual({ current_page: 1, per_page: 2, total: 3, last_page: 2, from: 1, to: 2, has_more: true });
    expect((await tenant.api.get('/api/v1/contact-fields?per_page=2&page=2').expect(200)).body.data.items.map((f: any) => f.key)).toEqual(['zeta']);
  });
});

describe('GET, PATCH, DELETE /api/v1/contact-fields/{key}', () => {
  it('an unknown key is a 404 "Contact field not found"', async () => {
    expect((await kit.api.get('/api/v1/contact-fields/nothing_here').expect(404)).body).toEqual(NOT_FOUND);
    expect((await kit.api.patch('/api/v1/contact-fields/nothing_here').send({ name: 'x' }).expect(404)).body).toEqual(NOT_FOUND);
    expect((await kit.api.delete('/api/v1/contact-fields/nothing_here').expect(404)).body).toEqual(NOT_FOUND);
  });

  it('PATCH renames and redescribes; key and data_type may be sent back unchanged', async () => {
    const tenant = await kit.createTenant();
    const before = await field(tenant, { key: 'industry', name: 'Industry', data_type: 'text' });
    const res = await tenant.api.patch('/api/v1/contact-fields/industry').send({ ...before, name: 'Sector', description: 'Their sector' }).expect(200);
    expect(res.body.data).toEqual({ ...before, name: 'Sector', description: 'Their sector', updated_at: expect.stringMatching(ISO) });
  });

  it('PATCH refuses another key or data_type with 422 saying it is immutable, and changes nothing', async () => {
    const tenant = await kit.createTenant();
    await field(tenant, { key: 'industry', name: 'Industry' });
    const res = await tenant.api.patch('/api/v1/contact-fields/industry').send({ key: 'sector', data_type: 'number', name: 'Changed' });
    expect(errorsOf(res)).toEqual({
      key: ['is immutable: a field keeps its key (define a new field instead)'],
      data_type: ['is immutable: a field keeps its type (define a new field instead)'],
    });
    const after = (await tenant.api.get('/api/v1/contact-fields/industry').expect(200)).body.data;
    expect([after.key, after.data_type, after.name]).toEqual(['industry', 'text', 'Industry']);
  });

  it('DELETE removes the definition and its key from every contact’s custom_fields, in one statement, in this tenant only', async () => {
    const tenant = await kit.createTenant();
    const other = await kit.createTenant();
    for (const owner of [tenant, other]) {
      await field(owner, { key: 'industry', name: 'Industry' });
      await field(owner, { key: 'score', name: 'Score', data_type: 'number' });
    }
    const contacts: string[] = [];
    for (const [email, custom_fields] of [
      ['a@example.com', { industry: 'Retail', score: 1 }],
      ['b@example.com', { industry: 'Food' }],
      ['c@example.com', { score: 3 }],
    ] as const) {
      contacts.push((await tenant.api.post('/api/v1/contacts').send({ email, custom_fields }).expect(201)).body.data.uuid);
    }
    const outsider = (await other.api.post('/api/v1/contacts').send({ email: 'a@example.com', custom_fields: { industry: 'Retail' } }).expect(201)).body.data.uuid;

    let res: any;
    const statements = await statementsDuring(kit, async () => {
      res = await tenant.api.delete('/api/v1/contact-fields/industry').expect(200);
    });
    expect(res.body).toEqual({ success: true, message: 'Contact field deleted', data: { deleted: true } });
    const writes = statements.filter((sql) => /\b(delete|update|insert)\b/i.test(sql) && /contact/.test(sql));
    expect(writes).toHaveLength(1);
    expect(writes[0]).toMatch(/delete from contact_fields.*update contacts/is);

    const customFields = await Promise.all(contacts.map(async (uuid) => (await tenant.api.get(`/api/v1/contacts/${uuid}`).expect(200)).body.data.custom_fields));
    expect(customFields).toEqual([{ score: 1 }, {}, { score: 3 }]);
    await tenant.api.get('/api/v1/contact-fields/industry').expect(404);
    expect((await other.api.get(`/api/v1/contacts/${outsider}`).expect(200)).body.data.custom_fields).toEqual({ industry: 'Retail' });
    await other.api.get('/api/v1/contact-fields/industry').expect(200);
    // The key is free to define again, with another type.
    await field(tenant, { key: 'industry', name: 'Industry code', data_type: 'number' });
  });
});
