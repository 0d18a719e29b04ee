import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { TestKernel, TestTenant } from '../../../../core/testing';

export const AGENTS = path.resolve(__dirname, '../../../../plugins/agents');
export const TABLES = path.resolve(__dirname, '../../../../plugins/tables');

type Api = TestTenant['api'];

export interface Column {
  name: string;
  data_type: string;
}

/** Creates a table through the API; returns its uuid. */
export async function createTable(api: Api, name: string, columns: Column[], searchLanguage?: string): Promise<string> {
  const res = await api
    .post('/api/v1/data/tables')
    .send({ name, columns, ...(searchLanguage ? { search_language: searchLanguage } : {}) })
    .expect(201);
  return res.body.data.uuid;
}

/** Creates records (values by column name) through the API; returns their uuids in order. */
export async function addRecords(api: Api, table: string, records: Array<Record<string, unknown>>): Promise<string[]> {
  const res = await api
    .post(`/api/v1/data/${table}/records`)
    .send({ records: records.map((values) => ({ values })) })
    .expect(201);
  return res.body.data.items.map((item: { uuid: string }) => item.uuid);
}

export interface Hit {
  table_uuid: string;
  table_name: string;
  record_uuid: string;
  score: number;
  values: Record<string, unknown>;
  snippet: string;
}

export async function searchTable(api: Api, table: string, query: string, limit?: number): Promise<Hit[]> {
  const res = await api
    .post(`/api/v1/data/${table}/search`)
    .send({ query, ...(limit ? { limit } : {}) })
    .expect(200);
  return res.body.data.items;
}

export async function createAgent(api: Api, name: string): Promise<string> {
  const res = await api.post('/api/v1/agents').send({ name }).expect(201);
  return res.body.data.agent_uuid;
}

export function sql<T = any>(kit: TestKernel, statement: string, params: unknown[] = []): Promise<T[]> {
  return kit.kernel.orm.em.fork().getConnection().execute(statement, params);
}

/** Waits (polling the table) until its index is `current` again after a sync was queued. */
export async function waitForCurrentIndex(api: Api, table: string, timeoutMs = 15_000): Promise<{ status: string; indexed_at: string | null }> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await api.get(`/api/v1/data/${table}`).expect(200);
    if (res.body.data.index.status === 'current') return res.body.data.index;
    if (Date.now() > deadline) throw new Error(`index of ${table} still ${res.body.data.index.status} after ${timeoutMs} ms`);
    await sleep(50);
  }
}
