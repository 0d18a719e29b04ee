import type { TestKernel } from '../../../core/testing';
import {
  activate,
  addToPool,
  createCampaign,
  createClosedRule,
  createContacts,
  createPool,
  eventually,
  startOutreachKit,
  tasksOf,
  transition,
  type Json,
  type TaskRow,
} from './outreach-test-kit';

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const POOL_NOT_FOUND = { success: false, message: 'Pool not found', data: [] };
const ITEM_NOT_FOUND = { success: false, message: 'Contact is not in this pool', data: [] };

let kit: TestKernel;
beforeAll(async () => {
  kit = await startOutreachKit();
});
afterAll(() => kit?.stop());

const statusOf = (tasks: TaskRow[], poolUuid: string, contactUuid: string) =>
  tasks.filter((task) => task.pool_uuid === poolUuid && task.contact_uuid === contactUuid).map((task) => task.status);

describe('pools: create, read, list, rename, delete', () => {
  it('creates a pool in a campaign of this tenant, reads, lists by campaign, renames it', async () => {
    const campaign = await createCampaign(kit.api);
    const other = await createCampaign(kit.api);
    const res = await kit.api.post('/api/v1/pools').send({ campaign_uuid: campaign.uuid, name: ' Madrid ' }).expect(201);
    const pool = res.body.data;
    expect(pool).toEqual({
      uuid: expect.any(String),
      campaign_uuid: campaign.uuid,
      name: 'Madrid',
      contact_count: 0,
      created_at: expect.stringMatching(ISO),
      updated_at: expect.stringMatching(ISO),
    });
    await kit.api.get(`/api/v1/pools/${pool.uuid}`).expect(200, { data: pool });
    const second = await createPool(kit.api, campaign.uuid, 'Barcelona');
    await createPool(kit.api, other.uuid, 'Elsewhere');
    const list = await kit.api.get(`/api/v1/pools?campaign_uuid=${campaign.uuid}`).expect(200);
    expect(list.body.data.items.map((p: Json) => p.uuid)).toEqual([second.uuid, pool.uuid]);

    // What was read can be sent back; the campaign stays.
    const renamed = (await kit.api.patch(`/api/v1/pools/${pool.uuid}`).send({ ...pool, campaign_uuid: other.uuid, name: 'Madrid centre' }).expect(200)).body.data;
    expect(renamed).toMatchObject({ name: 'Madrid centre', campaign_uuid: campaign.uuid });
    await kit.api.patch(`/api/v1/pools/${pool.uuid}`).send({ name: '' }).expect(422);
  });

  it('refuses a campaign of another tenant at campaign_uuid, and answers 404 for unknown pools', async () => {
    const stranger = await kit.createTenant();
    const foreign = await createCampaign(stranger.api);
    const res = await kit.api.post('/api/v1/pools').send({ campaign_uuid: foreign.uuid, name: 'x' }).expect(422);
    expect(res.body.errors).toEqual({ campaign_uuid: ['is not a campaign of this tenant'] });
    const unknown = '00000000-0000-7000-8000-000000000000';
    await kit.api.get(`/api/v1/pools/${unknown}`).expect(404, POOL_NOT_FOUND);
    await kit.api.post(`/api/v1/pools/${unknown}/contacts`).send({ contact_uuids: [unknown] }).expect(404, POOL_NOT_FOUND);
    await kit.api.delete(`/api/v1/pools/${unknown}/contacts/${unknown}`).expect(404, POOL_NOT_FOUND);
  });
});

