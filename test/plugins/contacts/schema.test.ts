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
    // Its own, after every migration of the conversations plugin (which adds its own over time).
    expect(executed.filter((name) => name.startsWith('contacts/'))).toEqual(['contacts/0001-contacts']);
    expect(executed.findLastIndex((name) => name.startsWith('conversations/'))).toBeLessThan(executed.indexOf('contacts/0001-contacts'));
    expect(await kit.kernel.orm.migrator.up()).toEqual([]);
  });
});
