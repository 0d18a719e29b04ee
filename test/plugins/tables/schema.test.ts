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
    // Its own, in order, after every agents migration (the agents plugin adds its own over time).
    expect(executed.filter((name) => name.startsWith('tables/'))).toEqual(['tables/0001-tables', 'tables/0002-search-vectors', 'tables/0003-record-keys', 'tables/0004-upload-chunk-storage']);
    expect(executed.findLastIndex((name) => name.startsWith('agents/'))).toBeLessThan(executed.indexOf('tables/0001-tables'));
    expect(await kit.kernel.orm.migrator.up()).toEqual([]);
  });

  it('stores uploaded content uncompressed: it only waits for its import job', async () => {
    const [column] = await kit.kernel.orm.em
      .fork()
      .getConnection()
      .execute(`select attstorage from pg_attribute where attrelid = 'data_table_import_chunks'::regclass and attname = 'data'`);
    expect(column.attstorage).toBe('e');
  });

  it('has pg_trgm (the word list forgiving typos) and btree_gin (indexes led by the table)', async () => {
    const rows = await kit.kernel.orm.em.fork().getConnection().execute(`select extname from pg_extension where extname in ('pg_trgm', 'btree_gin') order by extname`);
    expect(rows.map((row) => row.extname)).toEqual(['btree_gin', 'pg_trgm']);
  });
});