describe('POST /api/v1/pools/{uuid}/contacts', () => {
  it('adds contacts once (a repeat is skipped), lists them in order, and refuses unknown ones at their index, adding nothing', async () => {
    const campaign = await createCampaign(kit.api);
    const pool = await createPool(kit.api, campaign.uuid);
    const [a, b, c] = await createContacts(kit.api, 3);
    expect(await addToPool(kit.api, pool.uuid, [a, b, a])).toEqual({ added: 2, tasks_created: 0 });
    expect(await addToPool(kit.api, pool.uuid, [b, c])).toEqual({ added: 1, tasks_created: 0 });
    const listed = await kit.api.get(`/api/v1/pools/${pool.uuid}/contacts`).expect(200);
    expect(listed.body.data.items).toEqual([a, b, c].map((uuid) => ({ contact_uuid: uuid, added_at: expect.stringMatching(ISO) })));
    expect((await kit.api.get(`/api/v1/pools/${pool.uuid}`).expect(200)).body.data.contact_count).toBe(3);

    const stranger = await kit.createTenant();
    const [foreign] = await createContacts(stranger.api, 1);
    const [fresh] = await createContacts(kit.api, 1);
    const res = await kit.api.post(`/api/v1/pools/${pool.uuid}/contacts`).send({ contact_uuids: [fresh, foreign, '00000000-0000-7000-8000-000000000001'] }).expect(422);
    expect(res.body.errors).toEqual({ 'contact_uuids.1': ['is not a contact of this tenant'], 'contact_uuids.2': ['is not a contact of this tenant'] });
    expect((await kit.api.get(`/api/v1/pools/${pool.uuid}`).expect(200)).body.data.contact_count).toBe(3);

    await kit.api.post(`/api/v1/pools/${pool.uuid}/contacts`).send({ contact_uuids: [] }).expect(422);
    const tooMany = Array.from({ length: 1001 }, () => a);
    const over = await kit.api.post(`/api/v1/pools/${pool.uuid}/contacts`).send({ contact_uuids: tooMany }).expect(422);
    expect(Object.keys(over.body.errors)).toEqual(['contact_uuids']);
  });
});

