import path from 'node:path';
import { definePlugin, llmProviders, setTenantQuotas, tenantQuotasJson, type LlmProvider, type QuotaValues } from '../../../core';
import { runInContext } from '../../../core/context/request-context';
import { startTestKernel, type TestKernel, type TestTenant } from '../../../core/testing';
import { waitFor } from '../../../core/testing';

const PLUGINS = path.resolve(__dirname, '../../../plugins');
const PROBE = path.resolve(__dirname, '../../plugins/flows/engine/fixtures/flow-probe');

/** Every model call costs 15 tokens. */
const provider: LlmProvider = {
  id: 'counting',
  chat: async () => ({ content: 'ok', toolCalls: [], finishReason: 'stop', model: 'm', usage: { promptTokens: 10, completionTokens: 5, totalTokens: 15 } }),
};

let kit: TestKernel;
beforeAll(async () => {
  kit = await startTestKernel({
    plugins: [path.join(PLUGINS, 'agents'), path.join(PLUGINS, 'flows'), path.join(PLUGINS, 'tables'), PROBE, definePlugin({ id: 'counting-llm', contributes: [llmProviders.add(provider)] })],
    config: { quotaAgents: 2, quotaFlows: 1, quotaTableRows: 3, quotaModelTokensPerDay: 25, busPollIntervalMs: 50 },
  });
});
afterAll(() => kit?.stop());

const quotas = (owner: TestTenant, values: QuotaValues) => kit.kernel.orm.em.fork().transactional((em) => setTenantQuotas(em, owner.tenant.uuid, values));
const quotaMessage = (name: string, limit: number) => ({ success: false, message: `Quota exceeded: ${name} (limit ${limit})`, data: [] });

