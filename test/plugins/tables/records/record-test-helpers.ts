import path from 'node:path';
import { coreServices, definePlugin } from '../../../../core';
import type { ApiClient, TestKernel } from '../../../../core/testing';

export const AGENTS = path.resolve(__dirname, '../../../../plugins/agents');
export const TABLES = path.resolve(__dirname, '../../../../plugins/tables');

export interface CreatedTable {
  uuid: string;
  /** Column uuids by name. */
  columns: Record<string, string>;
}

export async function createTable(api: ApiClient, columns: Record<string, string>, name = 'Products'): Promise<CreatedTable> {
  const res = await api
    .post('/api/v1/data/tables')
    .send({ name, columns: Object.entries(columns).map(([column, data_type]) => ({ name: column, data_type })) })
    .expect(201);
  return { uuid: res.body.data.uuid, columns: Object.fromEntries(res.body.data.columns.map((c: { name: string; uuid: string }) => [c.name, c.uuid])) };
}

export async function createRecords(api: ApiClient, table: string, rows: Array<Record<string, unknown>>): Promise<Array<{ uuid: string; values: Record<string, unknown> }>> {
  const res = await api
    .post(`/api/v1/data/${table}/records`)
    .send({ records: rows.map((values) => ({ values })) })
    .expect(201);
  return res.body.data.items;
}

/** SQL statements the ORM's connection runs while `fn` runs. */
export async function statementsDuring(kit: TestKernel, fn: () => Promise<unknown>): Promise<string[]> {
  const spy = jest.spyOn(kit.kernel.orm.config.getLogger(), 'logQuery');
  try {
    await fn();
    return spy.mock.calls.map(([context]) => String(context.query));
  } finally {
    spy.mockRestore();
  }
}

export async function eventually(check: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

export interface SeenMessage {
  topic: string;
  payload: any;
  tenant?: string;
}

/** A plugin that records every record event and index sync job the bus delivers. */
export function busProbe(): { plugin: ReturnType<typeof definePlugin>; seen: SeenMessage[] } {
  const seen: SeenMessage[] = [];
  const plugin = definePlugin({
    id: 'tables-bus-probe',
    dependsOn: ['tables'],
    deps: { bus: coreServices.bus },
    init({ bus }) {
      bus.consume({ name: 'probe', topics: ['tables.record.*', 'tables.index.sync'] }, async (message) => {
        seen.push({ topic: message.topic, payload: message.payload, tenant: message.tenant?.uuid });
      });
    },
  });
  return { plugin, seen };
}

/** How many records the table has in the database (raw: whatever the API says). */
export async function storedRecords(kit: TestKernel, table: string): Promise<Array<{ uuid: string; values: Record<string, unknown> }>> {
  return kit.kernel.orm.em.fork().getConnection().execute('select uuid, "values" from data_table_records where table_uuid = ? order by uuid', [table]);
}

/** The spec's body for a table that is not there: `{success: false, message: "Data not found", data: [string]}`. */
export async function expectTableNotFound(request: PromiseLike<{ status: number; body: unknown }>, uuid: string): Promise<void> {
  const res = await request;
  expect(res.status).toBe(404);
  expect(res.body).toEqual({ success: false, message: 'Data not found', data: [expect.stringContaining(uuid)] });
}
