import { startTestKernel, type TestKernel } from '../../../core/testing';
import { PLUGINS, action, addRecord, addStep, createFlow, createTable, executionsOf, liveFlow, recordsOf, settled, trigger, type Json, type TestTable } from './app-tables-helpers';

let kit: TestKernel;
beforeAll(async () => {
  kit = await startTestKernel({ plugins: PLUGINS, config: { busPollIntervalMs: 200 } });
});
afterAll(() => kit?.stop());

const UNKNOWN = '0190d5c2-0000-7000-8000-0000000000ff';
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

const customers = () => createTable(kit.api, `Customers ${Math.random()}`, { name: 'text', city: 'text', visits: 'number', joined: 'date' });

/** A draft flow whose trigger watches `table`, to hang action steps on and test them one by one. */
async function workbench(table: TestTable): Promise<{ flow: string; step(body: Json): Promise<Json> }> {
  const flow = await createFlow(kit.api, 'Workbench');
  await addStep(kit.api, flow, trigger('record_created', { table_id: table.uuid }));
  return { flow, step: (body) => addStep(kit.api, flow, body) };
}

/** POST .../steps/{step}/test: what the step gave (`data`, `error`). */
async function test(flow: string, step: Json): Promise<{ data: any; error: string | null }> {
  const res = await kit.api.post(`/api/v1/flow/${flow}/steps/${step.uuid}/test`).expect(200);
  return res.body.data.last_test;
}

describe('insert_record', () => {
  it('adds a record with values by column name or uuid and outputs it, values by name', async () => {
    const table = await customers();
    const { flow, step } = await workbench(table);
    const insert = await step(action('insert_record', { table_id: table.uuid, values: { name: 'Ada', [table.columns.visits]: 3, joined: '2024-05-01' } }));
    expect(insert.status).toBe('ready');
    const { data, error } = await test(flow, insert);
    expect(error).toBeNull();
    expect(data).toEqual({
      uuid: expect.any(String),
      table_uuid: table.uuid,
      values: { name: 'Ada', city: null, visits: 3, joined: '2024-05-01' },
      created_at: expect.stringMatching(ISO),
      updated_at: expect.stringMatching(ISO),
    });
    expect(await recordsOf(kit.api, table.uuid)).toEqual([expect.objectContaining({ uuid: data.uuid, values: data.values })]);
  });

  it('fails the step, writing nothing, for values of the wrong type or unknown columns, naming each', async () => {
    const table = await customers();
    const { flow, step } = await workbench(table);
    const insert = await step(action('insert_record', { table_id: table.uuid, values: { name: 'Ada', visits: 'three', shoe_size: 42 } }));
    const { data, error } = await test(flow, insert);
    expect(data).toBeNull();
    expect(error).toContain('values.visits');
    expect(error).toContain('values.shoe_size');
    expect(await recordsOf(kit.api, table.uuid)).toEqual([]);
  });

  it('fails the step for a table that does not exist', async () => {
    const table = await customers();
    const { flow, step } = await workbench(table);
    const insert = await step(action('insert_record', { table_id: UNKNOWN, values: { name: 'Ada' } }));
    expect(await test(flow, insert)).toEqual({ data: null, error: `No table ${UNKNOWN} in this workspace`, tested_at: expect.any(String) });
  });

  it('is a draft until its config is whole: a table and at least one value', async () => {
    const table = await customers();
    const { step } = await workbench(table);
    const draft = await step(action('insert_record', { table_id: table.uuid, values: {} }));
    expect(draft).toMatchObject({ status: 'draft', status_message: expect.stringContaining('config.values') });
  });
});

describe('update_record', () => {
  it('changes the values given and keeps the others; the record can come from an earlier step', async () => {
    const table = await customers();
    const { flow, step } = await workbench(table);
    const insert = await step(action('insert_record', { table_id: table.uuid, values: { name: 'Ada', city: 'London', visits: 1 } }));
    const update = await step(action('update_record', { table_id: table.uuid, record_id: '{{step2.uuid}}', values: { visits: 2, [table.columns.city]: 'Paris' } }));
    expect(update.status).toBe('ready');
    const inserted = (await test(flow, insert)).data;
    const { data, error } = await test(flow, update);
    expect(error).toBeNull();
    expect(data).toMatchObject({ uuid: inserted.uuid, values: { name: 'Ada', city: 'Paris', visits: 2, joined: null } });
    expect((await recordsOf(kit.api, table.uuid))[0].values).toEqual(data.values);
  });

  it('fails the step for an unknown record, a record of another table, and a bad value', async () => {
    const table = await customers();
    const other = await customers();
    const theirs = await addRecord(kit.api, other.uuid, { name: 'Grace' });
    const mine = await addRecord(kit.api, table.uuid, { name: 'Ada' });
    const { flow, step } = await workbench(table);
    for (const record_id of [UNKNOWN, theirs.uuid]) {
      const update = await step(action('update_record', { table_id: table.uuid, record_id, values: { visits: 1 } }));
      expect((await test(flow, update)).error).toBe(`No record ${record_id} in table ${table.uuid}`);
    }
    const bad = await step(action('update_record', { table_id: table.uuid, record_id: mine.uuid, values: { joined: 'yesterday', name: 'Ada L.' } }));
    expect((await test(flow, bad)).error).toContain('values.joined');
    expect((await recordsOf(kit.api, table.uuid))[0].values).toMatchObject({ name: 'Ada', joined: null });
  });
});