describe('tenant quotas', () => {
  it('agents: a 429 naming the quota past the default; an override lifts it; null goes back to the default', async () => {
    const owner = await kit.createTenant();
    const createAgent = () => owner.api.post('/api/v1/agents').send({ name: 'Reception' });
    await createAgent().expect(201);
    await createAgent().expect(201);
    expect((await createAgent().expect(429)).body).toEqual(quotaMessage('agents', 2));
    await quotas(owner, { agents: 3 });
    await createAgent().expect(201);
    expect((await createAgent().expect(429)).body).toEqual(quotaMessage('agents', 3));
    await quotas(owner, { agents: 0 }); // unlimited
    await createAgent().expect(201);
    await quotas(owner, { agents: null });
    expect((await createAgent().expect(429)).body).toEqual(quotaMessage('agents', 2));
    expect(await tenantQuotasJson(kit.kernel.orm.em.fork(), owner.tenant.uuid)).toEqual({
      agents: 2,
      flows: 1,
      table_rows: 3,
      concurrent_flow_executions: 0,
      model_tokens_per_day: 25,
    });
  });

  it('flows: a 429 naming the quota; an override lifts it', async () => {
    const owner = await kit.createTenant();
    const createFlow = () => owner.api.post('/api/v1/flow').send({ name: 'F' });
    await createFlow().expect(201);
    expect((await createFlow().expect(429)).body).toEqual(quotaMessage('flows', 1));
    await quotas(owner, { flows: 2 });
    await createFlow().expect(201);
    expect((await createFlow().expect(429)).body).toEqual(quotaMessage('flows', 2));
  });

  it('table rows: counted across all the tenant’s tables, for records and imports', async () => {
    const owner = await kit.createTenant();
    const table = async (name: string) =>
      (await owner.api.post('/api/v1/data/tables').send({ name, columns: [{ name: 'name', data_type: 'text' }] }).expect(201)).body.data.uuid as string;
    const records = (uuid: string, n: number) => owner.api.post(`/api/v1/data/${uuid}/records`).send({ records: Array.from({ length: n }, (_, i) => ({ values: { name: `r${i}` } })) });
    const first = await table('One');
    const second = await table('Two');
    await records(first, 2).expect(201);
    // 2 + 2 > 3, though each table alone holds less: nothing is written.
    expect((await records(second, 2).expect(429)).body).toEqual(quotaMessage('table_rows', 3));
    await records(second, 1).expect(201);
    const pasted = await owner.api.post('/api/v1/data/import/copypaste').send({ text: 'name\na\nb\n', name: 'Pasted' }).expect(202);
    const done = await importFinished(owner, pasted.body.data.uuid);
    expect(done).toMatchObject({ status: 'failed', message: 'Quota exceeded: table_rows (limit 3)', rows_imported: 0 });
    await quotas(owner, { table_rows: 10 });
    const again = await owner.api.post('/api/v1/data/import/copypaste').send({ text: 'name\na\nb\n', name: 'Pasted' }).expect(202);
    expect(await importFinished(owner, again.body.data.uuid)).toMatchObject({ status: 'completed', rows_imported: 2 });
  });

  it('model tokens per day: llm.chat refuses before calling the model once the day is used up', async () => {
    const owner = await kit.createTenant();
    const chat = () => runInContext({ tenant: owner.tenant }, () => kit.kernel.llm.chat({ messages: [{ role: 'user', content: 'hi' }] }));
    await chat(); // 15
    await chat(); // 30: the call that crossed 25 was allowed to finish
    await expect(chat()).rejects.toThrow('Quota exceeded: model_tokens_per_day (limit 25)');
    await kit.kernel.llm.flushUsage();
    await quotas(owner, { model_tokens_per_day: 100 });
    await chat(); // 45, read back from llm_usage
    await quotas(owner, { model_tokens_per_day: null });
    await expect(chat()).rejects.toThrow('Quota exceeded: model_tokens_per_day (limit 25)');
  });

  it('concurrent flow executions: one past the limit waits, queued, until a running one ends', async () => {
    const owner = await kit.createTenant();
    await quotas(owner, { concurrent_flow_executions: 1, flows: 5 });
    const flow = await deploy(owner);
    const fired = await owner.api.post('/api/v1/probe/fire').send({ version_uuid: flow, events: [{}, {}] }).expect(200);
    const [a, b] = fired.body.data as string[];
    const rows = await waitFor(
      () => sql<{ uuid: string; status: string; started_at: string; finished_at: string }>('select uuid, status, started_at, finished_at from flow_executions where uuid in (?, ?)', [a, b]),
      (found) => found.length === 2 && found.every((row) => row.status === 'succeeded'),
    );
    const time = (at: string) => new Date(at).getTime();
    const [earlier, later] = [...rows].sort((x, y) => time(x.started_at) - time(y.started_at));
    // Never both running: the second started only after the first finished.
    expect(time(later.started_at)).toBeGreaterThanOrEqual(time(earlier.finished_at));
  });
});

async function deploy(owner: TestTenant): Promise<string> {
  const flowUuid: string = (await owner.api.post('/api/v1/flow').send({ name: 'Slow' }).expect(201)).body.data.uuid;
  const steps = [{ trigger_key: 'manual' }, { action_key: 'wait', config: { ms: 800 } }, { action_key: 'echo', config: { value: 'done' } }];
  for (const step of steps) await owner.api.post(`/api/v1/flow/${flowUuid}/steps`).send({ app_uid: 'probe', config: {}, ...step }).expect(201);
  return (await owner.api.post(`/api/v1/flow/${flowUuid}/deploy`).expect(200)).body.data.live_version.uuid;
}

async function importFinished(owner: TestTenant, uuid: string): Promise<Record<string, unknown>> {
  return waitFor(
    async () => (await owner.api.get(`/api/v1/data/imports/${uuid}`).expect(200)).body.data,
    (data) => data.status === 'completed' || data.status === 'failed',
  );
}

function sql<T>(statement: string, params: unknown[]): Promise<T[]> {
  return kit.kernel.orm.em.fork().getConnection().execute(statement, params);
}

