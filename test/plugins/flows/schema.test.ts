import path from 'node:path';
import { startTestKernel, type TestKernel } from '../../../core/testing';

const AGENTS = path.resolve(__dirname, '../../../plugins/agents');
const FLOWS = path.resolve(__dirname, '../../../plugins/flows');
let kit: TestKernel;

beforeAll(async () => {
  kit = await startTestKernel({ plugins: [AGENTS, FLOWS] });
});
afterAll(() => kit?.stop());

describe('flows database schema', () => {
  it('the migrations create exactly what the entities describe (no drift)', async () => {
    const diff = await kit.kernel.orm.schema.getUpdateSchemaSQL({ wrap: false });
    expect(diff.trim()).toBe('');
  });

  it('records the migration after the agents plugin’s, once', async () => {
    const executed = (await kit.kernel.orm.migrator.getExecuted()).map((m) => m.name);
    // Its own, in order, after every agents migration (the agents plugin adds its own over time).
    expect(executed.filter((name) => name.startsWith('flows/'))).toEqual(['flows/0001-flows', 'flows/0002-trigger-cursors', 'flows/0003-step-versions', 'flows/0004-oauth-connections']);
    expect(executed.findLastIndex((name) => name.startsWith('agents/'))).toBeLessThan(executed.indexOf('flows/0001-flows'));
    expect(await kit.kernel.orm.migrator.up()).toEqual([]);
  });
});
