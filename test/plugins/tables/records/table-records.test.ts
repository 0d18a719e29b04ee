import { Type, coreServices, defineRoute, definePlugin } from '../../../../core';
import { startTestKernel, type TestKernel } from '../../../../core/testing';
import { tableRecordsRef, type TableRecords } from '../../../../plugins/tables';
import { createTableRecords } from '../../../../plugins/tables/records/create-table-records';
import { RecordStore } from '../../../../plugins/tables/records/record-store';
import { AGENTS, TABLES, createRecords, createTable, expectTableNotFound, statementsDuring, type CreatedTable } from './record-test-helpers';

/** What the indexer was asked to do, through a TableRecords built on a store with a recording indexer. */
const indexed: { refreshed: Array<{ table: string; uuids: string[] }>; removed: string[][] } = { refreshed: [], removed: [] };

/**
 * Calls TableRecords the way another plugin does, inside a write request's transaction:
 * `POST /api/v1/probe/table-records {op, args}` answers `{data: <result>}`. `/recorded`
 * does the same through a store whose indexer records its calls.
 */
const caller = definePlugin({
  id: 'table-records-probe',
  dependsOn: ['tables'],
  deps: { http: coreServices.http, records: tableRecordsRef, orm: coreServices.orm, bus: coreServices.bus },
  init({ http, records, orm, bus }) {
    const recorded = createTableRecords(
      orm,
      new RecordStore(bus, {
        refresh: async (_em, table, uuids) => void indexed.refreshed.push({ table, uuids: [...uuids] }),
        remove: async (_em, uuids) => void indexed.removed.push([...uuids]),
      }),
    );
    for (const [path, service] of [
      ['/api/v1/probe/table-records', records],
      ['/api/v1/probe/table-records/recorded', recorded],
    ] as const) {
      http.route(
        defineRoute({
          method: 'POST',
          path,
          summary: 'Calls TableRecords',
          body: Type.Object({ op: Type.String(), args: Type.Array(Type.Unknown()) }, { additionalProperties: false }),
          handler: async ({ body }) => ({ data: (await (service as any)[body.op](...body.args)) ?? null }),
        }),
      );
    }
  },
});

let kit: TestKernel;
let table: CreatedTable;
beforeAll(async () => {
  kit = await startTestKernel({ plugins: [AGENTS, TABLES, caller] });
  table = await createTable(kit.api, { name: 'text', category: 'text', price: 'number', released: 'date', in_stock: 'boolean', meta: 'json' }, 'Catalogue');
  await createRecords(kit.api, table.uuid, [
    { name: 'Widget', category: 'tools', price: 9, released: '2024-01-15', in_stock: true },
    { name: 'Gadget', category: 'toys', price: 10, released: '2024-03-01T12:00:00Z', in_stock: false },
    { name: 'Gizmo', category: 'tools', price: 100, released: '2023-12-31', in_stock: true },
    { name: 'Doohickey', category: null, price: -5.5 },
  ]);
});
afterAll(() => kit?.stop());

type Op = keyof TableRecords;
const call = (op: Op, ...args: unknown[]) => kit.api.post('/api/v1/probe/table-records').send({ op, args });
const result = async (op: Op, ...args: unknown[]) => (await call(op, ...args).expect(200)).body.data;
const problems = async (op: Op, ...args: unknown[]) => (await call(op, ...args).expect(422)).body.errors;
const MISSING = '01960000-0000-7000-8000-00000000dead';

describe('TableRecords: tables', () => {
  it('lists tables by name, searched (case-insensitive) and paged', async () => {
    const tenant = await kit.createTenant();
    for (const name of ['Cherries', 'Apples', 'Apple pies']) await createTable(tenant.api, {}, name);
    const api = (op: Op, ...args: unknown[]) => tenant.api.post('/api/v1/probe/table-records').send({ op, args }).expect(200);
    const all = (await api('listTables')).body.data;
    expect(all.items.map((t: any) => t.name)).toEqual(['Apple pies', 'Apples', 'Cherries']);
    expect(all.total).toBe(3);
    const searched = (await api('listTables', { search: 'APPLE', limit: 1, offset: 1 })).body.data;
    expect(searched).toEqual({ items: [{ uuid: expect.any(String), name: 'Apples' }], total: 2 });
  });

  it('outlines a table with its columns; null for an unknown table or a text that is no uuid', async () => {
    const outline = await result('outline', table.uuid);
    expect(outline).toEqual({
      uuid: table.uuid,
      name: 'Catalogue',
      columns: ['name', 'category', 'price', 'released', 'in_stock', 'meta'].map((name) => ({ uuid: table.columns[name], name, data_type: expect.any(String) })),
    });
    expect(await result('outline', MISSING)).toBeNull();
    expect(await result('outline', 'not a uuid')).toBeNull();
  });
});

