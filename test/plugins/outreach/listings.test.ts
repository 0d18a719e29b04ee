import { runInContext } from '../../../core/context/request-context';
import type { TestKernel } from '../../../core/testing';
import { ListingContact } from '../../../plugins/outreach/entities';
import {
  activate,
  createCampaign,
  createClosedRule,
  createContacts,
  createPool,
  startOutreachKit,
  tasksOf,
  transition,
  type Json,
} from './outreach-test-kit';

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const LISTING_NOT_FOUND = { success: false, message: 'Listing not found', data: [] };

let kit: TestKernel;
beforeAll(async () => {
  kit = await startOutreachKit();
});
afterAll(() => kit?.stop());

type Api = TestKernel['api'];

const createListing = async (api: Api, body: Json = {}): Promise<Json> => (await api.post('/api/v1/listings').send({ name: 'Fair', ...body }).expect(201)).body.data;

async function upload(api: Api, listingUuid: string, contacts: Json[]): Promise<Json> {
  const res = await api.post(`/api/v1/listings/${listingUuid}/contacts`).send({ contacts });
  if (res.status !== 200) throw new Error(`upload -> ${res.status} ${JSON.stringify(res.body)}`);
  expect(res.body.success).toBe(true);
  expect(res.body.message).toBe('Success');
  return res.body.data;
}

const membersOf = async (api: Api, path: string): Promise<string[]> =>
  (await api.get(`${path}?per_page=100`).expect(200)).body.data.items.map((item: Json) => item.contact_uuid);

describe('listings: create, read, list, change, delete', () => {
  it('creates a listing with or without a pool, reads and lists it, and shows whether it runs', async () => {
    const campaign = await createCampaign(kit.api);
    const pool = await createPool(kit.api, campaign.uuid);
    const loose = await createListing(kit.api, { name: ' Badge scans ' });
    expect(loose).toEqual({
      uuid: expect.any(String),
      name: 'Badge scans',
      description: '',
      pool_uuid: null,
      campaign_uuid: null,
      running: false,
      contact_count: 0,
      created_at: expect.stringMatching(ISO),
      updated_at: expect.stringMatching(ISO),
    });
    const attached = await createListing(kit.api, { pool_uuid: pool.uuid, description: 'Hall 2' });
    expect(attached).toMatchObject({ pool_uuid: pool.uuid, campaign_uuid: campaign.uuid, running: false, description: 'Hall 2' });
    await kit.api.get(`/api/v1/listings/${loose.uuid}`).expect(200, { data: loose });

    await activate(kit.api, campaign.uuid);
    expect((await kit.api.get(`/api/v1/listings/${attached.uuid}`).expect(200)).body.data.running).toBe(true);
    const byPool = await kit.api.get(`/api/v1/listings?pool_uuid=${pool.uuid}`).expect(200);
    expect(byPool.body.data.items.map((l: Json) => l.uuid)).toEqual([attached.uuid]);
  });

  it('refuses a pool of another tenant, changes members, detaches, and deletes', async () => {
    const stranger = await kit.createTenant();
    const foreignPool = await createPool(stranger.api, (await createCampaign(stranger.api)).uuid);
    const res = await kit.api.post('/api/v1/listings').send({ name: 'x', pool_uuid: foreignPool.uuid }).expect(422);
    expect(res.body.errors).toEqual({ pool_uuid: ['is not a pool of this tenant'] });

    const pool = await createPool(kit.api, (await createCampaign(kit.api)).uuid);
    const listing = await createListing(kit.api, { pool_uuid: pool.uuid });
    const changed = (await kit.api.patch(`/api/v1/listings/${listing.uuid}`).send({ ...listing, name: 'Renamed', pool_uuid: null }).expect(200)).body.data;
    expect(changed).toMatchObject({ name: 'Renamed', pool_uuid: null, campaign_uuid: null });
    await kit.api.patch(`/api/v1/listings/${listing.uuid}`).send({ pool_uuid: foreignPool.uuid }).expect(422);

    await kit.api.delete(`/api/v1/listings/${listing.uuid}`).expect(200, { success: true, message: 'Listing deleted', data: { deleted: true } });
    await kit.api.get(`/api/v1/listings/${listing.uuid}`).expect(404, LISTING_NOT_FOUND);
    await kit.api.post(`/api/v1/listings/${listing.uuid}/contacts`).send({ contacts: [{ email: 'a@example.com' }] }).expect(404, LISTING_NOT_FOUND);
  });
});

