import { startTestKernel, type TestKernel, type TestTenant } from '../../../core/testing';
import { sweepCrossTenant } from '../../../core/testing/cross-tenant-sweep';
import { fixtures as agentFixtures } from '../../../plugins/agents/testing';
import { fixtures as contactFixtures } from '../../../plugins/contacts/testing';
import { ISO, PLUGINS, UUID, listContacts } from './contacts-test-helpers';

let kit: TestKernel;

beforeAll(async () => {
  // National numbers are read as Spanish ones.
  kit = await startTestKernel({ plugins: PLUGINS, config: { contacts: { defaultCountry: 'ES' } } });
});
afterAll(() => kit?.stop());

const NOT_FOUND = { success: false, message: 'Contact not found', data: [] };
const MISSING = '0190d5c2-0000-7000-8000-000000000001';

async function create(tenant: TestTenant, body: Record<string, unknown>): Promise<any> {
  const res = await tenant.api.post('/api/v1/contacts').send(body);
  if (res.status !== 201) throw new Error(`create answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body.data;
}

const errorsOf = (res: { status: number; body: any }) => {
  expect(res.status).toBe(422);
  return res.body.errors as Record<string, string[]>;
};

describe('POST /api/v1/contacts', () => {
  it('creates a contact with normalised members and answers 201 {data}', async () => {
    const tenant = await kit.createTenant();
    const res = await tenant.api
      .post('/api/v1/contacts')
      .send({
        uuid: MISSING, // read-only: ignored
        created_at: '2000-01-01T00:00:00.000Z',
        name: ' Ana ',
        surname: 'García',
        phone_number: '+34 612 345 678',
        email: ' Ana.Garcia@Example.COM ',
        timezone: 'europe/madrid',
        country_code: 'es',
        primary_language: 'es',
        company: 'Acme',
        city: 'Madrid',
        lead_source: 'website',
        pipeline_stage: 'lead',
      })
      .expect(201);
    const contact = res.body.data;
    expect(Object.keys(res.body)).toEqual(['data']);
    expect(contact).toEqual({
      uuid: expect.stringMatching(UUID),
      name: 'Ana',
      surname: 'García',
      phone_number: '+34612345678',
      email: 'ana.garcia@example.com',
      timezone: 'Europe/Madrid',
      country_code: 'ES',
      primary_language: 'es',
      company: 'Acme',
      city: 'Madrid',
      lead_source: 'website',
      pipeline_stage: 'lead',
      custom_fields: {},
      opted_out: false,
      created_at: expect.stringMatching(ISO),
      updated_at: expect.stringMatching(ISO),
    });
    expect(contact.uuid).not.toBe(MISSING);
    expect(contact.created_at).not.toBe('2000-01-01T00:00:00.000Z');
    expect((await tenant.api.get(`/api/v1/contacts/${contact.uuid}`).expect(200)).body).toEqual({ data: contact });
  });

  it('needs a phone number or an email (listings and tasks find contacts by them); either alone is enough', async () => {
    const tenant = await kit.createTenant();
    const res = await tenant.api.post('/api/v1/contacts').send({ name: 'Nobody', email: '  ' });
    expect(Object.keys(errorsOf(res))).toEqual(['phone_number']);
    expect(res.body.errors.phone_number[0]).toMatch(/no email/);
    expect((await create(tenant, { email: 'only@example.com' })).phone_number).toBeNull();
    expect((await create(tenant, { phone_number: '+34612000001' })).email).toBeNull();
  });

  it('refuses unknown members and values of the wrong JSON type with 422', async () => {
    const res = await kit.api.post('/api/v1/contacts').send({ email: 'x@example.com', nickname: 'x', opted_out: 'yes', name: 5 });
    expect(Object.keys(errorsOf(res)).sort()).toEqual(expect.arrayContaining(['name', 'opted_out']));
    expect(JSON.stringify(res.body)).toContain('nickname');
  });
});

describe('phone numbers, emails, time zones and countries', () => {
  it('stores phone numbers as E.164: international ones as written, national ones in the default country', async () => {
    const tenant = await kit.createTenant();
    const cases: Array<[string, string]> = [
      ['+34 612 345 678', '+34612345678'],
      ['612 34 56 79', '+34612345679'], // national: read as Spanish (contacts.defaultCountry = ES)
      ['0034 612-345-680', '+34612345680'], // Spain's international prefix
      ['+44 20 7946 0958', '+442079460958'], // the default country does not touch an international number
      ['+1 (415) 555-0123', '+14155550123'],
    ];
    for (const [written, stored] of cases) expect((await create(tenant, { phone_number: written })).phone_number).toBe(stored);
  });

  it('refuses invalid phone numbers with 422 at phone_number', async () => {
    for (const written of ['+34 123', '12', 'call me', '+999 1234 5678', '612 345 678 ext. 2']) {
      const res = await kit.api.post('/api/v1/contacts').send({ phone_number: written });
      expect(errorsOf(res)).toEqual({ phone_number: ['is not a valid phone number'] });
    }
  });

  it('without a default country, a number with no country code is refused, saying so', async () => {
    const bare = await startTestKernel({ plugins: PLUGINS });
    try {
      const res = await bare.api.post('/api/v1/contacts').send({ phone_number: '612 345 678' });
      expect(errorsOf(res).phone_number[0]).toMatch(/has no country code.*CONTACTS_DEFAULT_COUNTRY/);
      const ok = await bare.api.post('/api/v1/contacts').send({ phone_number: '+34 612 345 678' }).expect(201);
      expect(ok.body.data.phone_number).toBe('+34612345678');
    } finally {
      await bare.stop();
    }
  });

  it('lower-cases emails and refuses malformed ones', async () => {
    const tenant = await kit.createTenant();
    expect((await create(tenant, { email: 'MiXeD@Example.Org' })).email).toBe('mixed@example.org');
    for (const email of ['not-an-email', 'a@b', 'a b@example.com', '@example.com']) {
      expect(errorsOf(await tenant.api.post('/api/v1/contacts').send({ email }))).toEqual({ email: ['is not a valid email address'] });
    }
  });

  it('takes IANA time zones only, and ISO 3166 alpha-2 countries upper-cased', async () => {
    const tenant = await kit.createTenant();
    const contact = await create(tenant, { email: 'tz@example.com', timezone: 'America/New_York', country_code: 'us' });
    expect([contact.timezone, contact.country_code]).toEqual(['America/New_York', 'US']);
    for (const timezone of ['Mars/Olympus', '+01:00', 'GMT+1']) {
      expect(Object.keys(errorsOf(await tenant.api.post('/api/v1/contacts').send({ email: 'x@example.com', timezone })))).toEqual(['timezone']);
    }
    for (const country_code of ['XX', 'E1']) {
      expect(Object.keys(errorsOf(await tenant.api.post('/api/v1/contacts').send({ email: 'x@example.com', country_code })))).toEqual(['country_code']);
    }
  });

  it('reports every bad member at once', async () => {
    const res = await kit.api.post('/api/v1/contacts').send({ phone_number: '+34 1', email: 'nope', timezone: 'Nowhere/City', country_code: 'ZZ' });
    expect(Object.keys(errorsOf(res)).sort()).toEqual(['country_code', 'email', 'phone_number', 'timezone']);
  });
});

describe('phone and email are unique per tenant', () => {
  let tenant: TestTenant;
  let ana: any;
  let ben: any;
  beforeAll(async () => {
    tenant = await kit.createTenant();
    ana = await create(tenant, { name: 'Ana', phone_number: '+34612345678', email: 'ana@example.com' });
    ben = await create(tenant, { name: 'Ben', phone_number: '+34699000111', email: 'ben@example.com' });
  });

  it('a duplicate phone number on create is a 409 naming the field and the existing contact', async () => {
    const res = await tenant.api.post('/api/v1/contacts').send({ phone_number: '612 345 678' }).expect(409);
    expect(res.body).toEqual({ success: false, message: `A contact with this phone_number already exists: ${ana.uuid}`, data: [] });
  });

  it('a duplicate email on create (in any letter case) is a 409 naming the existing contact', async () => {
    const res = await tenant.api.post('/api/v1/contacts').send({ email: 'ANA@example.com' }).expect(409);
    expect(res.body.message).toBe(`A contact with this email already exists: ${ana.uuid}`);
  });

  it('a PATCH taking another contact’s phone number or email is a 409, and changes nothing', async () => {
    const phone = await tenant.api.patch(`/api/v1/contacts/${ben.uuid}`).send({ phone_number: '+34 612 345 678', name: 'Changed' }).expect(409);
    expect(phone.body.message).toBe(`A contact with this phone_number already exists: ${ana.uuid}`);
    const email = await tenant.api.patch(`/api/v1/contacts/${ben.uuid}`).send({ email: 'Ana@Example.com' }).expect(409);
    expect(email.body.message).toBe(`A contact with this email already exists: ${ana.uuid}`);
    const after = (await tenant.api.get(`/api/v1/contacts/${ben.uuid}`).expect(200)).body.data;
    expect([after.name, after.phone_number, after.email]).toEqual(['Ben', '+34699000111', 'ben@example.com']);
  });

  it('a PATCH that sends a contact’s own phone number and email back is not a duplicate', async () => {
    const res = await tenant.api.patch(`/api/v1/contacts/${ana.uuid}`).send({ phone_number: '+34 612 34 56 78', email: 'ANA@example.com', city: 'Sevilla' }).expect(200);
    expect(res.body.data.city).toBe('Sevilla');
  });

  it('another tenant may have the same phone number and email', async () => {
    const other = await kit.createTenant();
    await create(other, { phone_number: '+34612345678', email: 'ana@example.com' });
  });

  it('concurrent creates of one phone number: one 201, the others 409, never a 500', async () => {
    const fresh = await kit.createTenant();
    const results = await Promise.all(Array.from({ length: 6 }, () => fresh.api.post('/api/v1/contacts').send({ phone_number: '+34 655 000 111' })));
    const statuses = results.map((res) => res.status).sort();
    expect(statuses).toEqual([201, 409, 409, 409, 409, 409]);
    expect(await listContacts(fresh)).toHaveLength(1);
  });
});

describe('GET, PATCH, DELETE /api/v1/contacts/{uuid}', () => {
  it('answers 404 "Contact not found" for an unknown contact', async () => {
    expect((await kit.api.get(`/api/v1/contacts/${MISSING}`).expect(404)).body).toEqual(NOT_FOUND);
    expect((await kit.api.patch(`/api/v1/contacts/${MISSING}`).send({ name: 'x' }).expect(404)).body).toEqual(NOT_FOUND);
    expect((await kit.api.delete(`/api/v1/contacts/${MISSING}`).expect(404)).body).toEqual(NOT_FOUND);
    expect(Object.keys(errorsOf(await kit.api.get('/api/v1/contacts/not-a-uuid')))).toEqual(['uuid']);
  });

  it('PATCH changes the members sent, clears those sent as null, keeps the rest, and can be sent back what was read', async () => {
    const tenant = await kit.createTenant();
    const contact = await create(tenant, { name: 'Ana', surname: 'García', email: 'ana@example.com', phone_number: '+34612345678', company: 'Acme' });
    const res = await tenant.api.patch(`/api/v1/contacts/${contact.uuid}`).send({ ...contact, surname: null, company: 'Acme Iberia', opted_out: true }).expect(200);
    expect(res.body.data).toEqual({ ...contact, surname: null, company: 'Acme Iberia', opted_out: true, updated_at: expect.stringMatching(ISO) });
    expect(res.body.data.updated_at >= contact.updated_at).toBe(true);
  });

  it('PATCH may drop the phone number while an email remains, but not both', async () => {
    const tenant = await kit.createTenant();
    const contact = await create(tenant, { email: 'ana@example.com', phone_number: '+34612345678' });
    expect((await tenant.api.patch(`/api/v1/contacts/${contact.uuid}`).send({ phone_number: null }).expect(200)).body.data.phone_number).toBeNull();
    const res = await tenant.api.patch(`/api/v1/contacts/${contact.uuid}`).send({ email: '' });
    expect(Object.keys(errorsOf(res))).toEqual(['phone_number']);
    expect((await tenant.api.get(`/api/v1/contacts/${contact.uuid}`).expect(200)).body.data.email).toBe('ana@example.com');
  });

  it('DELETE answers the deleted envelope; the contact is gone', async () => {
    const tenant = await kit.createTenant();
    const contact = await create(tenant, { email: 'gone@example.com' });
    const res = await tenant.api.delete(`/api/v1/contacts/${contact.uuid}`).expect(200);
    expect(res.body).toEqual({ success: true, message: 'Contact deleted', data: { deleted: true } });
    await tenant.api.get(`/api/v1/contacts/${contact.uuid}`).expect(404);
    // Its email is free again.
    await create(tenant, { email: 'gone@example.com' });
  });
});

describe('custom_fields', () => {
  let tenant: TestTenant;
  beforeAll(async () => {
    tenant = await kit.createTenant();
    for (const [key, data_type] of [
      ['industry', 'text'],
      ['score', 'number'],
      ['birthday', 'date'],
      ['vip', 'boolean'],
      ['profile', 'json'],
      ['homepage', 'url'],
    ]) {
      await tenant.api.post('/api/v1/contact-fields').send({ key, name: key, data_type }).expect(201);
    }
  });

  it('stores values of each type, normalising dates', async () => {
    const contact = await create(tenant, {
      email: 'typed@example.com',
      custom_fields: {
        industry: 'Retail',
        score: 4.5,
        birthday: '1990-02-28',
        vip: false,
        profile: { tags: ['a', 'b'], nested: { n: 1 } },
        homepage: 'https://example.com/ana',
      },
    });
    expect(contact.custom_fields).toEqual({
      industry: 'Retail',
      score: 4.5,
      birthday: '1990-02-28',
      vip: false,
      profile: { tags: ['a', 'b'], nested: { n: 1 } },
      homepage: 'https://example.com/ana',
    });
    const patched = await tenant.api.patch(`/api/v1/contacts/${contact.uuid}`).send({ custom_fields: { birthday: '2025-03-01T10:00:00+02:00' } }).expect(200);
    expect(patched.body.data.custom_fields.birthday).toBe('2025-03-01T08:00:00.000Z');
  });

  it('refuses a value of the wrong type with 422 at custom_fields.<key>, each field checked', async () => {
    const res = await tenant.api.post('/api/v1/contacts').send({
      email: 'bad@example.com',
      custom_fields: { industry: 5, score: '4.5', birthday: '1990-02-30', vip: 'yes', homepage: 'ftp://example.com' },
    });
    expect(errorsOf(res)).toEqual({
      'custom_fields.industry': ['must be a string'],
      'custom_fields.score': ['must be a finite number'],
      'custom_fields.birthday': ['must be an ISO 8601 date (YYYY-MM-DD) or date-time'],
      'custom_fields.vip': ['must be true or false'],
      'custom_fields.homepage': ['must be an http or https URL'],
    });
  });

  it('refuses keys that are not defined contact fields', async () => {
    const res = await tenant.api.post('/api/v1/contacts').send({ email: 'bad@example.com', custom_fields: { shoe_size: 42 } });
    expect(Object.keys(errorsOf(res))).toEqual(['custom_fields.shoe_size']);
    expect(res.body.errors['custom_fields.shoe_size'][0]).toMatch(/is not a contact field/);
  });

  it('PATCH merges keys: sent keys replace their value, null removes one, others stay', async () => {
    const contact = await create(tenant, { email: 'merge@example.com', custom_fields: { industry: 'Retail', score: 1, vip: true } });
    const res = await tenant.api.patch(`/api/v1/contacts/${contact.uuid}`).send({ custom_fields: { score: 2, vip: null, homepage: 'http://a.example' } }).expect(200);
    expect(res.body.data.custom_fields).toEqual({ industry: 'Retail', score: 2, homepage: 'http://a.example' });
  });
});

describe('GET /api/v1/contacts: search, filters, pagination', () => {
  let tenant: TestTenant;
  const made: Record<string, any> = {};
  beforeAll(async () => {
    tenant = await kit.createTenant();
    const rows: Array<[string, Record<string, unknown>]> = [
      ['ana', { name: 'Ana', surname: 'García', email: 'ana@example.com', phone_number: '+34612345678', company: 'Acme', lead_source: 'website', country_code: 'ES' }],
      ['ben', { name: 'Ben', surname: 'Smith', email: 'ben@corp.test', phone_number: '+442079460958', company: 'Corp 100% Real', lead_source: 'fair', country_code: 'GB', pipeline_stage: 'qualified' }],
      ['cleo', { name: 'Cleo', surname: 'Garcíaz', email: 'cleo_x@example.com', company: 'Acme Iberia', lead_source: 'website', opted_out: true, country_code: 'ES' }],
      ['dan', { name: 'Dan', email: 'danx@example.com', company: 'Corp 100 Real', pipeline_stage: 'qualified' }],
    ];
    for (const [key, body] of rows) made[key] = await create(tenant, body);
  });

  const names = async (query: string) => (await listContacts(tenant, query)).map((contact) => contact.name);

  it('lists newest first, in the list envelope', async () => {
    const res = await tenant.api.get('/api/v1/contacts').expect(200);
    expect(res.body.success).toBe(true);
    expect(res.body.data.items.map((c: any) => c.name)).toEqual(['Dan', 'Cleo', 'Ben', 'Ana']);
    expect(res.body.data.pagination).toEqual({ current_page: 1, per_page: 25, total: 4, last_page: 1, from: 1, to: 4, has_more: false });
  });

  it('paginates', async () => {
    const second = await tenant.api.get('/api/v1/contacts?per_page=3&page=2').expect(200);
    expect(second.body.data.items.map((c: any) => c.name)).toEqual(['Ana']);
    expect(second.body.data.pagination).toEqual({ current_page: 2, per_page: 3, total: 4, last_page: 2, from: 4, to: 4, has_more: false });
    const first = await tenant.api.get('/api/v1/contacts?per_page=3').expect(200);
    expect(first.body.data.pagination.has_more).toBe(true);
    expect(Object.keys(errorsOf(await tenant.api.get('/api/v1/contacts?per_page=101')))).toEqual(['per_page']);
  });

  it('q searches name, surname, email, phone number and company, case-insensitively; every word must match', async () => {
    expect(await names('q=ana')).toEqual(['Ana']);
    expect(await names('q=GARCÍA')).toEqual(['Cleo', 'Ana']);
    expect(await names('q=acme')).toEqual(['Cleo', 'Ana']);
    expect(await names('q=corp.test')).toEqual(['Ben']);
    expect(await names(`q=${encodeURIComponent('ana garcía')}`)).toEqual(['Ana']);
    expect(await names(`q=${encodeURIComponent('612 345')}`)).toEqual(['Ana']);
    expect(await names(`q=${encodeURIComponent('+44 20-7946')}`)).toEqual(['Ben']);
    expect(await names('q=nobody')).toEqual([]);
    expect(await names(`q=${encodeURIComponent('   ')}`)).toEqual(['Dan', 'Cleo', 'Ben', 'Ana']);
  });

  it('q matches % and _ literally', async () => {
    expect(await names(`q=${encodeURIComponent('100%')}`)).toEqual(['Ben']);
    expect(await names(`q=${encodeURIComponent('o_x')}`)).toEqual(['Cleo']);
    expect(await names(`q=${encodeURIComponent('%')}`)).toEqual(['Ben']);
  });

  it('filters by opted_out, lead_source, country_code (any case) and pipeline_stage, combined with q', async () => {
    expect(await names('opted_out=true')).toEqual(['Cleo']);
    expect(await names('opted_out=false')).toEqual(['Dan', 'Ben', 'Ana']);
    expect(await names('lead_source=website')).toEqual(['Cleo', 'Ana']);
    expect(await names('country_code=es')).toEqual(['Cleo', 'Ana']);
    expect(await names('pipeline_stage=qualified')).toEqual(['Dan', 'Ben']);
    expect(await names('lead_source=website&opted_out=false')).toEqual(['Ana']);
    expect(await names('q=corp&pipeline_stage=qualified')).toEqual(['Dan', 'Ben']);
    expect(await names('country_code=zz')).toEqual([]);
  });

  it('another tenant’s contacts never show', async () => {
    const other = await kit.createTenant();
    await create(other, { name: 'Ana', email: 'ana@example.com' });
    expect(await names('q=ana')).toEqual(['Ana']);
    expect((await listContacts(other)).map((c) => c.uuid)).not.toContain(made.ana.uuid);
  });
});

describe('cross-tenant isolation', () => {
  it('every contact, contact field and contact setting route that takes an id answers 404 to another tenant’s ids', async () => {
    const mine = /^\/api\/v1\/(contacts|contact-fields|contact-settings)(\/|$)/;
    const routes = kit.kernel.registry.list().filter((route) => mine.test(route.path));
    const results = await sweepCrossTenant(kit, { ...agentFixtures, ...contactFixtures }, { only: (route) => routes.includes(route) });
    expect(results.filter((result) => result.problem)).toEqual([]);
    expect(results.filter((result) => !result.member).map((result) => result.route).sort()).toEqual([
      'DELETE /api/v1/contact-fields/:key',
      'DELETE /api/v1/contact-settings/:key',
      'DELETE /api/v1/contacts/:uuid',
      'GET /api/v1/contact-fields/:key',
      'GET /api/v1/contact-settings/:key',
      'GET /api/v1/contacts/:uuid',
      'PATCH /api/v1/contact-fields/:key',
      'PATCH /api/v1/contacts/:uuid',
    ]);
    expect(results.filter((result) => result.problem)).toEqual([]);
  });
});

describe('the OpenAPI document', () => {
  it('describes the contact as a component with its members', async () => {
    const doc = (await kit.api.get('/api/v1/openapi.json').expect(200)).body;
    const contact = doc.components.schemas.Contact;
    expect(Object.keys(contact.properties)).toEqual([
      'uuid',
      'name',
      'surname',
      'phone_number',
      'email',
      'timezone',
      'country_code',
      'primary_language',
      'company',
      'city',
      'lead_source',
      'pipeline_stage',
      'custom_fields',
      'opted_out',
      'created_at',
      'updated_at',
    ]);
    expect(contact.properties.phone_number.description).toMatch(/E\.164/);
    expect(Object.keys(doc.paths['/api/v1/contacts'].post.responses)).toEqual(expect.arrayContaining(['201', '409', '422']));
    expect(Object.keys(doc.paths['/api/v1/contacts/{uuid}'].patch.responses)).toEqual(expect.arrayContaining(['200', '404', '409', '422']));
  });
});
