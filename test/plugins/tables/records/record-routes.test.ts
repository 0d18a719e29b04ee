import { startTestKernel, type TestKernel } from '../../../../core/testing';
import { AGENTS, TABLES, createTable, expectTableNotFound, storedRecords, type CreatedTable } from './record-test-helpers';

let kit: TestKernel;
let table: CreatedTable;
beforeAll(async () => {
  kit = await startTestKernel({ plugins: [AGENTS, TABLES] });
  table = await createTable(kit.api, { name: 'text', price: 'number', released: 'date', in_stock: 'boolean', meta: 'json', page: 'url' });
});
afterAll(() => kit?.stop());

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const MISSING = '01960000-0000-7000-8000-00000000dead';
const EMPTY = { name: null, price: null, released: null, in_stock: null, meta: null, page: null };
const create = (values: unknown) => kit.api.post(`/api/v1/data/${table.uuid}/records`).send({ values });
/** The 422 errors of creating a record with these values. */
const problemsOf = async (values: unknown) => (await create(values).expect(422)).body.errors;

describe('POST /api/v1/data/{uuid}/records: one record', () => {
  it('creates a record; columns left out are empty; the answer shows every column by name, in column order', async () => {
    const res = await create({ price: 9.5, name: 'Widget' }).expect(201);
    expect(res.body).toEqual({
      data: {
        uuid: expect.stringMatching(/^[0-9a-f-]{36}$/),
        table_uuid: table.uuid,
        values: { ...EMPTY, name: 'Widget', price: 9.5 },
        created_at: expect.stringMatching(ISO),
        updated_at: expect.stringMatching(ISO),
      },
    });
    expect(Object.keys(res.body.data.values)).toEqual(['name', 'price', 'released', 'in_stock', 'meta', 'page']);
    await kit.api.get(`/api/v1/data/${table.uuid}/records/${res.body.data.uuid}`).expect(200, res.body);
  });

  it('addresses values by column id or by name (case-insensitive), as an object or as a [{column_id | column_name, value}] list', async () => {
    const byId = await create({ [table.columns.name]: 'By id', [table.columns.price]: 1 }).expect(201);
    expect(byId.body.data.values).toMatchObject({ name: 'By id', price: 1 });
    const byName = await create({ NAME: 'By name', Price: 2 }).expect(201);
    expect(byName.body.data.values).toMatchObject({ name: 'By name', price: 2 });
    const list = await create([
      { column_id: table.columns.name, value: 'Listed' },
      { column_name: 'PRICE', value: 3 },
    ]).expect(201);
    expect(list.body.data.values).toMatchObject({ name: 'Listed', price: 3 });
  });

  it('stores and shows values of columns named like Object.prototype members', async () => {
    const odd = await createTable(kit.api, JSON.parse('{"__proto__": "text", "constructor": "number"}'), 'Odd names');
    // JSON.parse: an object literal would read `__proto__` as the prototype.
    const values = JSON.parse('{"__proto__": "kept", "constructor": 7}');
    const res = await kit.api.post(`/api/v1/data/${odd.uuid}/records`).send({ values }).expect(201);
    expect(res.body.data.values).toEqual(values);
    await kit.api.get(`/api/v1/data/${odd.uuid}/records/${res.body.data.uuid}`).expect(200, res.body);
  });

  it('refuses unknown columns and badly addressed values at their paths', async () => {
    expect(await problemsOf({ colour: 'red', name: 'x' })).toEqual({ 'values.colour': ['is not a column of this table'] });
    expect(await problemsOf([{ column_id: MISSING, value: 1 }, { column_name: 'weight', value: 2 }])).toEqual({
      'values.0.column_id': ['is not a column of this table'],
      'values.1.column_name': ['is not a column of this table'],
    });
    expect(await problemsOf([{ column_id: table.columns.name, column_name: 'name', value: 'x' }, { value: 2 }])).toEqual({
      'values.0': ['must name its column by column_id or by column_name (one of them)'],
      'values.1': ['must name its column by column_id or by column_name (one of them)'],
    });
    expect(await problemsOf({ name: 'a', NAME: 'b' })).toEqual({ 'values.NAME': ['names the column "name" a second time'] });
    expect((await problemsOf([{ column_name: 'name', value: 'x', extra: 1 }]))['values.0.extra']).toEqual(['is not allowed']);
  });

  it('needs values or records, not both', async () => {
    const neither = await kit.api.post(`/api/v1/data/${table.uuid}/records`).send({}).expect(422);
    expect(neither.body.errors).toEqual({ values: [expect.stringContaining('either values')] });
    await kit.api.post(`/api/v1/data/${table.uuid}/records`).send({ values: {}, records: [{ values: {} }] }).expect(422);
  });

  it('answers 404 with the spec’s body for an unknown table, and writes nothing there', async () => {
    await expectTableNotFound(kit.api.post(`/api/v1/data/${MISSING}/records`).send({ values: { name: 'x' } }), MISSING);
    const other = await kit.createTenant();
    const theirs = await createTable(other.api, { name: 'text' });
    await expectTableNotFound(kit.api.post(`/api/v1/data/${theirs.uuid}/records`).send({ values: { name: 'x' } }), theirs.uuid);
    expect(await storedRecords(kit, theirs.uuid)).toEqual([]);
  });
});

