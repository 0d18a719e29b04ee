import { TableRecord } from '../../../../plugins/tables/entities';
import { runInContext } from '../../../../core/context/request-context';
import { startTestKernel, type TestKernel } from '../../../../core/testing';
import { AGENTS, TABLES, createRecords, createTable } from '../records/record-test-helpers';

let kit: TestKernel;
beforeAll(async () => {
  kit = await startTestKernel({ plugins: [AGENTS, TABLES] });
});
afterAll(() => kit?.stop());

const sql = (query: string, params: unknown[] = []): Promise<any[]> => kit.kernel.orm.em.fork().getConnection().execute(query, params);
const recordsOf = async (tenantUuid: string) => (await sql('select count(*)::int as n from data_table_records where tenant_uuid = ?', [tenantUuid]))[0].n;

describe('table records belong to their tenant through their table', () => {
  it('cannot name a table that does not exist (foreign_key_violation), and go with their table', async () => {
    const owner = await kit.createTenant();
    const table = await createTable(owner.api, { name: 'text' });
    await createRecords(owner.api, table.uuid, [{ name: 'a' }]);
    await expect(
      sql("insert into data_table_records (uuid, tenant_uuid, created_at, updated_at, table_uuid, values) values (gen_random_uuid(), ?, now(), now(), gen_random_uuid(), '{}')", [owner.tenant.uuid]),
    ).rejects.toMatchObject({ code: '23503' });
    await owner.api.delete(`/api/v1/data/${table.uuid}`).expect(200);
    expect(await recordsOf(owner.tenant.uuid)).toBe(0);
  });


  it('carry no row-by-row foreign key, stay filtered by tenant, and go when their tenant is deleted', async () => {
    const keys = await sql(
      "select conname from pg_constraint where conrelid = 'data_table_records'::regclass and contype = 'f' order by conname",
    );
    expect(keys).toEqual([]);
    // The key to the table is checked once per statement, by triggers (statementForeignKey).
    const triggers = await sql("select tgname from pg_trigger where tgrelid in ('data_table_records'::regclass, 'data_tables'::regclass) and tgname like 'data_table_records_%' order by tgname");
    expect(triggers.map((row) => row.tgname)).toEqual([
      'data_table_records_table_uuid_foreign_cascade',
      'data_table_records_table_uuid_foreign_insert',
      'data_table_records_table_uuid_foreign_update',
    ]);

    const doomed = await kit.createTenant();
    const other = await kit.createTenant();
    const table = await createTable(doomed.api, { name: 'text' });
    await createRecords(doomed.api, table.uuid, [{ name: 'a' }, { name: 'b' }]);
    const kept = await createTable(other.api, { name: 'text' });
    await createRecords(other.api, kept.uuid, [{ name: 'c' }]);

    // The tenant filter applies to them as to any tenant-scoped entity.
    const seen = await runInContext({ tenant: doomed.tenant }, () => kit.kernel.orm.em.fork().find(TableRecord, {}));
    expect(seen.map((record) => record.tableUuid)).toEqual([table.uuid, table.uuid]);

    await sql('delete from tenants where uuid = ?', [doomed.tenant.uuid]);
    expect(await recordsOf(doomed.tenant.uuid)).toBe(0);
    expect(await recordsOf(other.tenant.uuid)).toBe(1);
  });
});
