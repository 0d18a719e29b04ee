import { startTestKernel, type TestKernel } from '../../../../core/testing';
import { AGENTS, TABLES, createRecords, createTable, expectTableNotFound, statementsDuring, storedRecords } from './record-test-helpers';

let kit: TestKernel;
beforeAll(async () => {
  kit = await startTestKernel({ plugins: [AGENTS, TABLES] });
});
afterAll(() => kit?.stop());

const MISSING = '01960000-0000-7000-8000-00000000dead';
const rows = (n: number) => Array.from({ length: n }, (_, i) => ({ values: { name: `Item ${i}`, price: i } }));

describe('POST /api/v1/data/{uuid}/records with records: bulk create', () => {
  it('creates 1,000 records in one request, with one insert statement, in the order given', async () => {
    const table = await createTable(kit.api, { name: 'text', price: 'number' });
    let res: any;
    const statements = await statementsDuring(kit, async () => {
      res = await kit.api.post(`/api/v1/data/${table.uuid}/records`).send({ records: rows(1000) }).expect(201);
    });
    expect(res.body.data.count).toBe(1000);
    expect(res.body.data.items).toHaveLength(1000);
    expect(res.body.data.items[999]).toMatchObject({ table_uuid: table.uuid, values: { name: 'Item 999', price: 999 } });
    expect(statements.filter((sql) => sql.startsWith('insert into data_table_records'))).toHaveLength(1);
    const list = (await kit.api.get(`/api/v1/data/${table.uuid}/records?per_page=100&page=10`).expect(200)).body.data;
    expect(list.pagination.total).toBe(1000);
    // Creation order is the order of the request.
    expect(list.items.map((r: any) => r.values.price)).toEqual(Array.from({ length: 100 }, (_, i) => 900 + i));
    expect((await kit.api.get(`/api/v1/data/${table.uuid}`).expect(200)).body.data.record_count).toBe(1000);
  });

  it('refuses 1,001 records and an empty list', async () => {
    const table = await createTable(kit.api, { name: 'text', price: 'number' });
    const res = await kit.api.post(`/api/v1/data/${table.uuid}/records`).send({ records: rows(1001) }).expect(422);
    expect(res.body.errors).toEqual({ records: ['must NOT have more than 1000 items'] });
    await kit.api.post(`/api/v1/data/${table.uuid}/records`).send({ records: [] }).expect(422);
    expect(await storedRecords(kit, table.uuid)).toEqual([]);
  });

  it('writes nothing when one row is bad, and names each bad value by its row', async () => {
    const table = await createTable(kit.api, { name: 'text', price: 'number' });
    const records = rows(600);
    records[500] = { values: { name: 'Bad', price: 'lots' as unknown as number } };
    records[7] = { values: { name: 'Worse', colour: 'red' } as any };
    const res = await kit.api.post(`/api/v1/data/${table.uuid}/records`).send({ records }).expect(422);
    expect(res.body.errors).toEqual({ 'records.500.values.price': ['must be a finite number'], 'records.7.values.colour': ['is not a column of this table'] });
    expect(await storedRecords(kit, table.uuid)).toEqual([]);
  });

  it('takes both forms of values in one request', async () => {
    const table = await createTable(kit.api, { name: 'text', price: 'number' });
    const res = await kit.api
      .post(`/api/v1/data/${table.uuid}/records`)
      .send({ records: [{ values: { [table.columns.name]: 'By id' } }, { values: [{ column_name: 'price', value: 4 }] }] })
      .expect(201);
    expect(res.body.data.items.map((r: any) => r.values)).toEqual([
      { name: 'By id', price: null },
      { name: null, price: 4 },
    ]);
  });
});

