import path from 'node:path';
import { startTestKernel, type TestKernel } from '../../../core/testing';

const AGENTS = path.resolve(__dirname, '../../../plugins/agents');
const TABLES = path.resolve(__dirname, '../../../plugins/tables');
let kit: TestKernel;

beforeAll(async () => {
  kit = await startTestKernel({ plugins: [AGENTS, TABLES] });
});
afterAll(() => kit?.stop());

describe('tables database schema', () => {
  it('the migrations create exactly what the entities describe (no drift)', async () => {
    const diff = await kit.kernel.orm.schema.getUpdateSchemaSQL({ wrap: false });
    expect(diff.trim()).toBe('');
  });

  it('records the migration after the agents plugin’s, once', async () => {
    const executed = (await kit.kernel.orm.migrator.getExecuted()).map((m) => m.name);
    expect(executed.slice(-2)).toEqual(['agents/0001-agents', 'tables/0001-tables']);
    expect(await kit.kernel.orm.migrator.up()).toEqual([]);
  });

  it('has pg_trgm for the typo-forgiving index', async () => {
    const rows = await kit.kernel.orm.em.fork().getConnection().execute(`select extname from pg_extension where extname = 'pg_trgm'`);
    expect(rows).toHaveLength(1);
  });
});
