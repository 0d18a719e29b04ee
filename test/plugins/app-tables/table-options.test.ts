import { startTestKernel, type ApiClient, type TestKernel } from '../../../core/testing';
import { tablesApp } from '../../../plugins/app-tables';
import { inputProblems } from '../../../plugins/flows/testing-kit';
import { AGGREGATES, COLUMN_TYPES, FILTER_OPERATORS, ORDER_DIRECTIONS, operatorsFor } from '../../../plugins/tables';
import { PLUGINS, createTable, type Json } from './app-tables-helpers';

let kit: TestKernel;
beforeAll(async () => {
  kit = await startTestKernel({ plugins: PLUGINS, role: 'serve' });
});
afterAll(() => kit?.stop());

const options = (body: Json, api: ApiClient = kit.api) => api.post('/api/v1/flow/apps/tables/options').send(body);
const pairs = (items: ReadonlyArray<{ label: string; value: string }>) => items.map(({ label, value }) => ({ label, value }));
const findRecords = tablesApp.actions!.find((candidate) => candidate.key === 'find_records')!;
const aggregate = tablesApp.actions!.find((candidate) => candidate.key === 'aggregate')!;
const TABLE = '0190d5c2-0000-7000-8000-0000000000a1';

describe('tables option lists, through POST /api/v1/flow/apps/tables/options', () => {
  it('has exactly the spec’s kinds', async () => {
    const res = await options({ kind: 'records' }).expect(422);
    expect(res.body.errors).toEqual({ kind: ['must be one of: tables, columns, operators, operators_for_type, aggregates, order_directions'] });
  });

  it('tables lists the workspace’s tables by name (value: uuid), searched by name, never another workspace’s', async () => {
    const owner = await kit.createTenant();
    const stranger = await kit.createTenant();
    const customers = await createTable(owner.api, 'Customers', { name: 'text' });
    const orders = await createTable(owner.api, 'Orders', { total: 'number' });
    const notes = await createTable(owner.api, 'Customer notes', { body: 'text' });
    await createTable(stranger.api, 'Customers of another workspace', { name: 'text' });

    expect((await options({ kind: 'tables', params: {} }, owner.api).expect(200)).body).toEqual({
      success: true,
      data: [
        { label: 'Customer notes', value: notes.uuid },
        { label: 'Customers', value: customers.uuid },
        { label: 'Orders', value: orders.uuid },
      ],
      next_cursor: null,
    });
    expect((await options({ kind: 'tables', search: 'CUSTOMER' }, owner.api).expect(200)).body.data.map((o: Json) => o.label)).toEqual(['Customer notes', 'Customers']);
    expect((await options({ kind: 'tables', search: 'invoices' }, owner.api).expect(200)).body.data).toEqual([]);
  });

  it('tables pages by 100 with next_cursor, keeping the search', async () => {
    const owner = await kit.createTenant();
    const names = Array.from({ length: 103 }, (_, index) => `Sheet ${String(index).padStart(3, '0')}`);
    for (const name of names) await createTable(owner.api, name, { cell: 'text' });
    await createTable(owner.api, 'Unrelated', { cell: 'text' });

    const first = (await options({ kind: 'tables', search: 'sheet' }, owner.api).expect(200)).body;
    expect(first.data).toHaveLength(100);
    expect(first.next_cursor).toEqual(expect.any(String));
    const second = (await options({ kind: 'tables', search: 'sheet', cursor: first.next_cursor }, owner.api).expect(200)).body;
    expect(second.next_cursor).toBeNull();
    expect([...first.data, ...second.data].map((o: Json) => o.label)).toEqual(names);
  });

  it('tables answers 422 at `cursor` for a cursor it did not return', async () => {
    const res = await options({ kind: 'tables', cursor: 'not-a-cursor' }).expect(422);
    expect(res.body.errors).toEqual({ cursor: ['is not a cursor this list returned'] });
  });

  it('columns lists a table’s columns in order (label: name, value: uuid)', async () => {
    const table = await createTable(kit.api, 'Contacts', { name: 'text', age: 'number', birthday: 'date' });
    expect((await options({ kind: 'columns', params: { table_id: table.uuid } }).expect(200)).body).toEqual({
      success: true,
      data: [
        { label: 'name', value: table.columns.name },
        { label: 'age', value: table.columns.age },
        { label: 'birthday', value: table.columns.birthday },
      ],
      next_cursor: null,
    });
  });

  it('columns answers the unavailable state for a table that does not exist or is another workspace’s', async () => {
    const stranger = await kit.createTenant();
    const theirs = await createTable(stranger.api, 'Theirs', { secret: 'text' });
    for (const table_id of [TABLE, theirs.uuid]) {
      expect((await options({ kind: 'columns', params: { table_id } }).expect(200)).body).toEqual({
        success: true,
        data: [],
        next_cursor: null,
        state: 'unavailable',
        message: `No table ${table_id} in this workspace: choose another table`,
      });
    }
  });

  it('columns answers 422 at params.table_id when it is missing or not a uuid', async () => {
    expect((await options({ kind: 'columns', params: {} }).expect(422)).body.errors).toEqual({ 'params.table_id': ['is required'] });
    expect((await options({ kind: 'columns', params: { table_id: 'customers' } }).expect(422)).body.errors).toEqual({ 'params.table_id': [expect.stringContaining('uuid')] });
  });

  it('operators lists every filter operator, each accepted by find_records', async () => {
    const res = await options({ kind: 'operators' }).expect(200);
    expect(res.body).toEqual({ success: true, data: pairs(FILTER_OPERATORS), next_cursor: null });
    for (const { value } of res.body.data) {
      const filter = value.startsWith('is_') ? { column: 'name', operator: value } : { column: 'name', operator: value, value: 'x' };
      expect(inputProblems(findRecords, { table_id: TABLE, filters: [filter] })).toEqual({});
    }
  });

  it('operators_for_type lists the operators of each column type', async () => {
    for (const type of COLUMN_TYPES) {
      expect((await options({ kind: 'operators_for_type', params: { type } }).expect(200)).body.data).toEqual(pairs(operatorsFor(type)));
    }
    expect((await options({ kind: 'operators_for_type', params: { type: 'number' } }).expect(200)).body.data.map((o: Json) => o.value)).toEqual([
      'eq',
      'neq',
      'gt',
      'gte',
      'lt',
      'lte',
      'in',
      'is_empty',
      'is_not_empty',
    ]);
  });

  it('operators_for_type answers 422 at params.type for a type that is not a column type, or none', async () => {
    const wrong = await options({ kind: 'operators_for_type', params: { type: 'money' } }).expect(422);
    expect(wrong.body.errors).toEqual({ 'params.type': [expect.stringContaining('allowed values')] });
    expect((await options({ kind: 'operators_for_type' }).expect(422)).body.errors).toEqual({ 'params.type': ['is required'] });
  });

  it('aggregates and order_directions list what aggregate and sort accept', async () => {
    const aggregates = (await options({ kind: 'aggregates' }).expect(200)).body.data;
    expect(aggregates).toEqual(pairs(AGGREGATES));
    expect(aggregates.map((o: Json) => o.value)).toEqual(['count', 'sum', 'avg', 'min', 'max']);
    for (const { value } of aggregates) {
      expect(inputProblems(aggregate, { table_id: TABLE, aggregate: value, column: 'total' })).toEqual({});
    }
    const directions = (await options({ kind: 'order_directions' }).expect(200)).body.data;
    expect(directions).toEqual([
      { label: 'Ascending', value: 'asc' },
      { label: 'Descending', value: 'desc' },
    ]);
    for (const { value } of directions) {
      expect(inputProblems(findRecords, { table_id: TABLE, sort: [{ column: 'total', direction: value }] })).toEqual({});
    }
    expect(pairs(ORDER_DIRECTIONS)).toEqual(directions);
  });

  it('answers 422 for params a list does not take and for a connection on this builtin app', async () => {
    expect((await options({ kind: 'aggregates', params: { table_id: TABLE } }).expect(422)).body.errors).toEqual({ 'params.table_id': ['is not a known member'] });
    const connection = await options({ kind: 'operators', connection_uuid: TABLE }).expect(422);
    expect(connection.body.errors).toEqual({ connection_uuid: [expect.stringContaining('must be null')] });
  });
});
