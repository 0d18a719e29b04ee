import { startTestKernel, type TestKernel } from '../../../../core/testing';
import { addStep, createFlow, flowWithTrigger, readFlow, type Json } from './builder-helpers';
import { BUILDER_PLUGINS } from './fixture-apps';

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const NOT_FOUND = { success: false, message: 'Flow not found', data: [] };

let kit: TestKernel;

beforeAll(async () => {
  kit = await startTestKernel({ plugins: BUILDER_PLUGINS });
});
afterAll(() => kit?.stop());

describe('flow CRUD: /api/v1/flow', () => {
  it('creates a draft flow with no steps (201 {data: flow}), and reads it back the same', async () => {
    const res = await kit.api.post('/api/v1/flow').send({ name: 'Lead follow-up', description: 'Posts leads to the CRM' }).expect(201);
    expect(Object.keys(res.body)).toEqual(['data']);
    expect(res.body.data).toEqual({
      uuid: expect.any(String),
      name: 'Lead follow-up',
      description: 'Posts leads to the CRM',
      status: 'draft',
      live_version: null,
      created_at: expect.stringMatching(ISO),
      updated_at: expect.stringMatching(ISO),
      steps: [],
    });
    await kit.api.get(`/api/v1/flow/${res.body.data.uuid}`).expect(200, { data: res.body.data });
  });

  it('defaults the description to empty text, and refuses a missing name or unknown members with one 422 naming each', async () => {
    expect((await createFlow(kit.api, 'Bare')).description).toBe('');
    const bad = await kit.api.post('/api/v1/flow').send({ description: 7, colour: 'red' }).expect(422);
    expect(Object.keys(bad.body.errors).sort()).toEqual(['colour', 'description', 'name']);
    await kit.api.post('/api/v1/flow').send({ name: '' }).expect(422);
  });

  it('ignores read-only members sent back (uuid, status, steps, ...), so a client can send what it read', async () => {
    const { flow } = await flowWithTrigger(kit.api, 'Round trip');
    const read = await readFlow(kit.api, flow.uuid);
    const changed = (await kit.api.patch(`/api/v1/flow/${flow.uuid}`).send({ ...read, name: 'Renamed', status: 'live', steps: [] }).expect(200)).body.data;
    expect(changed).toEqual({ ...read, name: 'Renamed', updated_at: expect.stringMatching(ISO) });
  });

  it('PATCH changes only name and description; members absent stay', async () => {
    const flow = await createFlow(kit.api, 'Before');
    const renamed = (await kit.api.patch(`/api/v1/flow/${flow.uuid}`).send({ name: 'After' }).expect(200)).body.data;
    expect(renamed).toMatchObject({ name: 'After', description: '' });
    const described = (await kit.api.patch(`/api/v1/flow/${flow.uuid}`).send({ description: 'Now described' }).expect(200)).body.data;
    expect(described).toMatchObject({ name: 'After', description: 'Now described' });
    expect(await readFlow(kit.api, flow.uuid)).toEqual(described);
  });

  it('lists flows newest first in the paginated envelope, with their steps, filterable by status', async () => {
    const tenant = await kit.createTenant();
    const first = await createFlow(tenant.api, 'first');
    const { flow: second, trigger } = await flowWithTrigger(tenant.api, 'second');
    const third = await createFlow(tenant.api, 'third');
    const page = (await tenant.api.get('/api/v1/flow?per_page=2').expect(200)).body;
    expect(page.success).toBe(true);
    expect(page.data.items.map((flow: Json) => flow.name)).toEqual(['third', 'second']);
    expect(page.data.items[1].steps).toEqual([trigger]);
    expect(page.data.pagination).toEqual({ current_page: 1, per_page: 2, total: 3, last_page: 2, from: 1, to: 2, has_more: true });
    const last = (await tenant.api.get('/api/v1/flow?per_page=2&page=2').expect(200)).body.data;
    expect(last.items.map((flow: Json) => flow.uuid)).toEqual([first.uuid]);

    await tenant.api.post(`/api/v1/flow/${second.uuid}/deploy`).expect(200);
    const live = (await tenant.api.get('/api/v1/flow?status=live').expect(200)).body.data.items;
    expect(live.map((flow: Json) => flow.uuid)).toEqual([second.uuid]);
    const drafts = (await tenant.api.get('/api/v1/flow?status=draft').expect(200)).body.data.items;
    expect(drafts.map((flow: Json) => flow.uuid)).toEqual([third.uuid, first.uuid]);
    await tenant.api.get('/api/v1/flow?status=paused').expect(422);
  });

  it("never shows another tenant's flows", async () => {
    const other = await kit.createTenant();
    const theirs = await createFlow(other.api, 'theirs');
    await kit.api.get(`/api/v1/flow/${theirs.uuid}`).expect(404, NOT_FOUND);
    await kit.api.patch(`/api/v1/flow/${theirs.uuid}`).send({ name: 'mine now' }).expect(404);
    await kit.api.delete(`/api/v1/flow/${theirs.uuid}`).expect(404);
    const mine = (await kit.api.get('/api/v1/flow?per_page=100').expect(200)).body.data.items.map((flow: Json) => flow.uuid);
    expect(mine).not.toContain(theirs.uuid);
    expect((await readFlow(other.api, theirs.uuid)).name).toBe('theirs');
  });
});

