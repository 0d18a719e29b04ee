import path from 'node:path';
import { startTestKernel, type TestKernel } from '../../../core/testing';

let kit: TestKernel;

beforeAll(async () => {
  kit = await startTestKernel({ plugins: [path.resolve(__dirname, '../../../plugins/agents')] });
});
afterAll(() => kit?.stop());

describe('agents schema', () => {
  it('the migration creates exactly what the entities describe (no drift)', async () => {
    const diff = await kit.kernel.orm.schema.getUpdateSchemaSQL({ wrap: false });
    expect(diff.trim()).toBe('');
  });

  it("a tenant's agents and their lists go with the tenant", async () => {
    const other = await kit.createTenant();
    await other.api.post('/api/v1/agents').send({ name: 'Doomed', guidelines: [{ content: 'g', order: 1 }] }).expect(201);
    const connection = kit.kernel.orm.em.fork().getConnection();
    await connection.execute('delete from tenants where uuid = ?', [other.tenant.uuid]);
    const [left] = await connection.execute(
      `select (select count(*) from agents where tenant_uuid = ?)::int + (select count(*) from agent_guidelines where tenant_uuid = ?)::int as n`,
      [other.tenant.uuid, other.tenant.uuid],
    );
    expect(left.n).toBe(0);
  });
});