describe('typed values: every value is checked against its column’s type (422 at values.<column name>)', () => {
  it('text: strings only', async () => {
    expect(await problemsOf({ name: 12 })).toEqual({ 'values.name': ['must be a string'] });
    expect(await problemsOf({ name: ['a'] })).toEqual({ 'values.name': ['must be a string'] });
  });

  it('number: finite JSON numbers only (not numeric strings, not 1e400)', async () => {
    expect((await create({ price: -0.25 }).expect(201)).body.data.values.price).toBe(-0.25);
    expect(await problemsOf({ price: '12' })).toEqual({ 'values.price': ['must be a finite number'] });
    expect(await problemsOf({ price: true })).toEqual({ 'values.price': ['must be a finite number'] });
    // JSON.parse reads 1e400 as Infinity: sent as raw JSON text to reach the server as such.
    const res = await kit.api.post(`/api/v1/data/${table.uuid}/records`).set('Content-Type', 'application/json').send('{"values":{"price":1e400}}').expect(422);
    expect(res.body.errors).toEqual({ 'values.price': ['must be a finite number'] });
  });

  it('date: ISO 8601 dates and date-times, normalised; days that do not exist and other formats are refused', async () => {
    const date = async (released: string) => (await create({ released }).expect(201)).body.data.values.released;
    expect(await date('2024-02-29')).toBe('2024-02-29');
    expect(await date('2024-02-03T10:00:00+02:00')).toBe('2024-02-03T08:00:00.000Z');
    expect(await date('2024-02-03T10:00')).toBe('2024-02-03T10:00:00.000Z');
    expect(await date('2024-02-03 10:00:30.5Z')).toBe('2024-02-03T10:00:30.500Z');
    for (const bad of ['2023-02-29', '2024-04-31', '2024-13-01', '2024-02-03T25:00:00Z', '03/02/2024', 'yesterday', '2024-2-3']) {
      expect(await problemsOf({ released: bad })).toEqual({ 'values.released': ['must be an ISO 8601 date or date-time'] });
    }
    expect(await problemsOf({ released: 20240203 })).toEqual({ 'values.released': ['must be an ISO 8601 date or date-time'] });
  });

  it('boolean: true or false only', async () => {
    expect((await create({ in_stock: false }).expect(201)).body.data.values.in_stock).toBe(false);
    for (const bad of ['true', 1, 'yes']) expect(await problemsOf({ in_stock: bad })).toEqual({ 'values.in_stock': ['must be true or false'] });
  });

  it('url: http and https URLs only', async () => {
    expect((await create({ page: 'https://example.com/a?b=1#c' }).expect(201)).body.data.values.page).toBe('https://example.com/a?b=1#c');
    expect((await create({ page: 'HTTP://example.com' }).expect(201)).body.data.values.page).toBe('HTTP://example.com');
    for (const bad of ['ftp://example.com/file', 'javascript:alert(1)', 'example.com', 'https://', 'mailto:a@example.com', 42]) {
      expect(await problemsOf({ page: bad })).toEqual({ 'values.page': ['must be an http(s) URL'] });
    }
  });

  it('json: any JSON value, kept as sent', async () => {
    const meta = { tags: ['a', 'b'], size: { w: 1, h: 2 }, ok: true };
    expect((await create({ meta }).expect(201)).body.data.values.meta).toEqual(meta);
    expect((await create({ meta: 'plain' }).expect(201)).body.data.values.meta).toBe('plain');
  });

  it('names every problem of a request at once', async () => {
    expect(await problemsOf({ name: 1, price: 'x', released: 'soon', in_stock: 'no', page: 'nope', colour: 'red' })).toEqual({
      'values.name': ['must be a string'],
      'values.price': ['must be a finite number'],
      'values.released': ['must be an ISO 8601 date or date-time'],
      'values.in_stock': ['must be true or false'],
      'values.page': ['must be an http(s) URL'],
      'values.colour': ['is not a column of this table'],
    });
  });
});

