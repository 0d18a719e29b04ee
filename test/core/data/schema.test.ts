import path from 'node:path';
import { startTestKernel, type TestKernel } from '../../../core/testing';
import { Note } from '../../../examples/plugins/notes/note.entity';

const EXAMPLES = path.resolve(__dirname, '../../../examples/plugins');
let kit: TestKernel;

beforeAll(async () => {
  kit = await startTestKernel({ plugins: [path.join(EXAMPLES, 'notes'), path.join(EXAMPLES, 'notes-word-count')] });
});
afterAll(() => kit?.stop());

describe('database schema', () => {
  it('the migrations create exactly what the entities describe (no drift)', async () => {
    const diff = await kit.kernel.orm.schema.getUpdateSchemaSQL({ wrap: false });
    expect(diff.trim()).toBe('');
  });

  it("records each migration once, named after its plugin", async () => {
    const executed = (await kit.kernel.orm.migrator.getExecuted()).map((m) => m.name);
    expect(executed).toEqual(['core/0001-tenancy', 'core/0002-bus', 'core/0003-llm-usage', 'core/0004-bus-wake-after-commit', 'core/0005-idempotency-keys', 'core/0006-tenant-lifecycle', 'core/0007-limits', 'core/0008-llm-usage-agent', 'core/0009-bus-outbox-keys', 'notes/0001-notes']);
    expect(await kit.kernel.orm.migrator.up()).toEqual([]);
  });

  it('ids are time-ordered UUIDv7 and timestamps timestamptz', async () => {
    const first = await kit.api.post('/api/v1/notes').send({ title: 'a' }).expect(201);
    const second = await kit.api.post('/api/v1/notes').send({ title: 'b' }).expect(201);
    expect(first.body.data.uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(second.body.data.uuid > first.body.data.uuid).toBe(true);
    const [column] = await kit.kernel.orm.em
      .fork()
      .getConnection()
      .execute(`select data_type from information_schema.columns where table_name = 'example_notes' and column_name = 'created_at'`);
    expect(column.data_type).toBe('timestamp with time zone');
  });
});

describe('tenant filter', () => {
  it('refuses a tenant-scoped query outside any tenant context instead of returning every tenant', async () => {
    await expect(kit.kernel.orm.em.fork().find(Note, {})).rejects.toThrow(/no tenant in context for Note/);
  });

  it('scopes reads and stamps writes with the current tenant', async () => {
    const other = await kit.createTenant();
    await other.api.post('/api/v1/notes').send({ title: 'theirs' }).expect(201);
    const em = kit.kernel.orm.em.fork();
    const all = await em.find(Note, {}, { filters: { tenant: false } });
    const theirs = all.find((n) => n.title === 'theirs')!;
    expect(theirs.tenantUuid).toBe(other.tenant.uuid);
    await kit.api.get(`/api/v1/notes/${theirs.uuid}`).expect(404);
  });
});
