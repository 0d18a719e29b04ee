import path from 'node:path';
import { startTestKernel, type TestKernel } from '../../../core/testing';

const AGENTS = path.resolve(__dirname, '../../../plugins/agents');
const CONTACTS = path.resolve(__dirname, '../../../plugins/contacts');
let kit: TestKernel;

beforeAll(async () => {
  kit = await startTestKernel({ plugins: [AGENTS, path.resolve(__dirname, '../../../plugins/conversations'), CONTACTS] });
});
afterAll(() => kit?.stop());

describe('contacts database schema', () => {
  it('the migrations create exactly what the entities describe (no drift)', async () => {
    const diff = await kit.kernel.orm.schema.getUpdateSchemaSQL({ wrap: false });
    expect(diff.trim()).toBe('');
  });

  it('records the migration after the conversations plugin’s, once', async () => {
    const executed = (await kit.kernel.orm.migrator.getExecuted()).map((m) => m.name);
    expect(executed.slice(-2)).toEqual(['conversations/0002-conversation-message-order', 'contacts/0001-contacts']);
    expect(await kit.kernel.orm.migrator.up()).toEqual([]);
  });
});