describe('GET|PUT|DELETE /api/v1/data/{uuid}/records/{record}', () => {
  it('changes the values given and keeps the others; null empties a cell; what was read can be sent back', async () => {
    const created = (await create({ name: 'Widget', price: 9.5, in_stock: true }).expect(201)).body.data;
    const changed = (await kit.api.put(`/api/v1/data/${table.uuid}/records/${created.uuid}`).send({ values: { price: 12, in_stock: null } }).expect(200)).body.data;
    expect(changed).toEqual({ ...created, values: { ...EMPTY, name: 'Widget', price: 12 }, updated_at: expect.stringMatching(ISO) });
    expect(changed.updated_at > created.updated_at).toBe(true);
    const [stored] = (await storedRecords(kit, table.uuid)).filter((row) => row.uuid === created.uuid);
    expect(stored.values).toEqual({ c1: 'Widget', c2: 12 });

    const sentBack = (await kit.api.put(`/api/v1/data/${table.uuid}/records/${created.uuid}`).send({ ...changed, values: { ...changed.values, name: 'Gadget' } }).expect(200)).body.data;
    expect(sentBack.values).toEqual({ ...EMPTY, name: 'Gadget', price: 12 });
    const byList = (await kit.api.put(`/api/v1/data/${table.uuid}/records/${created.uuid}`).send({ values: [{ column_id: table.columns.price, value: 13 }] }).expect(200)).body.data;
    expect(byList.values.price).toBe(13);
    await kit.api.get(`/api/v1/data/${table.uuid}/records/${created.uuid}`).expect(200, { data: byList });
  });

  it('checks new values like new records, and writes nothing on a 422', async () => {
    const created = (await create({ name: 'Widget', price: 1 }).expect(201)).body.data;
    const res = await kit.api.put(`/api/v1/data/${table.uuid}/records/${created.uuid}`).send({ values: { name: 'Gadget', price: 'free' } }).expect(422);
    expect(res.body.errors).toEqual({ 'values.price': ['must be a finite number'] });
    await kit.api.get(`/api/v1/data/${table.uuid}/records/${created.uuid}`).expect(200, { data: created });
  });

  it('deletes a record', async () => {
    const created = (await create({ name: 'Doomed' }).expect(201)).body.data;
    await kit.api.delete(`/api/v1/data/${table.uuid}/records/${created.uuid}`).expect(200, { success: true, message: 'Record deleted', data: { deleted: true } });
    await kit.api.get(`/api/v1/data/${table.uuid}/records/${created.uuid}`).expect(404);
    expect((await storedRecords(kit, table.uuid)).some((row) => row.uuid === created.uuid)).toBe(false);
  });

  it('answers 404 for an unknown record, a record of another table, and an unknown table', async () => {
    const recordNotFound = { success: false, message: 'Record not found', data: [] };
    await kit.api.get(`/api/v1/data/${table.uuid}/records/${MISSING}`).expect(404, recordNotFound);
    await kit.api.put(`/api/v1/data/${table.uuid}/records/${MISSING}`).send({ values: { name: 'x' } }).expect(404, recordNotFound);
    await kit.api.delete(`/api/v1/data/${table.uuid}/records/${MISSING}`).expect(404, recordNotFound);
    const elsewhere = await createTable(kit.api, { name: 'text' }, 'Elsewhere');
    const theirs = (await kit.api.post(`/api/v1/data/${elsewhere.uuid}/records`).send({ values: { name: 'x' } }).expect(201)).body.data;
    await kit.api.get(`/api/v1/data/${table.uuid}/records/${theirs.uuid}`).expect(404, recordNotFound);
    await kit.api.delete(`/api/v1/data/${table.uuid}/records/${theirs.uuid}`).expect(404, recordNotFound);
    await expectTableNotFound(kit.api.get(`/api/v1/data/${MISSING}/records/${theirs.uuid}`), MISSING);
    await expectTableNotFound(kit.api.put(`/api/v1/data/${MISSING}/records/${theirs.uuid}`).send({ values: {} }), MISSING);
    await expectTableNotFound(kit.api.delete(`/api/v1/data/${MISSING}/records/${theirs.uuid}`), MISSING);
    await expectTableNotFound(kit.api.get(`/api/v1/data/${MISSING}/records`), MISSING);
    await kit.api.get(`/api/v1/data/${table.uuid}/records/not-a-uuid`).expect(422);
  });
});
