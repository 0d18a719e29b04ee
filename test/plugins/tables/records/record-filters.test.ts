import { startTestKernel, type TestKernel } from '../../../../core/testing';
import { AGENTS, TABLES, createRecords, createTable, statementsDuring, type CreatedTable } from './record-test-helpers';

let kit: TestKernel;
let table: CreatedTable;
beforeAll(async () => {
  kit = await startTestKernel({ plugins: [AGENTS, TABLES] });
  table = await createTable(kit.api, { name: 'text', price: 'number', released: 'date', in_stock: 'boolean', meta: 'json', page: 'url' });
  await createRecords(kit.api, table.uuid, [
    { name: 'Widget', price: 9, released: '2024-01-15', in_stock: true, meta: { tags: ['tools', 'sale'] }, page: 'https://shop.example.com/widget' },
    { name: 'gadget', price: 10, released: '2024-03-01T12:00:00Z', in_stock: false, meta: { tags: ['toys'] }, page: 'http://gadgets.example.org/g' },
    { name: 'Gizmo 50%', price: 100, released: '2023-12-31', in_stock: true, page: 'https://shop.example.com/gizmo' },
    { name: 'Doohickey_2', price: -5.5, released: '2024-03-01' },
    { name: '', price: null, in_stock: null },
  ]);
});
afterAll(() => kit?.stop());

/** Names of the records a query string finds (in the order listed). */
async function names(query: string): Promise<string[]> {
  const res = await kit.api.get(`/api/v1/data/${table.uuid}/records?per_page=100&${query}`).expect(200);
  return res.body.data.items.map((record: any) => record.values.name);
}
const filter = (column: string, operator: string, value?: string, index = 0) =>
  `filter[${index}][column]=${encodeURIComponent(column)}&filter[${index}][operator]=${operator}` + (value === undefined ? '' : `&filter[${index}][value]=${encodeURIComponent(value)}`);
const problems = async (query: string) => (await kit.api.get(`/api/v1/data/${table.uuid}/records?${query}`).expect(422)).body.errors;

