import path from 'node:path';
import type { ApiClient } from '../../../../core/testing';

export const AGENTS = path.resolve(__dirname, '../../../../plugins/agents');
export const TABLES = path.resolve(__dirname, '../../../../plugins/tables');

export interface ImportBody {
  uuid: string;
  table_uuid: string;
  status: string;
  progress: { done: number; total: number | null; unit: string };
  rows_imported: number;
  error_count: number;
  errors: Array<{ row: number; message: string }>;
  message: string | null;
  [member: string]: unknown;
}

/** Polls the import until it has completed or failed (a deadline, not a timing assertion). */
export async function finished(api: ApiClient, uuid: string, timeoutMs = 20_000): Promise<ImportBody> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await api.get(`/api/v1/data/imports/${uuid}`).expect(200);
    if (res.body.data.status === 'completed' || res.body.data.status === 'failed') return res.body.data;
    if (Date.now() > deadline) throw new Error(`import ${uuid} still ${res.body.data.status}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Pastes CSV text and waits for the import. */
export async function paste(api: ApiClient, body: Record<string, unknown>): Promise<ImportBody> {
  const res = await api.post('/api/v1/data/import/copypaste').send(body).expect(202);
  return finished(api, res.body.data.uuid);
}

/** Uploads a file (with optional form fields) and waits for the import. */
export async function upload(api: ApiClient, content: Buffer | string, filename: string, fields: Record<string, string> = {}): Promise<ImportBody> {
  const res = await uploadRequest(api, content, filename, fields).expect(202);
  return finished(api, res.body.data.uuid);
}

export function uploadRequest(api: ApiClient, content: Buffer | string, filename: string, fields: Record<string, string> = {}) {
  let request = api.post('/api/v1/data/import/file');
  for (const [name, value] of Object.entries(fields)) request = request.field(name, value);
  return request.attach('file', Buffer.isBuffer(content) ? content : Buffer.from(content), filename);
}

/** A table's columns (name -> type) in order. */
export async function columnsOf(api: ApiClient, table: string): Promise<Array<[string, string]>> {
  const res = await api.get(`/api/v1/data/${table}`).expect(200);
  return res.body.data.columns.map((column: { name: string; data_type: string }) => [column.name, column.data_type]);
}

/** Every record's values (by column name), in the order they were written. */
export async function rowsOf(api: ApiClient, table: string): Promise<Array<Record<string, unknown>>> {
  const rows: Array<Record<string, unknown>> = [];
  for (let page = 1; ; page++) {
    const res = await api.get(`/api/v1/data/${table}/records?per_page=100&page=${page}`).expect(200);
    rows.push(...res.body.data.items.map((record: { values: Record<string, unknown> }) => record.values));
    if (!res.body.data.pagination.has_more) return rows;
  }
}
