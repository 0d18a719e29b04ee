import path from 'node:path';
import { startTestKernel, type TestKernel } from '../../../core/testing';
import { RUNTIME_PLUGINS } from '../runtime/runtime-test-kit';

const CHANNELS = path.resolve(__dirname, '../../../plugins/channels');
let kit: TestKernel;

beforeAll(async () => {
  kit = await startTestKernel({ plugins: [...RUNTIME_PLUGINS, CHANNELS] });
});
afterAll(() => kit?.stop());

describe('channels database schema', () => {
  it('the migrations create exactly what the entities describe (no drift)', async () => {
    const diff = await kit.kernel.orm.schema.getUpdateSchemaSQL({ wrap: false });
    expect(diff.trim()).toBe('');
  });

  it('records its migration after the plugins it depends on, once', async () => {
    const executed = (await kit.kernel.orm.migrator.getExecuted()).map((m) => m.name);
    expect(executed.filter((name) => name.startsWith('channels/'))).toEqual(['channels/0001-channels', 'channels/0002-chatapp-templates', 'channels/0003-template-status-reason', 'channels/0004-inbound-order', 'channels/0005-send-order']);
    expect(executed.findLastIndex((name) => name.startsWith('runtime/'))).toBeLessThan(executed.indexOf('channels/0001-channels'));
    expect(executed).toContain('conversations/0003-message-delivery');
    expect(await kit.kernel.orm.migrator.up()).toEqual([]);
  });
});
