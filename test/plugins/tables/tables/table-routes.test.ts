import { startTestKernel, type TestKernel } from '../../../../core/testing';
import { AGENTS, TABLES, busProbe, createRecords, createTable, eventually, expectTableNotFound, statementsDuring, storedRecords } from '../records/record-test-helpers';

const probe = busProbe();
let kit: TestKernel;
beforeAll(async () => {
  kit = await startTestKernel({ plugins: [AGENTS, TABLES, probe.plugin] });
});
afterAll(() => kit?.stop());

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const UUID = /^[0-9a-f-]{36}$/;
const MISSING = '01960000-0000-7000-8000-00000000dead';

describe('POST /api/v1/data/tables', () => {
  it('creates an empty table with a column of every type, in order', async () => {
    const res = await kit.api
      .post('/api/v1/data/tables')
      .send({
        name: '  Products  ',
        description: 'The catalogue',
        columns: ['text', 'number', 'date', 'boolean', 'json', 'url'].map((type) => ({ name: `a ${type}`, data_type: type })),
      })
      .expect(201);
    expect(res.body).toEqual({
      data: {
        uuid: expect.stringMatching(UUID),
        name: 'Products',
        description: 'The catalogue',
        search_language: 'english',
        columns: ['text', 'number', 'date', 'boolean', 'json', 'url'].map((type) => ({ uuid: expect.stringMatching(UUID), name: `a ${type}`, data_type: type })),
        record_count: 0,
        index: { status: 'current', indexed_at: null },
        created_at: expect.stringMatching(ISO),
        updated_at: expect.stringMatching(ISO),
      },
    });
    await kit.api.get(`/api/v1/data/${res.body.data.uuid}`).expect(200, res.body);
  });

  it('takes any text search configuration of the database as its search language, and nothing else', async () => {
    const german = await kit.api.post('/api/v1/data/tables').send({ name: 'Produkte', search_language: 'german', columns: [] }).expect(201);
    expect(german.body.data.search_language).toBe('german');
    const res = await kit.api.post('/api/v1/data/tables').send({ name: 'X', search_language: 'klingon', columns: [] }).expect(422);
    expect(res.body.errors).toEqual({ search_language: [expect.stringContaining('text search configuration')] });
  });

  it('refuses a type outside the six at columns.<i>.data_type', async () => {
    const res = await kit.api
      .post('/api/v1/data/tables')
      .send({ name: 'X', columns: [{ name: 'price', data_type: 'number' }, { name: 'cost', data_type: 'money' }] })
      .expect(422);
    expect(res.body.errors).toEqual({ 'columns.1.data_type': ['must be one of: text, number, date, boolean, json, url'] });
  });

  it('refuses a repeated column name (case-insensitive) and empty names, all at once with their paths, and writes nothing', async () => {
    const before = (await kit.api.get('/api/v1/data/tables').expect(200)).body.data.pagination.total;
    const res = await kit.api
      .post('/api/v1/data/tables')
      .send({
        name: ' ',
        columns: [
          { name: 'price', data_type: 'number' },
          { name: 'Price', data_type: 'text' },
          { name: '  ', data_type: 'text' },
        ],
      })
      .expect(422);
    expect(res.body.errors).toEqual({
      'columns.1.name': ['a column named "Price" already exists'],
      'columns.2.name': ['must not be empty'],
      name: ['must not be empty'],
    });
    expect((await kit.api.get('/api/v1/data/tables').expect(200)).body.data.pagination.total).toBe(before);
  });

  it('refuses unknown members and requires name and columns', async () => {
    const res = await kit.api.post('/api/v1/data/tables').send({ colour: 'red' }).expect(422);
    expect(res.body.errors).toEqual({ colour: ['is not allowed'], name: ['is required'], columns: ['is required'] });
  });
});