describe('TableRecords: writes', () => {
  it('inserts, updates and deletes, with values by column uuid or name; text from templates is read as the column’s type', async () => {
    const scratch = await createTable(kit.api, { name: 'text', price: 'number', released: 'date', in_stock: 'boolean' });
    const record = await result('insert', scratch.uuid, { name: 'Widget', [scratch.columns.price]: '12.5', released: '2024-02-03', in_stock: 'yes' });
    expect(record.values).toEqual({ name: 'Widget', price: 12.5, released: '2024-02-03', in_stock: true });
    const updated = await result('update', scratch.uuid, record.uuid, { price: '', NAME: 'Gadget' });
    expect(updated.values).toEqual({ name: 'Gadget', price: null, released: '2024-02-03', in_stock: true });
    expect(await result('update', scratch.uuid, MISSING, { name: 'x' })).toBeNull();
    expect(await result('update', scratch.uuid, 'nope', { name: 'x' })).toBeNull();
    expect(await result('delete', scratch.uuid, record.uuid)).toBe(true);
    expect(await result('delete', scratch.uuid, record.uuid)).toBe(false);
    expect(await result('delete', scratch.uuid, 'nope')).toBe(false);
  });

  it('refuses values that do not fit, at values.<column name>, and an unknown table with TableNotFoundError', async () => {
    expect(await problems('insert', table.uuid, { price: 'ten', in_stock: 'maybe', colour: 'red' })).toEqual({
      'values.price': ['"ten" is not a number'],
      'values.in_stock': ['"maybe" is not true or false'],
      'values.colour': ['is not a column of this table'],
    });
    expect(await problems('insert', table.uuid, 'name=Widget')).toEqual({ values: [expect.stringContaining('must be an object')] });
    await expectTableNotFound(call('insert', MISSING, { name: 'x' }), MISSING);
    await expectTableNotFound(call('find', 'not a uuid'), 'not a uuid');
  });

  it('keeps the search index current: refresh for what it wrote, remove for what it deleted', async () => {
    const scratch = await createTable(kit.api, { name: 'text' });
    const recorded = (op: Op, ...args: unknown[]) => kit.api.post('/api/v1/probe/table-records/recorded').send({ op, args }).expect(200);
    const record = (await recorded('insert', scratch.uuid, { name: 'a' })).body.data;
    await recorded('update', scratch.uuid, record.uuid, { name: 'b' });
    await recorded('update', scratch.uuid, record.uuid, { name: 'b' });
    await recorded('delete', scratch.uuid, record.uuid);
    expect(indexed).toEqual({
      refreshed: [
        { table: scratch.uuid, uuids: [record.uuid] },
        { table: scratch.uuid, uuids: [record.uuid] },
      ],
      removed: [[record.uuid]],
    });
  });
});

describe('TableRecords: find', () => {
  const namesOf = (found: { items: Array<{ values: { name: string } }> }) => found.items.map((r) => r.values.name);

  it('filters by column uuid or name, with typed values or their text, and sorts by several columns', async () => {
    const found = await result('find', table.uuid, {
      filters: [
        { column: table.columns.price, operator: 'gt', value: 0 },
        { column: 'in_stock', operator: 'eq', value: true },
      ],
    });
    expect(namesOf(found)).toEqual(['Widget', 'Gizmo']);
    expect(found.total).toBe(2);
    expect(namesOf(await result('find', table.uuid, { filters: [{ column: 'price', operator: 'lte', value: '10' }] }))).toEqual(['Widget', 'Gadget', 'Doohickey']);
    expect(namesOf(await result('find', table.uuid, { filters: [{ column: 'price', operator: 'in', value: [9, '100'] }] }))).toEqual(['Widget', 'Gizmo']);
    expect(namesOf(await result('find', table.uuid, { filters: [{ column: 'category', operator: 'is_empty' }] }))).toEqual(['Doohickey']);
    const sorted = await result('find', table.uuid, {
      sort: [
        { column: 'category', direction: 'asc' },
        { column: 'price', direction: 'desc' },
      ],
      limit: 3,
      offset: 0,
    });
    expect(namesOf(sorted)).toEqual(['Gizmo', 'Widget', 'Gadget']);
    expect(sorted.total).toBe(4);
    expect(namesOf(await result('find', table.uuid, { sort: [{ column: 'price', direction: 'asc' }], limit: 2, offset: 1 }))).toEqual(['Widget', 'Gadget']);
  });

  it('refuses bad filters, sorts and windows at their paths', async () => {
    expect(
      await problems('find', table.uuid, {
        filters: [
          { column: 'colour', operator: 'eq', value: 'x' },
          { column: 'price', operator: 'contains', value: '1' },
          { column: 'price', operator: 'gt', value: 'lots' },
        ],
        sort: [{ column: 'size', direction: 'asc' }],
      }),
    ).toEqual({
      'filters.0.column': ['is not a column of this table'],
      'filters.1.operator': [expect.stringContaining('does not apply to the number column "price"')],
      'filters.2.value': ['"lots" is not a number'],
      'sort.0.column': ['is not a column of this table'],
    });
    expect(await problems('find', table.uuid, { limit: 1001, offset: -1 })).toEqual({ limit: ['must be an integer from 1 to 1000'], offset: ['must be an integer of at least 0'] });
  });
});

