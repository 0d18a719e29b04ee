import path from 'node:path';
import { startTestKernel, type TestKernel } from '../../../core/testing';

const AGENTS = path.resolve(__dirname, '../../../plugins/agents');
const MEMORIZE = path.resolve(__dirname, '../../../plugins/memorize');
// Memories are made from conversations' closed sessions, of contacts.
const CONVERSATIONS = path.resolve(__dirname, '../../../plugins/conversations');
const CONTACTS = path.resolve(__dirname, '../../../plugins/contacts');
let kit: TestKernel;

beforeAll(async () => {
  kit = await startTestKernel({ plugins: [AGENTS, CONVERSATIONS, CONTACTS, MEMORIZE] });
});
afterAll(() => kit?.stop());

describe('memorize database schema', () => {
  it('the migrations create exactly what the entities describe (no drift)', async () => {
    const diff = await kit.kernel.orm.schema.getUpdateSchemaSQL({ wrap: false });
    expect(diff.trim()).toBe('');
  });

  it('records its migrations after those of the plugins it depends on, once', async () => {
    const executed = (await kit.kernel.orm.migrator.getExecuted()).map((m) => m.name);
    expect(executed.slice(-2)).toEqual(['memorize/0001-memorize', 'memorize/0002-contact-memories']);
    expect(executed.indexOf('agents/0001-agents')).toBeLessThan(executed.indexOf('memorize/0001-memorize'));
    expect(executed.indexOf('conversations/0001-conversations')).toBeLessThan(executed.indexOf('memorize/0001-memorize'));
    expect(await kit.kernel.orm.migrator.up()).toEqual([]);
  });

  it('allows one default per tenant and one override per agent', async () => {
    const connection = kit.kernel.orm.em.fork().getConnection();
    const insert = (uuid: string, agent: string | null) =>
      connection.execute(
        `insert into memorize_settings (uuid, tenant_uuid, created_at, updated_at, agent_uuid, fields) values (?, ?, now(), now(), ?, '[]')`,
        [uuid, kit.tenant.uuid, agent],
      );
    await insert('0190d5c2-0000-7000-8000-000000000001', null);
    await expect(insert('0190d5c2-0000-7000-8000-000000000002', null)).rejects.toThrow(/memorize_settings_tenant_uuid_default_unique/);
    const agent = '0190d5c2-0000-7000-8000-0000000000aa';
    await insert('0190d5c2-0000-7000-8000-000000000003', agent);
    await expect(insert('0190d5c2-0000-7000-8000-000000000004', agent)).rejects.toThrow(/memorize_settings_tenant_uuid_agent_uuid_unique/);
    const [{ count }] = await connection.execute(`select count(*)::int as count from memorize_settings where tenant_uuid = ?`, [kit.tenant.uuid]);
    expect(count).toBe(2);
    const [column] = await connection.execute(`select data_type from information_schema.columns where table_name = 'memorize_settings' and column_name = 'updated_at'`);
    expect(column.data_type).toBe('timestamp with time zone');
  });
});