describe('GET /api/v1/data/tables', () => {
  it('lists newest first with columns and record counts, pages, and searches names literally (case-insensitive)', async () => {
    const tenant = await kit.createTenant();
    const a = await createTable(tenant.api, { name: 'text' }, 'Prices 100%');
    const b = await createTable(tenant.api, { name: 'text', size: 'number' }, 'Price list');
    const c = await createTable(tenant.api, {}, 'Opening hours');
    await createRecords(tenant.api, b.uuid, [{ name: 'x' }, { name: 'y' }]);

    const all = (await tenant.api.get('/api/v1/data/tables').expect(200)).body;
    expect(all.data.items.map((t: any) => t.uuid)).toEqual([c.uuid, b.uuid, a.uuid]);
    expect(all.data.items.map((t: any) => t.record_count)).toEqual([0, 2, 0]);
    expect(all.data.items[1].columns.map((col: any) => col.name)).toEqual(['name', 'size']);
    expect(all.data.pagination).toEqual({ current_page: 1, per_page: 25, total: 3, last_page: 1, from: 1, to: 3, has_more: false });

    const page = (await tenant.api.get('/api/v1/data/tables?per_page=2&page=2').expect(200)).body.data;
    expect(page.items.map((t: any) => t.uuid)).toEqual([a.uuid]);
    expect(page.pagination).toMatchObject({ total: 3, last_page: 2, from: 3, to: 3, has_more: false });

    const search = async (text: string) => (await tenant.api.get(`/api/v1/data/tables?search=${encodeURIComponent(text)}`).expect(200)).body.data.items.map((t: any) => t.name);
    expect(await search('PRICE')).toEqual(['Price list', 'Prices 100%']);
    expect(await search('0%')).toEqual(['Prices 100%']);
    expect(await search('e_l')).toEqual([]);
  });

  it('reads a page of tables in a fixed number of statements, whatever its size', async () => {
    const tenant = await kit.createTenant();
    for (let i = 0; i < 6; i++) await createRecords(tenant.api, (await createTable(tenant.api, { a: 'text', b: 'number' }, `t${i}`)).uuid, [{ a: 'x' }]);
    const statementsFor = async (perPage: number) =>
      (await statementsDuring(kit, () => tenant.api.get(`/api/v1/data/tables?per_page=${perPage}`).expect(200))).filter((sql) => /data_table/.test(sql));
    const small = await statementsFor(1);
    const large = await statementsFor(6);
    expect(large.length).toBe(small.length);
    expect(large.length).toBeLessThanOrEqual(4);
  });
});

describe('GET|PATCH|DELETE /api/v1/data/{uuid}', () => {
  it('answers 404 with the spec’s body for an unknown table, and for another tenant’s', async () => {
    await expectTableNotFound(kit.api.get(`/api/v1/data/${MISSING}`), MISSING);
    await expectTableNotFound(kit.api.patch(`/api/v1/data/${MISSING}`).send({ name: 'x' }), MISSING);
    await expectTableNotFound(kit.api.delete(`/api/v1/data/${MISSING}`), MISSING);
    const other = await kit.createTenant();
    const theirs = await createTable(other.api, { a: 'text' });
    await expectTableNotFound(kit.api.get(`/api/v1/data/${theirs.uuid}`), theirs.uuid);
    await kit.api.get('/api/v1/data/not-a-uuid').expect(422);
  });

  it('renames and describes a table; what was read can be sent back; columns are not changed by it', async () => {
    const table = await createTable(kit.api, { name: 'text' });
    const read = (await kit.api.get(`/api/v1/data/${table.uuid}`).expect(200)).body.data;
    const renamed = (await kit.api.patch(`/api/v1/data/${table.uuid}`).send({ ...read, name: 'Catalogue', description: 'All of it', columns: [] }).expect(200)).body.data;
    expect(renamed).toMatchObject({ uuid: table.uuid, name: 'Catalogue', description: 'All of it', columns: read.columns, index: { status: 'current' } });
    expect(renamed.updated_at >= read.updated_at).toBe(true);
    const res = await kit.api.patch(`/api/v1/data/${table.uuid}`).send({ name: '', shape: 'round' }).expect(422);
    expect(Object.keys(res.body.errors).sort()).toEqual(['name', 'shape']);
  });

  it('a new search language marks the index stale and queues a sync; an unknown one is refused', async () => {
    const table = await createTable(kit.api, { name: 'text' });
    await kit.api.patch(`/api/v1/data/${table.uuid}`).send({ search_language: 'nonsense' }).expect(422);
    const same = (await kit.api.patch(`/api/v1/data/${table.uuid}`).send({ search_language: 'english' }).expect(200)).body.data;
    expect(same.index.status).toBe('current');
    const changed = (await kit.api.patch(`/api/v1/data/${table.uuid}`).send({ search_language: 'simple' }).expect(200)).body.data;
    expect(changed).toMatchObject({ search_language: 'simple', index: { status: 'stale' } });
    await eventually(() => probe.seen.some((m) => m.topic === 'tables.index.sync' && m.payload.table_uuid === table.uuid));
    expect(probe.seen.filter((m) => m.topic === 'tables.index.sync' && m.payload.table_uuid === table.uuid)).toEqual([
      { topic: 'tables.index.sync', payload: { table_uuid: table.uuid }, tenant: kit.tenant.uuid },
    ]);
  });

  it('deletes a table with its columns and records', async () => {
    const table = await createTable(kit.api, { name: 'text' });
    await createRecords(kit.api, table.uuid, [{ name: 'a' }, { name: 'b' }]);
    await kit.api.delete(`/api/v1/data/${table.uuid}`).expect(200, { success: true, message: 'Table deleted', data: { deleted: true } });
    await expectTableNotFound(kit.api.get(`/api/v1/data/${table.uuid}`), table.uuid);
    expect(await storedRecords(kit, table.uuid)).toEqual([]);
    const columns = await kit.kernel.orm.em.fork().getConnection().execute('select 1 from data_table_columns where table_uuid = ?', [table.uuid]);
    expect(columns).toEqual([]);
  });
});