describe('POST /api/v1/listings/{uuid}/contacts', () => {
  it('creates and updates contacts (phone first, then email), reports the failed items and keeps the others on the listing', async () => {
    const tenant = await kit.createTenant();
    const existing = (await tenant.api.post('/api/v1/contacts').send({ name: 'Old', phone_number: '+34600000001' }).expect(201)).body.data;
    const byEmail = (await tenant.api.post('/api/v1/contacts').send({ name: 'Mail', email: 'mail@example.com' }).expect(201)).body.data;
    const listing = await createListing(tenant.api);

    const result = await upload(tenant.api, listing.uuid, [
      { name: 'Ana', phone_number: '+34 600 000 001', email: 'ana@example.com', badge: 'A-17' },
      { name: 'Mail again', email: 'MAIL@example.com', city: 'Madrid' },
      { name: 'New', email: 'new@example.com' },
      { name: 'Nobody' },
      { name: 'Bad', email: 'not-an-email' },
    ]);
    expect(result).toEqual({
      created: 1,
      updated: 2,
      failed: [
        { index: 3, errors: { phone_number: [expect.any(String)] } },
        { index: 4, errors: { email: [expect.any(String)] } },
      ],
      tasks_created: 0,
    });
    const members = await membersOf(tenant.api, `/api/v1/listings/${listing.uuid}/contacts`);
    expect(members).toHaveLength(3);
    expect(members).toEqual(expect.arrayContaining([existing.uuid, byEmail.uuid]));
    const ana = (await tenant.api.get(`/api/v1/contacts/${existing.uuid}`).expect(200)).body.data;
    expect(ana).toMatchObject({ name: 'Ana', phone_number: '+34600000001', email: 'ana@example.com', custom_fields: { badge: 'A-17' } });
    expect((await tenant.api.get(`/api/v1/contacts/${byEmail.uuid}`).expect(200)).body.data).toMatchObject({ name: 'Mail again', city: 'Madrid' });
    expect((await tenant.api.get(`/api/v1/listings/${listing.uuid}`).expect(200)).body.data.contact_count).toBe(3);

    // The same upload again: everything matches, nothing is added twice.
    const again = await upload(tenant.api, listing.uuid, [{ email: 'new@example.com' }]);
    expect(again).toEqual({ created: 0, updated: 1, failed: [], tasks_created: 0 });
    expect(await membersOf(tenant.api, `/api/v1/listings/${listing.uuid}/contacts`)).toHaveLength(3);
  });

  it('keeps every character of the values it writes, created and updated (they travel as array parameters)', async () => {
    const listing = await createListing(kit.api);
    const awkward = {
      name: 'O"Brien \\ {a,b} NULL',
      company: '"quoted", with comma',
      city: 'Zürich 東京 🚀',
      lead_source: 'NULL',
      note: 'she said "hi" \\o/ {1,"2"} \u0001 🚀',
    };
    expect(await upload(kit.api, listing.uuid, [{ email: 'awkward@example.com', ...awkward }])).toMatchObject({ created: 1, failed: [] });
    const [uuid] = await membersOf(kit.api, `/api/v1/listings/${listing.uuid}/contacts`);
    const created = (await kit.api.get(`/api/v1/contacts/${uuid}`).expect(200)).body.data;
    const { note, ...members } = awkward;
    expect(created).toMatchObject({ ...members, email: 'awkward@example.com', custom_fields: { note } });

    const changed = { name: 'D\'Arcy "2" \\\\', company: '}{', note: 'a,"b"' };
    const result = await upload(kit.api, listing.uuid, [{ email: 'awkward@example.com', ...changed }]);
    expect(result).toMatchObject({ created: 0, updated: 1, failed: [] });
    const read = (await kit.api.get(`/api/v1/contacts/${uuid}`).expect(200)).body.data;
    expect(read).toMatchObject({ name: changed.name, company: changed.company, city: awkward.city, lead_source: 'NULL', custom_fields: { note: 'a,"b"' } });
  });

  it('a contact that two items of one upload name (created by the first) joins the listing and its pool once', async () => {
    const tenant = await kit.createTenant();
    const pool = await createPool(tenant.api, (await createCampaign(tenant.api)).uuid);
    const listing = await createListing(tenant.api, { pool_uuid: pool.uuid });
    const result = await upload(tenant.api, listing.uuid, [
      { phone_number: '+34600000077', name: 'First' },
      { phone_number: '+34 600 000 077', name: 'Second' },
    ]);
    expect(result).toEqual({ created: 1, updated: 1, failed: [], tasks_created: 0 });
    const members = await membersOf(tenant.api, `/api/v1/listings/${listing.uuid}/contacts`);
    expect(members).toHaveLength(1);
    expect(await membersOf(tenant.api, `/api/v1/pools/${pool.uuid}/contacts`)).toEqual(members);
    expect((await tenant.api.get(`/api/v1/contacts/${members[0]}`).expect(200)).body.data.name).toBe('Second');
  });

  it('refuses a body with no contact, more than 1,000, or a member of the wrong type, with 422', async () => {
    const listing = await createListing(kit.api);
    await kit.api.post(`/api/v1/listings/${listing.uuid}/contacts`).send({ contacts: [] }).expect(422);
    const many = Array.from({ length: 1001 }, (_, i) => ({ email: `m${i}@example.com` }));
    const over = await kit.api.post(`/api/v1/listings/${listing.uuid}/contacts`).send({ contacts: many }).expect(422);
    expect(Object.keys(over.body.errors)).toEqual(['contacts']);
    const typed = await kit.api.post(`/api/v1/listings/${listing.uuid}/contacts`).send({ contacts: [{ phone_number: 34600000001 }] }).expect(422);
    expect(Object.keys(typed.body.errors)).toEqual(['contacts.0.phone_number']);
  });

  it('a running listing makes tasks for the contacts newly added to its pool that are eligible', async () => {
    const tenant = await kit.createTenant();
    const rule = await createClosedRule(tenant.api);
    const campaign = await createCampaign(tenant.api, { rule_uuids: [rule.uuid] });
    const pool = await createPool(tenant.api, campaign.uuid);
    const listing = await createListing(tenant.api, { pool_uuid: pool.uuid });
    const optedOut = (await tenant.api.post('/api/v1/contacts').send({ name: 'No', phone_number: '+34600000009', opted_out: true }).expect(201)).body.data;
    const [already] = await createContacts(tenant.api, 1, { phone_number: '+34600000008' });
    await tenant.api.post(`/api/v1/pools/${pool.uuid}/contacts`).send({ contact_uuids: [already] }).expect(200);
    await activate(tenant.api, campaign.uuid);
    expect(await tasksOf(kit, tenant.tenant.uuid)).toHaveLength(1);

    const result = await upload(tenant.api, listing.uuid, [
      { name: 'Ana', phone_number: '+34600000001' },
      { name: 'Ben', email: 'ben@example.com' },
      { name: 'Opted out', phone_number: '+34600000009' },
      { name: 'Already in the pool', phone_number: '+34600000008' },
      { name: 'Broken', email: 'nope' },
    ]);
    expect(result).toEqual({ created: 2, updated: 2, failed: [{ index: 4, errors: { email: [expect.any(String)] } }], tasks_created: 2 });

    const tasks = await tasksOf(kit, tenant.tenant.uuid);
    expect(tasks).toHaveLength(3);
    expect(tasks.every((task) => task.pool_uuid === pool.uuid && task.campaign_uuid === campaign.uuid && task.rule_uuid === rule.uuid && task.status === 'scheduled')).toBe(true);
    expect(tasks.map((task) => task.contact_uuid)).not.toContain(optedOut.uuid);
    expect(await membersOf(tenant.api, `/api/v1/pools/${pool.uuid}/contacts`)).toHaveLength(4);

    // Uploaded again: they are in the pool already, so no new task.
    expect((await upload(tenant.api, listing.uuid, [{ phone_number: '+34600000001' }])).tasks_created).toBe(0);
    expect(await tasksOf(kit, tenant.tenant.uuid)).toHaveLength(3);
  });

  it('a listing that is not running adds to its pool without tasks; activation then makes them', async () => {
    const tenant = await kit.createTenant();
    const rule = await createClosedRule(tenant.api);
    const campaign = await createCampaign(tenant.api, { rule_uuids: [rule.uuid] });
    const pool = await createPool(tenant.api, campaign.uuid);
    const listing = await createListing(tenant.api, { pool_uuid: pool.uuid });
    expect((await upload(tenant.api, listing.uuid, [{ email: 'a@example.com' }, { email: 'b@example.com' }])).tasks_created).toBe(0);
    await activate(tenant.api, campaign.uuid);
    expect(await tasksOf(kit, tenant.tenant.uuid)).toHaveLength(2);

    // Paused: not running.
    await transition(tenant.api, campaign.uuid, 'pause');
    expect((await upload(tenant.api, listing.uuid, [{ email: 'c@example.com' }])).tasks_created).toBe(0);
    expect((await tenant.api.get(`/api/v1/listings/${listing.uuid}`).expect(200)).body.data.running).toBe(false);
  });

  it('attaching a listing to a pool brings its contacts into the pool, with tasks when that campaign runs', async () => {
    const tenant = await kit.createTenant();
    const rule = await createClosedRule(tenant.api);
    const campaign = await createCampaign(tenant.api, { rule_uuids: [rule.uuid] });
    const pool = await createPool(tenant.api, campaign.uuid);
    await activate(tenant.api, campaign.uuid);
    const listing = await createListing(tenant.api);
    await upload(tenant.api, listing.uuid, [{ email: 'a@example.com' }, { email: 'b@example.com' }]);
    expect(await tasksOf(kit, tenant.tenant.uuid)).toEqual([]);

    const attached = (await tenant.api.patch(`/api/v1/listings/${listing.uuid}`).send({ pool_uuid: pool.uuid }).expect(200)).body.data;
    expect(attached).toMatchObject({ pool_uuid: pool.uuid, running: true });
    expect(await membersOf(tenant.api, `/api/v1/pools/${pool.uuid}/contacts`)).toEqual(await membersOf(tenant.api, `/api/v1/listings/${listing.uuid}/contacts`));
    expect(await tasksOf(kit, tenant.tenant.uuid)).toHaveLength(2);
  });
});

