import path from 'node:path';
import { startTestKernel, type TestKernel } from '../../../core/testing';

const AGENTS = path.resolve(__dirname, '../../../plugins/agents');
const OUTREACH = path.resolve(__dirname, '../../../plugins/outreach');
let kit: TestKernel;

beforeAll(async () => {
  kit = await startTestKernel({ plugins: [AGENTS, path.resolve(__dirname, '../../../plugins/conversations'), path.resolve(__dirname, '../../../plugins/contacts'), OUTREACH] });
});
afterAll(() => kit?.stop());

describe('outreach database schema', () => {
  it('the migrations create exactly what the entities describe (no drift)', async () => {
    const diff = await kit.kernel.orm.schema.getUpdateSchemaSQL({ wrap: false });
    expect(diff.trim()).toBe('');
  });

  it('records the migration after the contacts plugin’s, once', async () => {
    const executed = (await kit.kernel.orm.migrator.getExecuted()).map((m) => m.name);
    expect(executed.slice(-2)).toEqual(['contacts/0001-contacts', 'outreach/0001-outreach']);
    expect(await kit.kernel.orm.migrator.up()).toEqual([]);
  });
});
