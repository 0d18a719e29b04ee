import path from 'node:path';
import { startTestKernel, type TestKernel } from '../../../core/testing';

const plugins = ['agents', 'conversations', 'evaluation'].map((id) => path.resolve(__dirname, '../../../plugins', id));
let kit: TestKernel;

beforeAll(async () => {
  kit = await startTestKernel({ plugins });
});
afterAll(() => kit?.stop());

describe('evaluation database schema', () => {
  it('the migrations create exactly what the entities describe (no drift)', async () => {
    const diff = await kit.kernel.orm.schema.getUpdateSchemaSQL({ wrap: false });
    expect(diff.trim()).toBe('');
  });

  it('records the migration after the conversations plugin’s, once', async () => {
    const executed = (await kit.kernel.orm.migrator.getExecuted()).map((m) => m.name);
    // Its own, after every migration of the conversations plugin (which adds its own over time).
    expect(executed.filter((name) => name.startsWith('evaluation/'))).toEqual(['evaluation/0001-evaluation']);
    expect(executed.findLastIndex((name) => name.startsWith('conversations/'))).toBeLessThan(executed.indexOf('evaluation/0001-evaluation'));
    expect(await kit.kernel.orm.migrator.up()).toEqual([]);
  });

  it('allows one default per tenant, one override per agent and one evaluation per session', async () => {
    const connection = kit.kernel.orm.em.fork().getConnection();
    const tenant = kit.tenant.uuid;
    const settings = (uuid: string, agent: string | null) =>
      connection.execute(
        `insert into evaluate_settings (uuid, tenant_uuid, created_at, updated_at, agent_uuid, sessionization, text, voice) values (?, ?, now(), now(), ?, '{}', '{}', '{}')`,
        [uuid, tenant, agent],
      );
    await settings('0190d5c2-0000-7000-8000-000000000001', null);
    await expect(settings('0190d5c2-0000-7000-8000-000000000002', null)).rejects.toThrow(/evaluate_settings_tenant_uuid_default_unique/);
    const agent = '0190d5c2-0000-7000-8000-0000000000aa';
    await settings('0190d5c2-0000-7000-8000-000000000003', agent);
    await expect(settings('0190d5c2-0000-7000-8000-000000000004', agent)).rejects.toThrow(/evaluate_settings_tenant_uuid_agent_uuid_unique/);
    const evaluation = (uuid: string) =>
      connection.execute(
        `insert into evaluations (uuid, tenant_uuid, created_at, updated_at, session_uuid, conversation_uuid, agent_uuid, channel, settings_source, block, mode, status, results, errors)
         values (?, ?, now(), now(), '0190d5c2-0000-7000-8000-0000000000e1', '0190d5c2-0000-7000-8000-0000000000c1', ?, 'chat', 'default', 'text', 'per_analyzer', 'completed', '{}', '[]')`,
        [uuid, tenant, agent],
      );
    await evaluation('0190d5c2-0000-7000-8000-000000000005');
    await expect(evaluation('0190d5c2-0000-7000-8000-000000000006')).rejects.toThrow(/evaluations_tenant_uuid_session_uuid_unique/);
  });
});
