import { startTestKernel, type TestKernel } from '../../../core/testing';
import { CALLS_PLUGINS } from './calls-kit';

let kit: TestKernel;

beforeAll(async () => {
  kit = await startTestKernel({ plugins: CALLS_PLUGINS });
});
afterAll(() => kit?.stop());

describe('calls database schema', () => {
  it('the migrations create exactly what the entities describe (no drift)', async () => {
    const diff = await kit.kernel.orm.schema.getUpdateSchemaSQL({ wrap: false });
    expect(diff.trim()).toBe('');
  });

  it('records its migration after the plugins it depends on, once', async () => {
    const executed = (await kit.kernel.orm.migrator.getExecuted()).map((m) => m.name);
    expect(executed.filter((name) => name.startsWith('calls/'))).toEqual(['calls/0001-calls', 'calls/0002-call-transfer-fallback']);
    expect(executed.findLastIndex((name) => name.startsWith('channels/'))).toBeLessThan(executed.indexOf('calls/0001-calls'));
    expect(await kit.kernel.orm.migrator.up()).toEqual([]);
  });
});
