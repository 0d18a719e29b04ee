import { startTestKernel, type TestKernel } from '../../../../core/testing';
import { AGENTS, TABLES, busProbe, createRecords, createTable, eventually, expectTableNotFound, storedRecords } from '../records/record-test-helpers';

const probe = busProbe();
let kit: TestKernel;
beforeAll(async () => {
  kit = await startTestKernel({ plugins: [AGENTS, TABLES, probe.plugin] });
});
afterAll(() => kit?.stop());

const UUID = /^[0-9a-f-]{36}$/;
const MISSING = '01960000-0000-7000-8000-00000000dead';
const syncsOf = (table: string) => probe.seen.filter((m) => m.topic === 'tables.index.sync' && m.payload.table_uuid === table);
const indexOf = async (table: string) => (await kit.api.get(`/api/v1/data/${table}`).expect(200)).body.data.index;
const indexStatus = async (table: string) => (await indexOf(table)).status;
/**
 * The change marked the index stale and queued one sync, which rebuilt it: the sync
 * consumer runs in this kernel, so `stale` itself may already be gone when read.
 */
async function expectReindexedAfter(table: string, since: Date): Promise<void> {
  await eventually(() => syncsOf(table).length === 1);
  await eventually(async () => {
    const index = await indexOf(table);
    return index.status === 'current' && index.indexed_at !== null && new Date(index.indexed_at) >= since;
  });
}

describe('POST|GET /api/v1/data/{uuid}/fields (the spec’s envelopes)', () => {
  it('adds a column at the end; existing records read null for it until written', async () => {
    const table = await createTable(kit.api, { name: 'text' });
    const [record] = await createRecords(kit.api, table.uuid, [{ name: 'Widget' }]);
    const res = await kit.api.post(`/api/v1/data/${table.uuid}/fields`).send({ name: 'price', data_type: 'number' }).expect(201);
    expect(res.body).toEqual({
      success: true,
      message: 'Field added',
      data: { data_uuid: table.uuid, field: { uuid: expect.stringMatching(UUID), name: 'price', data_type: 'number' } },
    });
    const fields = await kit.api.get(`/api/v1/data/${table.uuid}/fields`).expect(200);
    expect(fields.body).toEqual({
      success: true,
      message: 'Fields',
      data: {
        data_uuid: table.uuid,
        fields: [
          { uuid: table.columns.name, name: 'name', data_type: 'text' },
          { uuid: res.body.data.field.uuid, name: 'price', data_type: 'number' },
        ],
      },
    });
    const read = await kit.api.get(`/api/v1/data/${table.uuid}/records/${record.uuid}`).expect(200);
    expect(read.body.data.values).toEqual({ name: 'Widget', price: null });
    // Nothing was rewritten: the stored record has no value for the new column.
    expect((await storedRecords(kit, table.uuid))[0].values).toEqual({ c1: 'Widget' });
    await kit.api.put(`/api/v1/data/${table.uuid}/records/${record.uuid}`).send({ values: { price: 3 } }).expect(200);
    expect(await indexStatus(table.uuid)).toBe('current');
  });

  it('refuses a type outside the six and a name the table has (case-insensitive)', async () => {
    const table = await createTable(kit.api, { name: 'text' });
    const type = await kit.api.post(`/api/v1/data/${table.uuid}/fields`).send({ name: 'cost', data_type: 'currency' }).expect(422);
    expect(type.body.errors).toEqual({ data_type: ['must be one of: text, number, date, boolean, json, url'] });
    const name = await kit.api.post(`/api/v1/data/${table.uuid}/fields`).send({ name: ' NAME ', data_type: 'text' }).expect(422);
    expect(name.body.errors).toEqual({ name: ['a column named "NAME" already exists'] });
    await kit.api.post(`/api/v1/data/${table.uuid}/fields`).send({ name: 'x' }).expect(422);
    expect((await kit.api.get(`/api/v1/data/${table.uuid}/fields`).expect(200)).body.data.fields).toHaveLength(1);
  });

  it('answers an unknown table with 404 {success: false, message: "Data not found", data: [string]}', async () => {
    await expectTableNotFound(kit.api.get(`/api/v1/data/${MISSING}/fields`), MISSING);
    await expectTableNotFound(kit.api.post(`/api/v1/data/${MISSING}/fields`).send({ name: 'x', data_type: 'text' }), MISSING);
  });

  it('hands out storage keys under the table lock: concurrent additions all land, with distinct keys', async () => {
    const table = await createTable(kit.api, {});
    const names = Array.from({ length: 8 }, (_, i) => `col${i}`);
    await Promise.all(names.map((name) => kit.api.post(`/api/v1/data/${table.uuid}/fields`).send({ name, data_type: 'text' }).expect(201)));
    const keys: Array<{ key: string }> = await kit.kernel.orm.em.fork().getConnection().execute('select key from data_table_columns where table_uuid = ?', [table.uuid]);
    expect(new Set(keys.map((row) => row.key)).size).toBe(8);
  });
});