describe('TableRecords: aggregate', () => {
  it('counts records, or a column’s non-empty cells; sums and averages numbers', async () => {
    expect(await result('aggregate', table.uuid, { aggregate: 'count' })).toEqual({ value: 4 });
    expect(await result('aggregate', table.uuid, { aggregate: 'count', column: 'category' })).toEqual({ value: 3 });
    expect(await result('aggregate', table.uuid, { aggregate: 'sum', column: 'price' })).toEqual({ value: 113.5 });
    expect(await result('aggregate', table.uuid, { aggregate: 'avg', column: table.columns.price })).toEqual({ value: 28.375 });
    expect(await result('aggregate', table.uuid, { aggregate: 'sum', column: 'price', filters: [{ column: 'price', operator: 'gt', value: 1000 }] })).toEqual({ value: 0 });
  });

  it('min and max of numbers, dates (as stored) and text', async () => {
    expect(await result('aggregate', table.uuid, { aggregate: 'min', column: 'price' })).toEqual({ value: -5.5 });
    expect(await result('aggregate', table.uuid, { aggregate: 'max', column: 'released' })).toEqual({ value: '2024-03-01T12:00:00.000Z' });
    expect(await result('aggregate', table.uuid, { aggregate: 'min', column: 'released' })).toEqual({ value: '2023-12-31' });
    expect(await result('aggregate', table.uuid, { aggregate: 'max', column: 'name' })).toEqual({ value: 'Widget' });
  });

  it('groups by a column’s value (empty cells in one null group, last), with filters', async () => {
    expect(await result('aggregate', table.uuid, { aggregate: 'sum', column: 'price', groupBy: 'category' })).toEqual({
      groups: [
        { key: 'tools', value: 109 },
        { key: 'toys', value: 10 },
        { key: null, value: -5.5 },
      ],
    });
    expect(await result('aggregate', table.uuid, { aggregate: 'count', groupBy: 'in_stock', filters: [{ column: 'price', operator: 'gte', value: 9 }] })).toEqual({
      groups: [
        { key: false, value: 1 },
        { key: true, value: 2 },
      ],
    });
  });

  it('refuses an aggregate that does not apply to the column’s type, and unknown columns', async () => {
    expect(await problems('aggregate', table.uuid, { aggregate: 'sum', column: 'name' })).toEqual({ column: [expect.stringContaining('sum does not apply to the text column "name"')] });
    expect(await problems('aggregate', table.uuid, { aggregate: 'max', column: 'in_stock' })).toEqual({ column: [expect.stringContaining('max does not apply to the boolean column')] });
    expect(await problems('aggregate', table.uuid, { aggregate: 'avg' })).toEqual({ column: ['is required for avg'] });
    expect(await problems('aggregate', table.uuid, { aggregate: 'median', column: 'price' })).toEqual({ aggregate: [expect.stringContaining('must be one of: count, sum, avg, min, max')] });
    expect(await problems('aggregate', table.uuid, { aggregate: 'count', groupBy: 'colour', filters: [{ column: 'x', operator: 'eq', value: 1 }] })).toEqual({
      group_by: ['is not a column of this table'],
      'filters.0.column': ['is not a column of this table'],
    });
  });

  it('answers in one statement, grouped or not', async () => {
    const statements = await statementsDuring(kit, () => call('aggregate', table.uuid, { aggregate: 'avg', column: 'price', groupBy: 'category' }).expect(200));
    expect(statements.filter((sql) => /from data_table_records/.test(sql))).toHaveLength(1);
  });
});
