import { startTestKernel, type TestKernel, type TestTenant } from '../../../core/testing';
import type { ContactDirectory, ContactItem, UpsertOutcome } from '../../../plugins/contacts';
import { PLUGINS, UUID, directoryOf, inTenant, listContacts, statementsDuring } from './contacts-test-helpers';

let kit: TestKernel;
let directory: ContactDirectory;

beforeAll(async () => {
  kit = await startTestKernel({ plugins: PLUGINS, config: { contacts: { defaultCountry: 'ES' } } });
  directory = directoryOf(kit);
});
afterAll(() => kit?.stop());

const upsert = (tenant: TestTenant, items: ContactItem[]) => inTenant(kit, tenant, () => directory.upsertMany(items));

async function create(tenant: TestTenant, body: Record<string, unknown>): Promise<any> {
  return (await tenant.api.post('/api/v1/contacts').send(body).expect(201)).body.data;
}

const read = async (tenant: TestTenant, uuid: string) => (await tenant.api.get(`/api/v1/contacts/${uuid}`).expect(200)).body.data;

const uuidOf = (outcome: UpsertOutcome) => {
  if (outcome.status === 'failed') throw new Error(`item ${outcome.index} failed: ${JSON.stringify(outcome.errors)}`);
  return outcome.contact_uuid;
};

