import path from 'node:path';
import { startTestKernel, type TestKernel } from '../../../core/testing';

const AGENTS = path.resolve(__dirname, '../../../plugins/agents');
const CONVERSATIONS = path.resolve(__dirname, '../../../plugins/conversations');
let kit: TestKernel;

beforeAll(async () => {
  kit = await startTestKernel({ plugins: [AGENTS, CONVERSATIONS] });
});
afterAll(() => kit?.stop());

describe('conversations database schema', () => {
  it('the migrations create exactly what the entities describe (no drift)', async () => {
    const diff = await kit.kernel.orm.schema.getUpdateSchemaSQL({ wrap: false });
    expect(diff.trim()).toBe('');
  });

  it('records the migrations after the agents plugin’s, once', async () => {
    const executed = (await kit.kernel.orm.migrator.getExecuted()).map((m) => m.name);
    expect(executed.filter((name) => name.startsWith('conversations/'))).toEqual(['conversations/0001-conversations', 'conversations/0002-conversation-message-order', 'conversations/0003-message-delivery']);
    expect(executed.indexOf('agents/0001-agents')).toBeLessThan(executed.indexOf('conversations/0001-conversations'));
    expect(executed.at(-1)).toBe('conversations/0003-message-delivery');
    expect(await kit.kernel.orm.migrator.up()).toEqual([]);
  });

  it('allows one open session per conversation, any number of closed ones', async () => {
    const connection = kit.kernel.orm.em.fork().getConnection();
    const tenant = kit.tenant.uuid;
    const conversation = '0190d5c2-0000-7000-8000-0000000000c1';
    const agent = '0190d5c2-0000-7000-8000-0000000000aa';
    await connection.execute(
      `insert into conversations (uuid, tenant_uuid, created_at, updated_at, agent_uuid, channel, started_at) values (?, ?, now(), now(), ?, 'chat', now())`,
      [conversation, tenant, agent],
    );
    const session = (uuid: string, status: string) =>
      connection.execute(
        `insert into conversation_sessions (uuid, tenant_uuid, created_at, updated_at, conversation_uuid, agent_uuid, channel, status, started_at) values (?, ?, now(), now(), ?, ?, 'chat', ?, now())`,
        [uuid, tenant, conversation, agent, status],
      );
    await session('0190d5c2-0000-7000-8000-000000000001', 'closed');
    await session('0190d5c2-0000-7000-8000-000000000002', 'closed');
    await session('0190d5c2-0000-7000-8000-000000000003', 'open');
    await expect(session('0190d5c2-0000-7000-8000-000000000004', 'open')).rejects.toThrow(/conversation_sessions_open_unique/);
  });
});
