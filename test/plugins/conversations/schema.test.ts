import path from 'node:path';
import { startTestKernel, type TestKernel } from '../../../core/testing';
import { HISTORY } from '../../../plugins/conversations/conversations/conversation-writer';

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
    expect(executed.filter((name) => name.startsWith('conversations/'))).toEqual([
      'conversations/0001-conversations',
      'conversations/0002-conversation-message-order',
      'conversations/0003-message-delivery',
      'conversations/0004-history-index',
    ]);
    expect(executed.indexOf('agents/0001-agents')).toBeLessThan(executed.indexOf('conversations/0001-conversations'));
    expect(executed.at(-1)).toBe('conversations/0004-history-index');
    expect(await kit.kernel.orm.migrator.up()).toEqual([]);
  });

  it('reads a turn’s history from the conversation’s index alone, however many messages the tenant has', async () => {
    const connection = kit.kernel.orm.em.fork().getConnection();
    const tenant = kit.tenant.uuid;
    // The tenant's messages, many conversations of them, written faster than statistics follow (no ANALYZE): a busy table.
    await connection.execute(
      `insert into conversations (uuid, tenant_uuid, created_at, updated_at, agent_uuid, channel, started_at) ` +
        `select ('0190d5c3-0000-7000-8000-' || lpad(to_hex(n), 12, '0'))::uuid, ?, now(), now(), gen_random_uuid(), 'chat', now() from generate_series(1, 200) n`,
      [tenant],
    );
    await connection.execute(
      `insert into conversation_sessions (uuid, tenant_uuid, created_at, updated_at, conversation_uuid, agent_uuid, channel, status, started_at) ` +
        `select ('0190d5c4-0000-7000-8000-' || lpad(to_hex(n), 12, '0'))::uuid, ?, now(), now(), ('0190d5c3-0000-7000-8000-' || lpad(to_hex(n), 12, '0'))::uuid, ` +
        `gen_random_uuid(), 'chat', 'closed', now() from generate_series(1, 200) n`,
      [tenant],
    );
    await connection.execute(
      `insert into conversation_messages (uuid, tenant_uuid, created_at, updated_at, conversation_uuid, session_uuid, agent_uuid, channel, sender, message_type, content) ` +
        `select gen_random_uuid(), ?, now() - (n || ' ms')::interval, now(), ('0190d5c3-0000-7000-8000-' || lpad(to_hex(1 + n % 200), 12, '0'))::uuid, ` +
        `('0190d5c4-0000-7000-8000-' || lpad(to_hex(1 + n % 200), 12, '0'))::uuid, gen_random_uuid(), 'chat', 'customer', 'text', 'hello' from generate_series(1, 20000) n`,
      [tenant],
    );
    const plan = await kit.kernel.orm.em.fork().transactional(async (tx) => {
      const run = (sql: string) => tx.getConnection().execute(sql, [], 'all', tx.getTransactionContext());
      await run(`prepare history_probe as ${HISTORY.text}`);
      // The plan a prepared statement settles on after its first runs.
      await run('set local plan_cache_mode = force_generic_plan');
      const [row] = await run(`explain (format json) execute history_probe('${tenant}', '0190d5c3-0000-7000-8000-000000000007', 200)`);
      await run('deallocate history_probe');
      return JSON.stringify(row['QUERY PLAN']);
    });
    expect(plan).toContain('conversation_messages_conversation_index');
    expect(plan).not.toContain('conversation_messages_export_index');
    expect(plan).not.toContain('"Sort"');
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