describe('PATCH|DELETE /api/v1/data/{uuid}/fields/{field}', () => {
  it('renames a column: values are kept under the new name, the index turns stale and a sync is queued', async () => {
    const table = await createTable(kit.api, { name: 'text', price: 'number' });
    const [record] = await createRecords(kit.api, table.uuid, [{ name: 'Widget', price: 2 }]);
    const renamedAt = new Date();
    const res = await kit.api.patch(`/api/v1/data/${table.uuid}/fields/${table.columns.price}`).send({ name: 'cost' }).expect(200);
    expect(res.body).toEqual({ success: true, message: 'Field renamed', data: { data_uuid: table.uuid, field: { uuid: table.columns.price, name: 'cost', data_type: 'number' } } });
    const read = await kit.api.get(`/api/v1/data/${table.uuid}/records/${record.uuid}`).expect(200);
    expect(read.body.data.values).toEqual({ name: 'Widget', cost: 2 });
    await expectReindexedAfter(table.uuid, renamedAt);
    // Filters name it by its new name.
    const found = await kit.api.get(`/api/v1/data/${table.uuid}/records?filter[column]=cost&filter[operator]=eq&filter[value]=2`).expect(200);
    expect(found.body.data.pagination.total).toBe(1);
  });

  it('refuses a name another column has, and answers 404 for an unknown column or table', async () => {
    const table = await createTable(kit.api, { name: 'text', price: 'number' });
    const taken = await kit.api.patch(`/api/v1/data/${table.uuid}/fields/${table.columns.price}`).send({ name: 'Name' }).expect(422);
    expect(taken.body.errors).toEqual({ name: ['a column named "Name" already exists'] });
    // A change of case of its own name is a rename, not a clash.
    await kit.api.patch(`/api/v1/data/${table.uuid}/fields/${table.columns.price}`).send({ name: 'Price' }).expect(200);
    await kit.api.patch(`/api/v1/data/${table.uuid}/fields/${MISSING}`).send({ name: 'x' }).expect(404, { success: false, message: 'Field not found', data: [] });
    await kit.api.delete(`/api/v1/data/${table.uuid}/fields/${MISSING}`).expect(404, { success: false, message: 'Field not found', data: [] });
    const other = await createTable(kit.api, { name: 'text' });
    await kit.api.delete(`/api/v1/data/${table.uuid}/fields/${other.columns.name}`).expect(404);
    await expectTableNotFound(kit.api.patch(`/api/v1/data/${MISSING}/fields/${table.columns.name}`).send({ name: 'x' }), MISSING);
  });

  it('deletes a column: record views drop it, filters cannot name it, and a new column of that name starts empty', async () => {
    const table = await createTable(kit.api, { name: 'text', price: 'number' });
    const [record] = await createRecords(kit.api, table.uuid, [{ name: 'Widget', price: 2 }]);
    const deletedAt = new Date();
    await kit.api.delete(`/api/v1/data/${table.uuid}/fields/${table.columns.price}`).expect(200, { success: true, message: 'Field deleted', data: { deleted: true } });
    expect((await kit.api.get(`/api/v1/data/${table.uuid}/records/${record.uuid}`).expect(200)).body.data.values).toEqual({ name: 'Widget' });
    await expectReindexedAfter(table.uuid, deletedAt);
    const res = await kit.api.get(`/api/v1/data/${table.uuid}/records?filter[column]=price&filter[operator]=eq&filter[value]=2`).expect(422);
    expect(res.body.errors).toEqual({ 'filter.column': ['is not a column of this table'] });

    await kit.api.post(`/api/v1/data/${table.uuid}/fields`).send({ name: 'price', data_type: 'number' }).expect(201);
    expect((await kit.api.get(`/api/v1/data/${table.uuid}/records/${record.uuid}`).expect(200)).body.data.values).toEqual({ name: 'Widget', price: null });
  });
});
