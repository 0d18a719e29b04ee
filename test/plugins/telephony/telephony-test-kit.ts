import path from 'node:path';
import type { ApiClient, TestKernel } from '../../../core/testing';

/** The telephony plugin and what it depends on. */
export const TELEPHONY_PLUGINS = ['agents', 'telephony'].map((id) => path.resolve(__dirname, '../../../plugins', id));

export type Json = Record<string, any>;

/** An agent made through the API, with these phone numbers. */
export async function agentWith(api: ApiClient, numbers: string[] = [], name = 'Reception'): Promise<string> {
  const created = await api.post('/api/v1/agents').send({ name }).expect(201);
  const uuid = created.body.data.agent_uuid as string;
  for (const number of numbers) await api.post(`/api/v1/agents/${uuid}/phone-numbers`).send({ number }).expect(200);
  return uuid;
}

/** Numbers no other test of the same file uses (one agent per number in a tenant). */
export function numberSource(start: number): () => string {
  let next = start;
  return () => `+1${next++}`;
}

/** The raw row, as the database holds it. */
export async function rawRow(kit: TestKernel, table: string, uuid: string): Promise<Json> {
  const [row] = await kit.kernel.orm.em.fork().getConnection().execute(`select * from ${table} where uuid = ?`, [uuid]);
  return row;
}

/** Sends a write expecting 422 naming exactly `paths`; answers the errors. */
export async function refused(request: PromiseLike<{ status: number; body: Json }>, paths: string[]): Promise<Json> {
  const res = await request;
  if (res.status !== 422) throw new Error(`expected 422, got ${res.status} ${JSON.stringify(res.body)}`);
  expect(Object.keys(res.body.errors).sort()).toEqual([...paths].sort());
  return res.body.errors;
}
