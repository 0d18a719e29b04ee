import path from 'node:path';
import type { ApiClient, TestKernel } from '../../../core/testing';

/** Shared helpers of the tables app tests (not a test file itself). */

export type Json = Record<string, any>;

export const PLUGINS = ['agents', 'flows', 'tables', 'app-tables'].map((id) => path.resolve(__dirname, '../../../plugins', id));

export interface TestTable {
  uuid: string;
  /** Column uuids by name. */
  columns: Record<string, string>;
}

/** An empty table with these columns (name -> data_type), through POST /api/v1/data/tables. */
export async function createTable(api: ApiClient, name: string, columns: Record<string, string>): Promise<TestTable> {
  const res = await api
    .post('/api/v1/data/tables')
    .send({ name, columns: Object.entries(columns).map(([column, data_type]) => ({ name: column, data_type })) })
    .expect(201);
  const table = res.body.data;
  return { uuid: table.uuid, columns: Object.fromEntries(table.columns.map((column: Json) => [column.name, column.uuid])) };
}

export async function addRecord(api: ApiClient, table: string, values: Json): Promise<Json> {
  return (await api.post(`/api/v1/data/${table}/records`).send({ values }).expect(201)).body.data;
}

export async function changeRecord(api: ApiClient, table: string, record: string, values: Json): Promise<Json> {
  return (await api.put(`/api/v1/data/${table}/records/${record}`).send({ values }).expect(200)).body.data;
}

/** Every record of a table, values by column name, oldest first. */
export async function recordsOf(api: ApiClient, table: string): Promise<Json[]> {
  return (await api.get(`/api/v1/data/${table}/records?per_page=100`).expect(200)).body.data.items;
}

export async function createFlow(api: ApiClient, name = 'Flow'): Promise<string> {
  return (await api.post('/api/v1/flow').send({ name }).expect(201)).body.data.uuid;
}

/** Adds a step expecting 201 and returns it. */
export async function addStep(api: ApiClient, flow: string, body: Json): Promise<Json> {
  const res = await api.post(`/api/v1/flow/${flow}/steps`).send(body);
  if (res.status !== 201) throw new Error(`POST steps -> ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data;
}

export const trigger = (key: 'record_created' | 'record_updated', config: Json) => ({ app_uid: 'tables', trigger_key: key, config });
export const action = (key: string, config: Json) => ({ app_uid: 'tables', action_key: key, config });

/** A flow started by `first` then running `actions`, deployed. */
export async function liveFlow(api: ApiClient, first: Json, ...actions: Json[]): Promise<string> {
  const flow = await createFlow(api);
  await addStep(api, flow, first);
  for (const step of actions) await addStep(api, flow, step);
  const res = await api.post(`/api/v1/flow/${flow}/deploy`);
  if (res.status !== 200) throw new Error(`deploy -> ${res.status} ${JSON.stringify(res.body)}`);
  return flow;
}

/** Executions of a flow with their trigger event and steps, oldest first. */
export async function executionsOf(api: ApiClient, flow: string): Promise<Json[]> {
  const list = (await api.get(`/api/v1/flow/${flow}/executions?per_page=100`).expect(200)).body.data.items as Json[];
  const full = await Promise.all(list.map(async ({ uuid }) => (await api.get(`/api/v1/flow/${flow}/executions/${uuid}`).expect(200)).body.data));
  return full.reverse();
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until the bus has nothing left to deliver (every event handled, every execution run). */
export async function settled(kit: TestKernel): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    const [{ n }] = await kit.kernel.orm.em.fork().getConnection().execute(`select count(*)::int as n from bus_outbox where due_at <= now() + interval '1 second'`);
    if (n === 0) return;
    await sleep(100);
  }
  throw new Error('the bus did not settle');
}