describe('PUT /api/v1/data/{uuid}/records: bulk update', () => {
  it('changes each record’s given values, keeps the rest, and answers them in the order given', async () => {
    const table = await createTable(kit.api, { name: 'text', price: 'number' });
    const [a, b, c] = await createRecords(kit.api, table.uuid, [{ name: 'A', price: 1 }, { name: 'B', price: 2 }, { name: 'C', price: 3 }]);
    const res = await kit.api
      .put(`/api/v1/data/${table.uuid}/records`)
      .send({ records: [{ uuid: c.uuid, values: { price: 30 } }, { uuid: a.uuid, values: [{ column_name: 'name', value: 'AA' }] }] })
      .expect(200);
    expect(res.body.data.count).toBe(2);
    expect(res.body.data.items.map((r: any) => [r.uuid, r.values])).toEqual([
      [c.uuid, { name: 'C', price: 30 }],
      [a.uuid, { name: 'AA', price: 1 }],
    ]);
    expect((await kit.api.get(`/api/v1/data/${table.uuid}/records/${b.uuid}`).expect(200)).body.data.values).toEqual({ name: 'B', price: 2 });
  });

  it('updates 1,000 records in one request, with one update statement; what was listed can be sent back', async () => {
    const table = await createTable(kit.api, { name: 'text', price: 'number' });
    const created = (await kit.api.post(`/api/v1/data/${table.uuid}/records`).send({ records: rows(1000) }).expect(201)).body.data.items;
    let res: any;
    const statements = await statementsDuring(kit, async () => {
      res = await kit.api
        .put(`/api/v1/data/${table.uuid}/records`)
        .send({ records: created.map((record: any) => ({ ...record, values: { price: record.values.price * 2 } })) })
        .expect(200);
    });
    expect(res.body.data.count).toBe(1000);
    expect(statements.filter((sql) => sql.startsWith('update data_table_records'))).toHaveLength(1);
    const stored = await storedRecords(kit, table.uuid);
    expect(stored.map((row) => row.values.c2)).toEqual(Array.from({ length: 1000 }, (_, i) => i * 2));
  });

  it('refuses unknown, foreign and repeated uuids and bad values at their paths, and writes nothing', async () => {
    const table = await createTable(kit.api, { name: 'text', price: 'number' });
    const other = await createTable(kit.api, { name: 'text' });
    const [a] = await createRecords(kit.api, table.uuid, [{ name: 'A', price: 1 }]);
    const [foreign] = await createRecords(kit.api, other.uuid, [{ name: 'F' }]);
    const res = await kit.api
      .put(`/api/v1/data/${table.uuid}/records`)
      .send({
        records: [
          { uuid: a.uuid, values: { price: 5 } },
          { uuid: MISSING, values: { price: 6 } },
          { uuid: foreign.uuid, values: { name: 'x' } },
          { uuid: a.uuid, values: { price: 'seven' } },
        ],
      })
      .expect(422);
    expect(res.body.errors).toEqual({
      'records.1.uuid': ['is not a record of this table'],
      'records.2.uuid': ['is not a record of this table'],
      'records.3.uuid': ['names a record a second time'],
      'records.3.values.price': ['must be a finite number'],
    });
    expect((await kit.api.get(`/api/v1/data/${table.uuid}/records/${a.uuid}`).expect(200)).body.data.values.price).toBe(1);
    await kit.api.put(`/api/v1/data/${table.uuid}/records`).send({ records: Array.from({ length: 1001 }, () => ({ uuid: a.uuid, values: {} })) }).expect(422);
    await expectTableNotFound(kit.api.put(`/api/v1/data/${MISSING}/records`).send({ records: [{ uuid: a.uuid, values: {} }] }), MISSING);
  });
});

describe('DELETE /api/v1/data/{uuid}/records: bulk delete', () => {
  it('deletes the records named and answers how many', async () => {
    const table = await createTable(kit.api, { name: 'text' });
    const [a, b, c] = await createRecords(kit.api, table.uuid, [{ name: 'A' }, { name: 'B' }, { name: 'C' }]);
    const res = await kit.api.delete(`/api/v1/data/${table.uuid}/records`).send({ uuids: [a.uuid, c.uuid] }).expect(200);
    expect(res.body).toEqual({ success: true, message: 'Records deleted', data: { deleted: 2 } });
    expect((await storedRecords(kit, table.uuid)).map((row) => row.uuid)).toEqual([b.uuid]);
  });

  it('deletes 1,000 at once; refuses 1,001, none, and unknown uuids (deleting nothing)', async () => {
    const table = await createTable(kit.api, { name: 'text', price: 'number' });
    const created = (await kit.api.post(`/api/v1/data/${table.uuid}/records`).send({ records: rows(1000) }).expect(201)).body.data.items;
    const uuids = created.map((record: any) => record.uuid);
    await kit.api.delete(`/api/v1/data/${table.uuid}/records`).send({ uuids: [...uuids, uuids[0]] }).expect(422);
    await kit.api.delete(`/api/v1/data/${table.uuid}/records`).send({ uuids: [] }).expect(422);
    const unknown = await kit.api.delete(`/api/v1/data/${table.uuid}/records`).send({ uuids: [uuids[0], MISSING] }).expect(422);
    expect(unknown.body.errors).toEqual({ 'uuids.1': ['is not a record of this table'] });
    expect(await storedRecords(kit, table.uuid)).toHaveLength(1000);
    const res = await kit.api.delete(`/api/v1/data/${table.uuid}/records`).send({ uuids }).expect(200);
    expect(res.body.data.deleted).toBe(1000);
    expect(await storedRecords(kit, table.uuid)).toEqual([]);
  });
});