describe('DELETE /api/v1/flow/{uuid}: a soft delete', () => {
  it('removes the flow from the list at once, answers 404 on every later use, and keeps the row', async () => {
    const tenant = await kit.createTenant();
    const { flow, trigger } = await flowWithTrigger(tenant.api, 'doomed');
    const kept = await createFlow(tenant.api, 'kept');
    await tenant.api.delete(`/api/v1/flow/${flow.uuid}`).expect(200, { success: true, message: 'Flow deleted', data: { deleted: true } });

    const list = (await tenant.api.get('/api/v1/flow').expect(200)).body.data;
    expect(list.items.map((item: Json) => item.uuid)).toEqual([kept.uuid]);
    expect(list.pagination.total).toBe(1);
    await tenant.api.get(`/api/v1/flow/${flow.uuid}`).expect(404, NOT_FOUND);
    await tenant.api.patch(`/api/v1/flow/${flow.uuid}`).send({ name: 'x' }).expect(404);
    await tenant.api.delete(`/api/v1/flow/${flow.uuid}`).expect(404);
    await tenant.api.get(`/api/v1/flow/${flow.uuid}/steps/${trigger.uuid}`).expect(404);
    await tenant.api.post(`/api/v1/flow/${flow.uuid}/steps`).send({ app_uid: 'kit', action_key: 'echo' }).expect(404);
    await tenant.api.post(`/api/v1/flow/${flow.uuid}/deploy`).expect(404);

    const rows = await kit.kernel.orm.em.fork().getConnection().execute('select 1 from flows where uuid = ? and deleted_at is not null', [flow.uuid]);
    expect(rows).toHaveLength(1);
  });
});

describe('the OpenAPI document', () => {
  it('describes flows and steps once, as the Flow and FlowStep components', async () => {
    const doc = (await kit.client({}).get('/api/v1/openapi.json').expect(200)).body;
    expect(Object.keys(doc.components.schemas)).toEqual(expect.arrayContaining(['Flow', 'FlowStep']));
    expect(doc.components.schemas.Flow.properties.steps.items).toEqual({ $ref: '#/components/schemas/FlowStep' });
    const create = doc.paths['/api/v1/flow/{uuid}/steps'].post;
    expect(create.responses['201'].content['application/json'].schema.properties.data).toEqual({ $ref: '#/components/schemas/FlowStep' });
    expect(Object.keys(create.responses)).toEqual(expect.arrayContaining(['201', '404', '409', '422']));
  });
});

it('a step added shows in the flow exactly as the step route returns it', async () => {
  const { flow, trigger } = await flowWithTrigger(kit.api);
  const step = await addStep(kit.api, flow.uuid, { app_uid: 'kit', action_key: 'echo', config: { message: 'hi' } });
  expect((await readFlow(kit.api, flow.uuid)).steps).toEqual([trigger, step]);
  await kit.api.get(`/api/v1/flow/${flow.uuid}/steps/${step.uuid}`).expect(200, { data: step });
});