describe('delete_record', () => {
  it('deletes a record: deleted true, then false once it is gone; an unknown table fails the step', async () => {
    const table = await customers();
    const record = await addRecord(kit.api, table.uuid, { name: 'Ada' });
    const { flow, step } = await workbench(table);
    const remove = await step(action('delete_record', { table_id: table.uuid, record_id: record.uuid }));
    expect((await test(flow, remove)).data).toEqual({ deleted: true });
    expect(await recordsOf(kit.api, table.uuid)).toEqual([]);
    expect((await test(flow, remove)).data).toEqual({ deleted: false });
    const unknown = await step(action('delete_record', { table_id: UNKNOWN, record_id: record.uuid }));
    expect((await test(flow, unknown)).error).toBe(`No table ${UNKNOWN} in this workspace`);
  });
});

describe('find_records and aggregate', () => {
  let table: TestTable;
  let flow: string;
  let step: (body: Json) => Promise<Json>;
  beforeAll(async () => {
    table = await customers();
    ({ flow, step } = await workbench(table));
    const rows = [
      { name: 'Ada', city: 'London', visits: 5, joined: '2024-01-10' },
      { name: 'Grace', city: 'New York', visits: 2, joined: '2024-03-02' },
      { name: 'Alan', city: 'London', visits: 7, joined: '2023-11-20' },
      { name: 'Edsger', city: 'Austin', visits: 1, joined: '2024-06-30' },
      { name: 'Barbara', city: null, visits: null, joined: null },
    ];
    for (const values of rows) await addRecord(kit.api, table.uuid, values);
  });

  const run = async (key: string, config: Json) => {
    const { data, error } = await test(flow, await step(action(key, { table_id: table.uuid, ...config })));
    if (error) throw new Error(error);
    return data;
  };
  const names = (found: Json) => found.records.map((record: Json) => record.values.name);

  it('finds the records meeting every filter, sorted, with count the number that match', async () => {
    const found = await run('find_records', {
      filters: [
        { column: 'visits', operator: 'gte', value: 2 },
        { column: table.columns.city, operator: 'is_not_empty' },
      ],
      sort: [{ column: 'visits', direction: 'desc' }],
    });
    expect(names(found)).toEqual(['Alan', 'Ada', 'Grace']);
    expect(found.count).toBe(3);
    expect(found.records[0]).toMatchObject({ table_uuid: table.uuid, values: { name: 'Alan', city: 'London', visits: 7, joined: '2023-11-20' } });
  });

  it('returns at most limit records, count still counting every match', async () => {
    const found = await run('find_records', { sort: [{ column: 'name', direction: 'asc' }], limit: 2 });
    expect(names(found)).toEqual(['Ada', 'Alan']);
    expect(found.count).toBe(5);
    expect(names(await run('find_records', { filters: [{ column: 'city', operator: 'in', value: ['Austin', 'New York'] }], sort: [{ column: 'joined', direction: 'asc' }] }))).toEqual([
      'Grace',
      'Edsger',
    ]);
  });

  it('fails the step for a filter on an unknown column or with a value of the wrong type', async () => {
    const unknown = await test(flow, await step(action('find_records', { table_id: table.uuid, filters: [{ column: 'age', operator: 'eq', value: 3 }] })));
    expect(unknown.error).toContain('filters.0');
    const wrongType = await test(flow, await step(action('find_records', { table_id: table.uuid, filters: [{ column: 'visits', operator: 'gt', value: 'many' }] })));
    expect(wrongType.error).toContain('filters.0');
  });

  it('checks limit and the filters’ shape while the step is built', async () => {
    const tooMany = await step(action('find_records', { table_id: table.uuid, limit: 1001 }));
    expect(tooMany).toMatchObject({ status: 'draft', status_message: expect.stringContaining('config.limit') });
    const noValue = await step(action('find_records', { table_id: table.uuid, filters: [{ column: 'visits', operator: 'gt' }] }));
    expect(noValue).toMatchObject({ status: 'draft', status_message: 'config.filters.0.value is required' });
    const badOperator = await step(action('find_records', { table_id: table.uuid, filters: [{ column: 'visits', operator: 'between', value: 1 }] }));
    expect(badOperator).toMatchObject({ status: 'draft', status_message: expect.stringContaining('config.filters.0.operator') });
  });

  it('counts, sums, averages and takes the minimum and maximum, filtered', async () => {
    expect(await run('aggregate', { aggregate: 'count' })).toEqual({ value: 5 });
    expect(await run('aggregate', { aggregate: 'count', filters: [{ column: 'city', operator: 'eq', value: 'London' }] })).toEqual({ value: 2 });
    expect(await run('aggregate', { aggregate: 'sum', column: 'visits' })).toEqual({ value: 15 });
    expect(await run('aggregate', { aggregate: 'avg', column: table.columns.visits })).toEqual({ value: 3.75 });
    expect(await run('aggregate', { aggregate: 'min', column: 'joined' })).toEqual({ value: '2023-11-20' });
    expect(await run('aggregate', { aggregate: 'max', column: 'visits', filters: [{ column: 'city', operator: 'neq', value: 'London' }] })).toEqual({ value: 2 });
  });

  it('groups by a column, ordered by its values, empty cells last', async () => {
    expect(await run('aggregate', { aggregate: 'sum', column: 'visits', group_by: 'city' })).toEqual({
      groups: [
        { key: 'Austin', value: 1 },
        { key: 'London', value: 12 },
        { key: 'New York', value: 2 },
        { key: null, value: 0 },
      ],
    });
    expect((await run('aggregate', { aggregate: 'count', group_by: table.columns.city, filters: [{ column: 'visits', operator: 'gt', value: 1 }] })).groups).toEqual([
      { key: 'London', value: 2 },
      { key: 'New York', value: 1 },
    ]);
  });

  it('needs a column for everything but count while the step is built, and fails the step for a column of the wrong type', async () => {
    const noColumn = await step(action('aggregate', { table_id: table.uuid, aggregate: 'sum' }));
    expect(noColumn).toMatchObject({ status: 'draft', status_message: 'config.column is required' });
    const wrongType = await test(flow, await step(action('aggregate', { table_id: table.uuid, aggregate: 'sum', column: 'name' })));
    expect(wrongType).toMatchObject({ data: null, error: expect.stringContaining('column') });
  });
});

