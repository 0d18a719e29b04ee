import { startTestKernel, type TestKernel, type TestTenant } from '../../../../core/testing';
import { pruneExecutions } from '../../../../plugins/flows/engine/retention';
import { AGENTS, FLOWS, PROBE, TRANSPORT, deployFlow, fire, sql, waitFor } from './engine-helpers';

/**
 * Executions older than the retention are deleted in batches. The kernel only serves,
 * so executions stay as the test makes them: it fires them, then sets their status and
 * age by hand.
 */
let kit: TestKernel;

beforeAll(async () => {
  kit = await startTestKernel({ plugins: [AGENTS, FLOWS, PROBE], role: 'serve', config: TRANSPORT });
});
afterAll(() => kit?.stop());

/** Executions of a new flow in `tenant`, each `days` old and in `status`, each with one step record. */
async function executions(count: number, days: number, status: string, owner: TestTenant = kit): Promise<string[]> {
  const flow = await deployFlow(owner, [{ name: 'trigger' }, { name: 'echo', action: 'echo' }]);
  const uuids = await fire(owner.api, flow.versionUuid, Array.from({ length: count }, () => ({})));
  await sql(kit, `update flow_executions set status = ?, created_at = now() - (? * interval '1 day') where uuid = any(?::uuid[])`, [status, days, `{${uuids.join(',')}}`]);
  await sql(
    kit,
    `insert into flow_execution_steps (uuid, tenant_uuid, created_at, updated_at, execution_uuid, step_uuid, position, status, duration_ms) ` +
      `select gen_random_uuid(), tenant_uuid, now(), now(), uuid, ?, 2, 'succeeded', 1 from flow_executions where uuid = any(?::uuid[])`,
    [flow.ids.echo, `{${uuids.join(',')}}`],
  );
  return uuids;
}

const remaining = async (uuids: string[]) =>
  (await sql(kit, 'select uuid from flow_executions where uuid = any(?::uuid[])', [`{${uuids.join(',')}}`])).map((row) => row.uuid).sort();
const stepsOf = async (uuids: string[]) => (await sql(kit, 'select 1 from flow_execution_steps where execution_uuid = any(?::uuid[])', [`{${uuids.join(',')}}`])).length;
const clear = () => sql(kit, 'delete from flow_executions');

describe('pruneExecutions', () => {
  beforeEach(clear);

  it('deletes finished executions older than the retention, of every tenant, with their steps, batch after batch', async () => {
    const other = await kit.createTenant();
    const old = [
      ...(await executions(7, 31, 'succeeded')),
      ...(await executions(3, 45, 'failed')),
      ...(await executions(2, 400, 'succeeded', other)),
    ];
    const kept = [...(await executions(3, 29, 'succeeded')), ...(await executions(2, 60, 'running')), ...(await executions(1, 60, 'queued'))];

    const em = kit.kernel.orm.em.fork();
    const execute = jest.spyOn(em.getConnection(), 'execute');
    expect(await pruneExecutions(em, 30, { batchSize: 5 })).toBe(12);
    // 5, 5, then a short batch of 2 ends it.
    expect(execute.mock.calls.filter(([statement]) => String(statement).startsWith('delete'))).toHaveLength(3);
    execute.mockRestore();

    expect(await remaining(old)).toEqual([]);
    expect(await stepsOf(old)).toBe(0);
    expect(await remaining(kept)).toEqual([...kept].sort());
    expect(await stepsOf(kept)).toBe(kept.length);
  });

  it('lets several workers prune at once, each execution deleted once', async () => {
    const old = await executions(40, 90, 'succeeded');
    const counts = await Promise.all([1, 2, 3].map(() => pruneExecutions(kit.kernel.orm.em.fork(), 30, { batchSize: 4 })));
    expect(counts.reduce((sum, n) => sum + n, 0)).toBe(40);
    expect(await remaining(old)).toEqual([]);
  });

  it('stops after the batch in progress when asked (a worker shutting down)', async () => {
    await executions(10, 90, 'succeeded');
    const em = kit.kernel.orm.em.fork();
    const connection = em.getConnection();
    const execute = connection.execute.bind(connection);
    const stop = new AbortController();
    jest.spyOn(connection, 'execute').mockImplementation(async (...args: Parameters<typeof execute>) => {
      const result = await execute(...args);
      stop.abort(); // the shutdown comes while the first batch runs
      return result;
    });
    expect(await pruneExecutions(em, 30, { batchSize: 2, signal: stop.signal })).toBe(2);
    expect((await sql(kit, 'select 1 from flow_executions')).length).toBe(8);
  });
});

describe('the retention schedule', () => {
  beforeEach(clear);

  it('prunes by FLOWS_EXECUTION_RETENTION_DAYS when a worker starts', async () => {
    const old = await executions(3, 11, 'succeeded');
    const young = await executions(2, 9, 'failed');
    const worker = await startTestKernel({
      plugins: [AGENTS, FLOWS, PROBE],
      role: 'worker',
      tenant: 'pruner',
      config: { ...TRANSPORT, databaseUrl: kit.kernel.config.core.databaseUrl, busNamespace: kit.kernel.config.core.busNamespace, flows: { executionRetentionDays: 10 } },
    });
    try {
      await waitFor(() => remaining(old), (rows) => rows.length === 0);
      expect(await remaining(young)).toEqual([...young].sort());
    } finally {
      await worker.stop();
    }
  });
});
