import type { MikroORM } from '@mikro-orm/postgresql';
import { captureLogger, startUsageDatabase } from './llm-test-helpers';

const { logger } = captureLogger();
let database: Awaited<ReturnType<typeof startUsageDatabase>>;
let orm: MikroORM;

beforeAll(async () => {
  database = await startUsageDatabase(logger);
  orm = database.orm;
});
afterAll(() => database?.close());

describe('llm_usage schema', () => {
  it('migration 0003 creates exactly what the LlmUsage entity describes (no drift)', async () => {
    const diff = await orm.schema.getUpdateSchemaSQL({ wrap: false });
    expect(diff.trim()).toBe('');
  });

  it('indexes usage by tenant and time, and deletes it with its tenant', async () => {
    const connection = orm.em.fork().getConnection();
    const [index] = await connection.execute(`select indexdef from pg_indexes where tablename = 'llm_usage' and indexname = 'llm_usage_tenant_uuid_created_at_index'`);
    expect(index.indexdef).toContain('(tenant_uuid, created_at)');
    const [foreignKey] = await connection.execute(
      `select confdeltype from pg_constraint where conrelid = 'llm_usage'::regclass and conname = 'llm_usage_tenant_uuid_foreign'`,
    );
    expect(foreignKey.confdeltype).toBe('c');
  });
});
