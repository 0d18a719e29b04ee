import { startTestKernel, type TestKernel } from '../../../core/testing';
import { WEB_CHAT_PLUGINS } from './web-chat-test-kit';

let kit: TestKernel;

beforeAll(async () => {
  kit = await startTestKernel({ plugins: WEB_CHAT_PLUGINS });
});
afterAll(() => kit?.stop());

describe('web chat database schema', () => {
  it('the migrations create exactly what the entities describe (no drift), after the agents plugin’s public key', async () => {
    const diff = await kit.kernel.orm.schema.getUpdateSchemaSQL({ wrap: false });
    expect(diff.trim()).toBe('');
    const executed = (await kit.kernel.orm.migrator.getExecuted()).map((m) => m.name);
    expect(executed.indexOf('agents/0002-channel-public-key')).toBeGreaterThan(executed.indexOf('agents/0001-agents'));
    expect(executed.at(-1)).toBe('web-chat/0001-web-chat');
  });

  it('a public key belongs to one channel across every tenant', async () => {
    const connection = kit.kernel.orm.em.fork().getConnection();
    const other = await kit.createTenant();
    const make = async (api: typeof kit.api) => {
      const agent = (await api.post('/api/v1/agents').send({ name: 'A' }).expect(201)).body.data.agent_uuid;
      const channels = (await api.post(`/api/v1/agents/${agent}/channels`).send({ type: 'web_chat' }).expect(200)).body.data.channels;
      return channels[0] as { uuid: string; public_key: string };
    };
    const mine = await make(kit.api);
    const theirs = await make(other.api);
    await expect(connection.execute('update agent_channels set public_key = ? where uuid = ?', [mine.public_key, theirs.uuid])).rejects.toThrow(/agent_channels_public_key_unique/);
  });
});