describe('upsertMany: matching', () => {
  it('an item matching nobody creates a contact, with normalised built-in members', async () => {
    const tenant = await kit.createTenant();
    const [outcome] = await upsert(tenant, [
      { name: 'Ana', surname: 'García', phone_number: '612 345 678', email: 'ANA@Example.com', timezone: 'europe/madrid', country_code: 'es', primary_language: 'es', company: 'Acme', city: 'Madrid', lead_source: 'fair' },
    ]);
    expect(outcome).toEqual({ index: 0, status: 'created', contact_uuid: expect.stringMatching(UUID) });
    expect(await read(tenant, uuidOf(outcome))).toEqual(
      expect.objectContaining({ name: 'Ana', phone_number: '+34612345678', email: 'ana@example.com', timezone: 'Europe/Madrid', country_code: 'ES', lead_source: 'fair', custom_fields: {}, opted_out: false }),
    );
  });

  it('a phone match is updated with the members given; the others stay', async () => {
    const tenant = await kit.createTenant();
    const ana = await create(tenant, { name: 'Ana', phone_number: '+34612345678', email: 'ana@example.com', company: 'Acme', pipeline_stage: 'lead' });
    const [outcome] = await upsert(tenant, [{ phone_number: '+34 612 34 56 78', company: 'Acme Iberia', city: 'Madrid' }]);
    expect(outcome).toEqual({ index: 0, status: 'updated', contact_uuid: ana.uuid });
    const after = await read(tenant, ana.uuid);
    expect(after).toEqual({ ...ana, company: 'Acme Iberia', city: 'Madrid', updated_at: expect.any(String) });
    expect(after.updated_at > ana.updated_at).toBe(true);
  });

  it('an email-only match is updated, taking the item’s phone number', async () => {
    const tenant = await kit.createTenant();
    const ana = await create(tenant, { name: 'Ana', phone_number: '+34612345678', email: 'ana@example.com' });
    const [outcome] = await upsert(tenant, [{ phone_number: '+34 699 111 222', email: 'Ana@example.com', name: 'Ana M.' }]);
    expect(outcome).toEqual({ index: 0, status: 'updated', contact_uuid: ana.uuid });
    expect(await read(tenant, ana.uuid)).toEqual(expect.objectContaining({ name: 'Ana M.', phone_number: '+34699111222', email: 'ana@example.com' }));
    expect(await listContacts(tenant)).toHaveLength(1);
  });

  it('an item whose phone and email both match one contact updates it', async () => {
    const tenant = await kit.createTenant();
    const ana = await create(tenant, { phone_number: '+34612345678', email: 'ana@example.com' });
    const [outcome] = await upsert(tenant, [{ phone_number: '+34612345678', email: 'ana@example.com', surname: 'López' }]);
    expect(outcome).toEqual({ index: 0, status: 'updated', contact_uuid: ana.uuid });
    expect((await read(tenant, ana.uuid)).surname).toBe('López');
  });

  it('phone beats email: a phone match takes a new email, and is matched even when the email is unknown', async () => {
    const tenant = await kit.createTenant();
    const ana = await create(tenant, { phone_number: '+34612345678', email: 'ana@example.com' });
    const [outcome] = await upsert(tenant, [{ phone_number: '+34612345678', email: 'ana.new@example.com' }]);
    expect(outcome).toEqual({ index: 0, status: 'updated', contact_uuid: ana.uuid });
    expect((await read(tenant, ana.uuid)).email).toBe('ana.new@example.com');
    expect(await listContacts(tenant)).toHaveLength(1);
  });

  it('phone beats email: when the phone matches one contact and the email another, the item fails naming both, and neither changes', async () => {
    const tenant = await kit.createTenant();
    const ana = await create(tenant, { name: 'Ana', phone_number: '+34612345678', email: 'ana@example.com' });
    const ben = await create(tenant, { name: 'Ben', phone_number: '+34699000111', email: 'ben@example.com' });
    const outcomes = await upsert(tenant, [
      { phone_number: '+34612345678', email: 'ben@example.com', name: 'Mixed' },
      { phone_number: '+34699000111', city: 'Bilbao' },
    ]);
    expect(outcomes[0]).toEqual({
      index: 0,
      status: 'failed',
      errors: { email: [`belongs to another contact (${ben.uuid}) than the one with this phone_number (${ana.uuid})`] },
    });
    expect(outcomes[1]).toEqual({ index: 1, status: 'updated', contact_uuid: ben.uuid });
    expect(await read(tenant, ana.uuid)).toEqual(ana);
    expect((await read(tenant, ben.uuid)).city).toBe('Bilbao');
  });

  it('null and empty members count as not given: an upsert never clears a value', async () => {
    const tenant = await kit.createTenant();
    const ana = await create(tenant, { name: 'Ana', company: 'Acme', email: 'ana@example.com', phone_number: '+34612345678' });
    const [outcome] = await upsert(tenant, [{ email: 'ana@example.com', phone_number: '', company: null, name: '  ', city: 'Madrid' }]);
    expect(outcome.status).toBe('updated');
    expect(await read(tenant, ana.uuid)).toEqual(expect.objectContaining({ name: 'Ana', company: 'Acme', phone_number: '+34612345678', city: 'Madrid' }));
  });

  it('items see the earlier items of their batch: a repeated phone number updates the contact created just before', async () => {
    const tenant = await kit.createTenant();
    const outcomes = await upsert(tenant, [
      { phone_number: '+34600000001', name: 'First' },
      { phone_number: '+34 600 000 001', email: 'first@example.com' },
      { email: 'FIRST@example.com', company: 'Acme' },
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['created', 'updated', 'updated']);
    expect(new Set(outcomes.map(uuidOf)).size).toBe(1);
    expect(await read(tenant, uuidOf(outcomes[0]))).toEqual(expect.objectContaining({ name: 'First', phone_number: '+34600000001', email: 'first@example.com', company: 'Acme' }));
  });

  for (const order of ['giver first', 'taker first'] as const) {
    it(`a batch may hand an email from one contact to another (${order}: unique checks run row by row, so the statement order must not matter)`, async () => {
      const tenant = await kit.createTenant();
      // Rows are written in uuid (creation) order: both orders are tried.
      const ben = order === 'taker first' ? await create(tenant, { phone_number: '+34600000002', email: 'ben@example.com' }) : undefined;
      const ana = await create(tenant, { phone_number: '+34600000001', email: 'shared@example.com' });
      const taker = ben ?? (await create(tenant, { phone_number: '+34600000002', email: 'ben@example.com' }));
      const outcomes = await upsert(tenant, [
        { phone_number: '+34600000001', email: 'ana@example.com' },
        { phone_number: '+34600000002', email: 'shared@example.com' },
      ]);
      expect(outcomes.map((o) => o.status)).toEqual(['updated', 'updated']);
      expect((await read(tenant, ana.uuid)).email).toBe('ana@example.com');
      expect((await read(tenant, taker.uuid)).email).toBe('shared@example.com');
    });
  }

  it('never matches another tenant’s contacts', async () => {
    const tenant = await kit.createTenant();
    const other = await kit.createTenant();
    const theirs = await create(other, { phone_number: '+34612345678', name: 'Theirs' });
    const [outcome] = await upsert(tenant, [{ phone_number: '+34612345678', name: 'Mine' }]);
    expect(outcome.status).toBe('created');
    expect(await read(other, theirs.uuid)).toEqual(theirs);
  });
});

describe('upsertMany: custom fields', () => {
  it('unknown members are custom fields: a new key gets a `text` definition, an existing one keeps its type', async () => {
    const tenant = await kit.createTenant();
    await tenant.api.post('/api/v1/contact-fields').send({ key: 'score', name: 'Score', data_type: 'number' }).expect(201);
    await tenant.api.post('/api/v1/contact-fields').send({ key: 'vip', name: 'VIP', data_type: 'boolean' }).expect(201);
    const [created, updated] = await upsert(tenant, [
      { email: 'a@example.com', industry: 'Retail', score: '42', vip: 'true', shoe_size: 41 },
      { email: 'a@example.com', score: 7, referral: 'Ben' },
    ]);
    expect(created.status).toBe('created');
    expect(updated).toEqual({ index: 1, status: 'updated', contact_uuid: uuidOf(created) });
    expect((await read(tenant, uuidOf(created))).custom_fields).toEqual({ industry: 'Retail', score: 7, vip: true, shoe_size: '41', referral: 'Ben' });
    const fields = (await tenant.api.get('/api/v1/contact-fields').expect(200)).body.data.items;
    expect(fields.map((f: any) => [f.key, f.name, f.data_type])).toEqual([
      ['industry', 'industry', 'text'],
      ['referral', 'referral', 'text'],
      ['score', 'Score', 'number'],
      ['shoe_size', 'shoe_size', 'text'],
      ['vip', 'VIP', 'boolean'],
    ]);
  });

  it('values are checked against their field’s type; custom fields merge into the contact’s', async () => {
    const tenant = await kit.createTenant();
    await tenant.api.post('/api/v1/contact-fields').send({ key: 'score', name: 'Score', data_type: 'number' }).expect(201);
    await tenant.api.post('/api/v1/contact-fields').send({ key: 'since', name: 'Since', data_type: 'date' }).expect(201);
    const ana = await create(tenant, { email: 'ana@example.com', custom_fields: { score: 1 } });
    const outcomes = await upsert(tenant, [
      { email: 'ana@example.com', score: 'many' },
      { email: 'ana@example.com', since: '2024-02-30' },
      { email: 'ana@example.com', since: '2024-02-29T10:00:00+01:00', tags: { not: 'text' } },
      { email: 'ana@example.com', since: '2024-02-29' },
    ]);
    expect(outcomes.slice(0, 3)).toEqual([
      { index: 0, status: 'failed', errors: { score: ['must be a finite number'] } },
      { index: 1, status: 'failed', errors: { since: ['must be an ISO 8601 date (YYYY-MM-DD) or date-time'] } },
      { index: 2, status: 'failed', errors: { tags: ['must be a string'] } },
    ]);
    expect(outcomes[3]).toEqual({ index: 3, status: 'updated', contact_uuid: ana.uuid });
    expect((await read(tenant, ana.uuid)).custom_fields).toEqual({ score: 1, since: '2024-02-29' });
    // A key only failed items used is not defined.
    await tenant.api.get('/api/v1/contact-fields/tags').expect(404);
  });
});

describe('upsertMany: per-item failures', () => {
  it('reports each invalid item with its errors (paths relative to the item) and writes the valid ones', async () => {
    const tenant = await kit.createTenant();
    const outcomes = await upsert(tenant, [
      { phone_number: '+34600000001', name: 'Valid one' },
      { phone_number: '+34 1', email: 'nope' },
      { name: 'No identity' },
      { email: 'x@example.com', 'First Name': 'X' },
      { email: 'y@example.com', opted_out: true, pipeline_stage: 'won' },
      { email: 'z@example.com', name: 42, timezone: 'Nowhere/City', country_code: 'XX' },
      { email: 'valid2@example.com' },
      JSON.parse('{"email": "proto@example.com", "__proto__": "x"}'),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['created', 'failed', 'failed', 'failed', 'failed', 'failed', 'created', 'failed']);
    const errors = (index: number) => (outcomes[index] as { errors: Record<string, string[]> }).errors;
    expect(errors(1)).toEqual({ phone_number: ['is not a valid phone number'], email: ['is not a valid email address'] });
    expect(Object.keys(errors(2))).toEqual(['phone_number']);
    expect(errors(3)['First Name'][0]).toMatch(/names a custom field, whose key must be/);
    expect(Object.keys(errors(4)).sort()).toEqual(['opted_out', 'pipeline_stage']);
    expect(errors(5)).toEqual({
      name: ['must be a string'],
      timezone: ['is not an IANA time zone (e.g. Europe/Madrid)'],
      country_code: ['is not an ISO 3166-1 alpha-2 country code (e.g. ES)'],
    });
    expect(Object.keys(errors(7))).toEqual(['__proto__']);
    expect((await listContacts(tenant)).map((c) => c.name ?? c.email).sort()).toEqual(['Valid one', 'valid2@example.com']);
  });

  it('without a default country, national numbers fail their item, saying why', async () => {
    const bare = await startTestKernel({ plugins: PLUGINS });
    try {
      const outcomes = await inTenant(bare, bare, () => directoryOf(bare).upsertMany([{ phone_number: '612 345 678' }, { phone_number: '+34612345678' }]));
      expect(outcomes[0]).toEqual({ index: 0, status: 'failed', errors: { phone_number: [expect.stringMatching(/^has no country code/)] } });
      expect(outcomes[1].status).toBe('created');
    } finally {
      await bare.stop();
    }
  });
});

describe('upsertMany: cost', () => {
  const items = (count: number, offset: number, extra: (i: number) => ContactItem = () => ({})) =>
    Array.from({ length: count }, (_, i) => ({
      name: `Person ${offset + i}`,
      phone_number: `+346${String(100_000_000 + offset + i).slice(1)}`,
      email: `p${offset + i}@example.com`,
      lead_source: 'bench',
      ...extra(i),
    }));

  it('1,000 items cost the same fixed number of statements as 10 (reads and multi-row writes, none per item)', async () => {
    const tenant = await kit.createTenant();
    // Half of each batch already exists (updates), half is new (inserts), and a custom field is new.
    await upsert(tenant, items(500, 0));
    await upsert(tenant, items(5, 10_000));
    let outcomes: UpsertOutcome[] = [];
    const big = await statementsDuring(kit, async () => {
      outcomes = await upsert(tenant, [...items(500, 0, (i) => ({ tier: `t${i % 3}` })), ...items(500, 1_000, (i) => ({ tier: `t${i % 3}` }))]);
    });
    expect(outcomes.filter((o) => o.status === 'updated')).toHaveLength(500);
    expect(outcomes.filter((o) => o.status === 'created')).toHaveLength(500);
    const small = await statementsDuring(kit, () => upsert(tenant, [...items(5, 10_000, () => ({ grade: 'a' })), ...items(5, 20_000, () => ({ grade: 'b' }))]));
    const sql = (statements: string[]) => statements.filter((s) => /contact/.test(s));
    expect(sql(big).length).toBeGreaterThan(0);
    expect(sql(big).length).toBe(sql(small).length);
    // Fields read, contacts read, fields insert, contacts update, contacts insert.
    expect(sql(big)).toHaveLength(5);
    const all = await tenant.api.get('/api/v1/contacts?per_page=1').expect(200);
    expect(all.body.data.pagination.total).toBe(1_010);
    const sample = (await tenant.api.get(`/api/v1/contacts?q=p1499%40example.com`).expect(200)).body.data.items[0];
    expect(sample.custom_fields).toEqual({ tier: 't1' }); // 1499 is the second half's item 499
  });
});

describe('upsertMany: concurrency', () => {
  it('an item whose new phone number a concurrent batch took meanwhile fails (send it again), and never errors the call', async () => {
    const tenant = await kit.createTenant();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let wrote!: () => void;
    const written = new Promise<void>((resolve) => (wrote = resolve));
    const first = inTenant(kit, tenant, async () => {
      const outcomes = await directory.upsertMany([{ phone_number: '+34600000009', name: 'First' }]);
      wrote();
      await gate; // holds the transaction open: the row is written, not committed
      return outcomes;
    });
    // The second batch starts only once the first's row is written (a fixed wait let a busy machine start it first).
    await Promise.race([written, first]);
    const second = upsert(tenant, [{ phone_number: '+34600000009', name: 'Second' }, { phone_number: '+34600000010', name: 'Other' }]);
    // Wait until the second batch's insert waits on the first's uncommitted row, then let the first commit.
    const deadline = Date.now() + 10_000;
    const probe = kit.kernel.orm.em.fork().getConnection();
    while (Number((await probe.execute(`select count(*)::int as n from pg_stat_activity where wait_event_type = 'Lock' and query like 'insert into contacts%'`))[0].n) === 0) {
      if (Date.now() > deadline) throw new Error('the second batch never waited');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    release();
    expect((await first)[0].status).toBe('created');
    const outcomes = await second;
    expect(outcomes[0]).toEqual({ index: 0, status: 'failed', errors: { phone_number: [expect.stringMatching(/concurrent request/)] } });
    expect(outcomes[1].status).toBe('created');
    expect((await listContacts(tenant)).map((c) => c.name).sort()).toEqual(['First', 'Other']);
  });
});

describe('findOrCreate', () => {
  it('finds the contact with the phone number (unchanged), else with the email', async () => {
    const tenant = await kit.createTenant();
    const ana = await create(tenant, { name: 'Ana', phone_number: '+34612345678', email: 'ana@example.com' });
    const byPhone = await inTenant(kit, tenant, () => directory.findOrCreate({ phone_number: '612 345 678', name: 'Other name' }, 'contact'));
    expect(byPhone).toEqual({ contact: ana, created: false });
    const byEmail = await inTenant(kit, tenant, () => directory.findOrCreate({ phone_number: '+34699999999', email: 'ANA@example.com' }, 'contact'));
    expect(byEmail).toEqual({ contact: ana, created: false });
    expect(await read(tenant, ana.uuid)).toEqual(ana);
  });

  it('creates the contact when none matches, custom fields included', async () => {
    const tenant = await kit.createTenant();
    const result = await inTenant(kit, tenant, () => directory.findOrCreate({ phone_number: '+34 612 000 111', name: 'New', source_campaign: 'spring' }, 'contact'));
    expect(result.created).toBe(true);
    expect(result.contact).toEqual(expect.objectContaining({ uuid: expect.stringMatching(UUID), name: 'New', phone_number: '+34612000111', custom_fields: { source_campaign: 'spring' } }));
    expect(await read(tenant, result.contact.uuid)).toEqual(result.contact);
    await tenant.api.get('/api/v1/contact-fields/source_campaign').expect(200);
  });

  it('throws a 422 with paths under the prefix', async () => {
    const tenant = await kit.createTenant();
    const attempt = (item: ContactItem, prefix: string) => inTenant(kit, tenant, () => directory.findOrCreate(item, prefix)).then(() => undefined, (error) => error);
    const bad = await attempt({ phone_number: 'nope', email: 'also nope' }, 'contact');
    expect(bad.status).toBe(422);
    expect(bad.errors).toEqual({ 'contact.phone_number': ['is not a valid phone number'], 'contact.email': ['is not a valid email address'] });
    expect(Object.keys((await attempt({ name: 'No identity' }, 'contact')).errors)).toEqual(['contact.phone_number']);
    expect(Object.keys((await attempt({ email: 'a@example.com', 'Bad Key': 1 }, '')).errors)).toEqual(['Bad Key']);
    expect(await listContacts(tenant)).toEqual([]);
  });
});

describe('get', () => {
  it('returns the tenant’s contacts among the uuids, in one statement; unknown, malformed and other tenants’ ones are absent', async () => {
    const tenant = await kit.createTenant();
    const other = await kit.createTenant();
    const ana = await create(tenant, { email: 'ana@example.com' });
    const ben = await create(tenant, { email: 'ben@example.com' });
    const theirs = await create(other, { email: 'x@example.com' });
    let found!: Map<string, unknown>;
    const statements = await statementsDuring(kit, async () => {
      found = await inTenant(kit, tenant, () => directory.get([ana.uuid, ben.uuid, theirs.uuid, '0190d5c2-0000-7000-8000-000000000001', 'not-a-uuid', ana.uuid]));
    });
    expect(statements.filter((sql) => /from contacts/.test(sql))).toHaveLength(1);
    expect([...found.keys()].sort()).toEqual([ana.uuid, ben.uuid].sort());
    expect(found.get(ana.uuid)).toEqual(ana);
    expect(await inTenant(kit, tenant, () => directory.get([]))).toEqual(new Map());
  });
});