describe('in a deployed flow', () => {
  it('copies each new order into a log, then reads the log back and totals it, in one execution', async () => {
    const orders = await createTable(kit.api, 'Orders', { customer: 'text', total: 'number' });
    const log = await createTable(kit.api, 'Order log', { who: 'text', amount: 'number', order: 'text' });
    const flow = await liveFlow(
      kit.api,
      trigger('record_created', { table_id: orders.uuid }),
      action('insert_record', { table_id: log.uuid, values: { who: '{{step1.record.values.customer}}', amount: '{{step1.record.values.total}}', order: '{{step1.record.uuid}}' } }),
      action('find_records', { table_id: log.uuid, filters: [{ column: 'who', operator: 'eq', value: '{{step1.record.values.customer}}' }] }),
      action('aggregate', { table_id: log.uuid, aggregate: 'sum', column: 'amount' }),
    );
    const first = await addRecord(kit.api, orders.uuid, { customer: 'Ada', total: 30 });
    await settled(kit);
    await addRecord(kit.api, orders.uuid, { customer: 'Ada', total: 12.5 });
    await settled(kit);

    const executions = await executionsOf(kit.api, flow);
    expect(executions.map((execution) => execution.status)).toEqual(['succeeded', 'succeeded']);
    expect(executions[0].steps.map((s: Json) => s.response)).toEqual([
      expect.objectContaining({ table_uuid: log.uuid, values: { who: 'Ada', amount: 30, order: first.uuid } }),
      { records: [expect.objectContaining({ values: { who: 'Ada', amount: 30, order: first.uuid } })], count: 1 },
      { value: 30 },
    ]);
    expect(executions[1].steps.map((s: Json) => s.response).slice(1)).toEqual([expect.objectContaining({ count: 2 }), { value: 42.5 }]);
    expect((await recordsOf(kit.api, log.uuid)).map((record) => record.values.amount)).toEqual([30, 12.5]);
  });

  it('a failing write fails its step and leaves nothing behind', async () => {
    const orders = await createTable(kit.api, 'Orders 2', { customer: 'text' });
    const log = await createTable(kit.api, 'Order log 2', { amount: 'number' });
    const flow = await liveFlow(kit.api, trigger('record_created', { table_id: orders.uuid }), action('insert_record', { table_id: log.uuid, values: { amount: '{{step1.record.values.customer}}' } }));
    await addRecord(kit.api, orders.uuid, { customer: 'Ada' });
    await settled(kit);
    const [execution] = await executionsOf(kit.api, flow);
    expect(execution).toMatchObject({ status: 'failed', steps: [{ status: 'failed', error: expect.stringContaining('values.amount') }] });
    expect(await recordsOf(kit.api, log.uuid)).toEqual([]);
  });
});