describe('GET /api/v1/data/{uuid}/records: filters', () => {
  it('eq and neq: text case-insensitively, numbers by value, booleans; neq also finds empty cells', async () => {
    expect(await names(filter('name', 'eq', 'WIDGET'))).toEqual(['Widget']);
    expect(await names(filter('price', 'eq', '10.0'))).toEqual(['gadget']);
    expect(await names(filter('in_stock', 'eq', 'false'))).toEqual(['gadget']);
    expect(await names(filter('in_stock', 'neq', 'true'))).toEqual(['gadget', 'Doohickey_2', '']);
    expect(await names(filter('price', 'neq', '9'))).toEqual(['gadget', 'Gizmo 50%', 'Doohickey_2', '']);
  });

  it('gt, gte, lt, lte: numbers numerically (9 < 10 < 100), dates as instants, text case-insensitively', async () => {
    expect(await names(filter('price', 'gt', '9'))).toEqual(['gadget', 'Gizmo 50%']);
    expect(await names(filter('price', 'gte', '9'))).toEqual(['Widget', 'gadget', 'Gizmo 50%']);
    expect(await names(filter('price', 'lt', '0'))).toEqual(['Doohickey_2']);
    expect(await names(filter('price', 'lte', '1e1'))).toEqual(['Widget', 'gadget', 'Doohickey_2']);
    // A date alone is midnight UTC: 2024-03-01 is before 2024-03-01T12:00Z.
    expect(await names(filter('released', 'gte', '2024-03-01'))).toEqual(['gadget', 'Doohickey_2']);
    expect(await names(filter('released', 'gt', '2024-03-01'))).toEqual(['gadget']);
    expect(await names(filter('released', 'lt', '2024-01-15T00:00:01+00:00'))).toEqual(['Widget', 'Gizmo 50%']);
    expect(await names(filter('released', 'eq', '2024-03-01T00:00:00Z'))).toEqual(['Doohickey_2']);
    expect(await names(filter('name', 'gt', 'h'))).toEqual(['Widget']);
  });

  it('contains, not_contains, starts_with, ends_with: case-insensitive, with %, _ and \\ taken literally', async () => {
    expect(await names(filter('name', 'contains', 'G'))).toEqual(['Widget', 'gadget', 'Gizmo 50%']);
    expect(await names(filter('name', 'contains', '0%'))).toEqual(['Gizmo 50%']);
    expect(await names(filter('name', 'contains', '_'))).toEqual(['Doohickey_2']);
    expect(await names(filter('name', 'contains', '\\'))).toEqual([]);
    expect(await names(filter('name', 'not_contains', 'g'))).toEqual(['Doohickey_2', '']);
    expect(await names(filter('name', 'starts_with', 'gi'))).toEqual(['Gizmo 50%']);
    expect(await names(filter('name', 'ends_with', 'ET'))).toEqual(['Widget', 'gadget']);
    expect(await names(filter('page', 'starts_with', 'https://shop.'))).toEqual(['Widget', 'Gizmo 50%']);
    expect(await names(filter('page', 'contains', 'example.org'))).toEqual(['gadget']);
    expect(await names(filter('meta', 'contains', 'SALE'))).toEqual(['Widget']);
  });

  it('in: a comma-separated list read as the column’s type', async () => {
    expect(await names(filter('price', 'in', '9,100,7'))).toEqual(['Widget', 'Gizmo 50%']);
    expect(await names(filter('name', 'in', 'widget,GADGET'))).toEqual(['Widget', 'gadget']);
    expect(await names(filter('released', 'in', '2024-01-15,2024-03-01T12:00:00Z'))).toEqual(['Widget', 'gadget']);
  });

  it('is_empty and is_not_empty: no value, null and the empty string are empty', async () => {
    expect(await names(filter('price', 'is_empty'))).toEqual(['']);
    expect(await names(filter('name', 'is_empty'))).toEqual(['']);
    expect(await names(filter('meta', 'is_empty'))).toEqual(['Gizmo 50%', 'Doohickey_2', '']);
    expect(await names(filter('in_stock', 'is_not_empty'))).toEqual(['Widget', 'gadget', 'Gizmo 50%']);
  });

  it('several filters must all match; a column may be named by uuid; one filter may be a plain object', async () => {
    expect(await names(`${filter('price', 'gt', '0')}&${filter(table.columns.in_stock, 'eq', 'true', 1)}`)).toEqual(['Widget', 'Gizmo 50%']);
    expect(await names('filter[column]=NAME&filter[operator]=starts_with&filter[value]=w')).toEqual(['Widget']);
    const res = await kit.api.get(`/api/v1/data/${table.uuid}/records?per_page=1&${filter('price', 'gt', '0')}`).expect(200);
    expect(res.body.data.pagination).toMatchObject({ total: 3, last_page: 3, has_more: true });
  });

  it('refuses what it cannot apply, at filter.<i>.column|operator|value', async () => {
    expect(await problems(filter('colour', 'eq', 'red'))).toEqual({ 'filter.0.column': ['is not a column of this table'] });
    expect(await problems(filter('price', 'like', '1'))).toEqual({ 'filter.0.operator': [expect.stringContaining('must be one of: eq, neq')] });
    expect(await problems(filter('in_stock', 'gt', 'true'))).toEqual({ 'filter.0.operator': ['does not apply to the boolean column "in_stock" (use one of: eq, neq, is_empty, is_not_empty)'] });
    expect(await problems(filter('meta', 'eq', '{}'))).toEqual({ 'filter.0.operator': [expect.stringContaining('does not apply to the json column')] });
    expect(await problems(filter('price', 'gt', 'ten'))).toEqual({ 'filter.0.value': ['"ten" is not a number'] });
    expect(await problems(filter('released', 'lt', '2024-02-30'))).toEqual({ 'filter.0.value': ['"2024-02-30" is not an ISO 8601 date'] });
    expect(await problems(filter('in_stock', 'eq', 'maybe'))).toEqual({ 'filter.0.value': ['"maybe" is not true or false'] });
    expect(await problems(filter('price', 'in', '1,two'))).toEqual({ 'filter.0.value': ['"two" is not a number'] });
    expect(await problems(filter('price', 'eq'))).toEqual({ 'filter.0.value': ['is required for the operator eq'] });
    expect(await problems(filter('name', 'contains', ''))).toEqual({ 'filter.0.value': ['is required: the text to look for'] });
    expect(await problems(`${filter('name', 'eq', 'x')}&filter[1][column]=price`)).toEqual({ 'filter.1.operator': ['is required'] });
    expect(await problems('filter[column]=price&filter[operator]=gt&filter[value]=x')).toEqual({ 'filter.value': ['"x" is not a number'] });
  });
});

describe('GET /api/v1/data/{uuid}/records: sort', () => {
  it('is creation order by default', async () => {
    expect(await names('')).toEqual(['Widget', 'gadget', 'Gizmo 50%', 'Doohickey_2', '']);
  });

  it('sorts numbers by value, dates as instants and text case-insensitively, empty cells last either way', async () => {
    expect(await names('sort=price')).toEqual(['Doohickey_2', 'Widget', 'gadget', 'Gizmo 50%', '']);
    expect(await names('sort=price&direction=desc')).toEqual(['Gizmo 50%', 'gadget', 'Widget', 'Doohickey_2', '']);
    expect(await names('sort=released')).toEqual(['Gizmo 50%', 'Widget', 'Doohickey_2', 'gadget', '']);
    expect(await names(`sort=${table.columns.name}`)).toEqual(['', 'Doohickey_2', 'gadget', 'Gizmo 50%', 'Widget']);
    expect(await names('sort=in_stock&direction=desc')).toEqual(['Widget', 'Gizmo 50%', 'gadget', 'Doohickey_2', '']);
  });

  it('refuses an unknown column and direction', async () => {
    expect(await problems('sort=colour')).toEqual({ sort: ['is not a column of this table'] });
    expect(Object.keys(await problems('sort=price&direction=up'))).toEqual(['direction']);
  });
});

describe('GET /api/v1/data/{uuid}/records: cost', () => {
  it('reads a filtered, sorted page in a fixed number of statements, whatever its size', async () => {
    const query = `${filter('price', 'gt', '-100')}&sort=price`;
    const statementsFor = async (perPage: number) =>
      (await statementsDuring(kit, () => kit.api.get(`/api/v1/data/${table.uuid}/records?per_page=${perPage}&${query}`).expect(200))).filter((sql) => /data_table/.test(sql));
    const small = await statementsFor(1);
    const large = await statementsFor(100);
    expect(large.length).toBe(small.length);
    // The table, its columns, the page and the count.
    expect(large.length).toBe(4);
  });
});