describe('memberships as child rows (no foreign key to tenants of their own)', () => {
  const count = async (table: string, tenantUuid: string) =>
    Number((await kit.kernel.orm.em.fork().getConnection().execute(`select count(*)::int as n from ${table} where tenant_uuid = ?`, [tenantUuid]))[0].n);

  it('are scoped to their tenant by the ORM, and go with their tenant (through their listing and pool)', async () => {
    const tenant = await kit.createTenant();
    const other = await kit.createTenant();
    const campaign = await createCampaign(tenant.api);
    const pool = await createPool(tenant.api, campaign.uuid);
    const listing = await createListing(tenant.api, { pool_uuid: pool.uuid });
    await upload(tenant.api, listing.uuid, [{ email: 'a@example.com' }, { email: 'b@example.com' }]);
    const otherListing = await createListing(other.api);
    await upload(other.api, otherListing.uuid, [{ email: 'a@example.com' }]);

    // The tenant filter applies to them as to any tenant-scoped entity.
    const seen = await runInContext({ tenant: tenant.tenant }, () => kit.kernel.orm.em.fork().find(ListingContact, {}));
    expect(seen.map((row) => row.listingUuid)).toEqual([listing.uuid, listing.uuid]);
    expect(await count('pool_items', tenant.tenant.uuid)).toBe(2);

    await kit.kernel.orm.em.fork().getConnection().execute('delete from tenants where uuid = ?', [tenant.tenant.uuid]);
    expect(await count('listing_contacts', tenant.tenant.uuid)).toBe(0);
    expect(await count('pool_items', tenant.tenant.uuid)).toBe(0);
    expect(await count('listing_contacts', other.tenant.uuid)).toBe(1);
  });
});