describe('DELETE /api/v1/pools/{uuid}/contacts/{contact_uuid}', () => {
  it('cancels only that pool item’s waiting tasks and reports how many; the contact’s tasks in other pools stay', async () => {
    const tenant = await kit.createTenant();
    const rule = await createClosedRule(tenant.api);
    const campaign = await createCampaign(tenant.api, { rule_uuids: [rule.uuid] });
    const other = await createCampaign(tenant.api, { rule_uuids: [rule.uuid] });
    const [first, second, elsewhere] = [await createPool(tenant.api, campaign.uuid), await createPool(tenant.api, campaign.uuid), await createPool(tenant.api, other.uuid)];
    const [contact, neighbour] = await createContacts(tenant.api, 2);
    await addToPool(tenant.api, first.uuid, [contact, neighbour]);
    await addToPool(tenant.api, second.uuid, [contact]);
    await addToPool(tenant.api, elsewhere.uuid, [contact]);
    await activate(tenant.api, campaign.uuid);
    await activate(tenant.api, other.uuid);
    // A pause and a resume leave the first pool item a cancelled task beside its waiting one: only the waiting one counts.
    await transition(tenant.api, campaign.uuid, 'pause');
    await transition(tenant.api, campaign.uuid, 'activate');
    expect(statusOf(await tasksOf(kit, tenant.tenant.uuid), first.uuid, contact)).toEqual(['cancelled', 'scheduled']);

    await tenant.api
      .delete(`/api/v1/pools/${first.uuid}/contacts/${contact}`)
      .expect(200, { success: true, message: 'Contact removed from the pool', data: { tasks_cancelled: 1 } });

    const tasks = await tasksOf(kit, tenant.tenant.uuid);
    expect(statusOf(tasks, first.uuid, contact)).toEqual(['cancelled', 'cancelled']);
    expect(statusOf(tasks, first.uuid, neighbour)).toEqual(['cancelled', 'scheduled']);
    expect(statusOf(tasks, second.uuid, contact)).toEqual(['cancelled', 'scheduled']);
    expect(statusOf(tasks, elsewhere.uuid, contact)).toEqual(['scheduled']);
    const members = await tenant.api.get(`/api/v1/pools/${first.uuid}/contacts`).expect(200);
    expect(members.body.data.items.map((item: Json) => item.contact_uuid)).toEqual([neighbour]);

    // The item is gone: a second removal, or a contact never in the pool, is 404.
    await tenant.api.delete(`/api/v1/pools/${first.uuid}/contacts/${contact}`).expect(404, ITEM_NOT_FOUND);
    await tenant.api.delete(`/api/v1/pools/${elsewhere.uuid}/contacts/${neighbour}`).expect(404, ITEM_NOT_FOUND);
  });

  it('reports 0 when the pool item has no waiting task', async () => {
    const campaign = await createCampaign(kit.api);
    const pool = await createPool(kit.api, campaign.uuid);
    const [contact] = await createContacts(kit.api, 1);
    await addToPool(kit.api, pool.uuid, [contact]);
    await kit.api.delete(`/api/v1/pools/${pool.uuid}/contacts/${contact}`).expect(200, { success: true, message: 'Contact removed from the pool', data: { tasks_cancelled: 0 } });
  });

  it('deleting a pool cancels its items’ waiting tasks and leaves the other pools’', async () => {
    const tenant = await kit.createTenant();
    const rule = await createClosedRule(tenant.api);
    const campaign = await createCampaign(tenant.api, { rule_uuids: [rule.uuid] });
    const [doomed, kept] = [await createPool(tenant.api, campaign.uuid), await createPool(tenant.api, campaign.uuid)];
    const contacts = await createContacts(tenant.api, 2);
    await addToPool(tenant.api, doomed.uuid, contacts);
    await addToPool(tenant.api, kept.uuid, contacts);
    await activate(tenant.api, campaign.uuid);
    await tenant.api.delete(`/api/v1/pools/${doomed.uuid}`).expect(200, { success: true, message: 'Pool deleted', data: { deleted: true } });
    await tenant.api.get(`/api/v1/pools/${doomed.uuid}`).expect(404, POOL_NOT_FOUND);
    const tasks = await tasksOf(kit, tenant.tenant.uuid);
    expect(tasks.filter((task) => task.pool_uuid === doomed.uuid).map((task) => task.status)).toEqual(['cancelled', 'cancelled']);
    expect(tasks.filter((task) => task.pool_uuid === kept.uuid).map((task) => task.status)).toEqual(['scheduled', 'scheduled']);
    expect((await tenant.api.get(`/api/v1/campaigns/${campaign.uuid}`).expect(200)).body.data).toMatchObject({ pool_count: 1, contact_count: 2 });
  });
});

describe('a deleted contact', () => {
  it('leaves its pools and listings, and its waiting tasks are cancelled; other contacts keep theirs', async () => {
    const tenant = await kit.createTenant();
    const rule = await createClosedRule(tenant.api);
    const campaign = await createCampaign(tenant.api, { rule_uuids: [rule.uuid] });
    const pool = await createPool(tenant.api, campaign.uuid);
    const [gone, stays] = await createContacts(tenant.api, 2);
    await addToPool(tenant.api, pool.uuid, [gone, stays]);
    await activate(tenant.api, campaign.uuid);
    expect(statusOf(await tasksOf(kit, tenant.tenant.uuid), pool.uuid, gone)).toEqual(['scheduled']);

    await tenant.api.delete(`/api/v1/contacts/${gone}`).expect(200);
    await eventually(async () => statusOf(await tasksOf(kit, tenant.tenant.uuid), pool.uuid, gone)[0] === 'cancelled');
    const members = await tenant.api.get(`/api/v1/pools/${pool.uuid}/contacts`).expect(200);
    expect(members.body.data.items.map((item: Json) => item.contact_uuid)).toEqual([stays]);
    expect(statusOf(await tasksOf(kit, tenant.tenant.uuid), pool.uuid, stays)).toEqual(['scheduled']);
  });
});
