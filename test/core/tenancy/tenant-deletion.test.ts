import path from 'node:path';
import { Client } from 'pg';
import supertest from 'supertest';
import { startTestKernel, type TestKernel, type TestTenant } from '../../../core/testing';
import { TenantDeletionJob, tenantTablesInOrder } from '../../../core/tenancy/tenant-deletion';
import { lifecycleProbe } from './fixtures/lifecycle-probe';
import { waitFor } from '../../../core/testing';

const NOTES = path.resolve(__dirname, '../../../examples/plugins/notes');
/** Long enough that only the NOTIFY can explain a change seen in time. */
const LONG_CACHE = { authCacheTtlMs: 600_000 };

/** Rows of the tenant in every table with a tenant_uuid column (what the deletion must empty), by table. */
async function rowsOf(kit: TestKernel, tenantUuid: string): Promise<Record<string, number>> {
  const connection = kit.kernel.orm.em.fork().getConnection();
  const tables = await connection.execute<{ name: string }[]>(
    "select table_name as name from information_schema.columns where column_name = 'tenant_uuid' and table_schema = current_schema() and table_name <> 'tenant_deletions' order by 1",
  );
  const counts: Record<string, number> = {};
  for (const { name } of tables) {
    const [row] = await connection.execute<{ n: number }[]>(`select count(*)::int as n from "${name}" where tenant_uuid = ?`, [tenantUuid]);
    counts[name] = row.n;
  }
  const [tenant] = await connection.execute<{ n: number }[]>('select count(*)::int as n from tenants where uuid = ?', [tenantUuid]);
  counts.tenants = tenant.n;
  return counts;
}

/** Notes through the API, and parents with children straight in SQL: `children` rows, several deletion batches' worth. */
async function fill(kit: TestKernel, owner: TestTenant, children: number): Promise<void> {
  for (let n = 0; n < 3; n++) await owner.api.post('/api/v1/notes').send({ title: `note ${n}` }).expect(201);
  const connection = kit.kernel.orm.em.fork().getConnection();
  await connection.execute('insert into lc_a_parents (tenant_uuid, n) select ?, n from generate_series(1, 40) as n', [owner.tenant.uuid]);
  await connection.execute(
    'insert into lc_z_children (tenant_uuid, parent_uuid, n) select p.tenant_uuid, p.uuid, c from lc_a_parents p, generate_series(1, ?) as c where p.tenant_uuid = ?',
    [Math.ceil(children / 40), owner.tenant.uuid],
  );
}

const total = (counts: Record<string, number>) => Object.entries(counts).reduce((sum, [table, n]) => (table === 'tenants' ? sum : sum + n), 0);

function deletionCases(transport: Record<string, unknown>): void {
  let kit: TestKernel;
  let second: TestKernel;
  beforeAll(async () => {
    kit = await startTestKernel({ plugins: [NOTES, lifecycleProbe], config: { ...LONG_CACHE, ...transport } });
    // A second process on the same database, with caches of its own.
    second = await startTestKernel({
      plugins: [NOTES, lifecycleProbe],
      config: { ...LONG_CACHE, ...transport },
      databaseUrl: kit.kernel.config.core.databaseUrl,
      tenant: 'second',
    });
  });
  afterAll(async () => {
    await second?.stop();
    await kit?.stop();
  });

  it('orders the tenant tables children first', async () => {
    const tables = await tenantTablesInOrder(kit.kernel.orm.em.fork());
    expect(tables).toEqual(expect.arrayContaining(['"public"."lc_z_children"', '"public"."lc_a_parents"', '"public"."example_notes"', '"public"."api_tokens"']));
    expect(tables.indexOf('"public"."lc_z_children"')).toBeLessThan(tables.indexOf('"public"."lc_a_parents"'));
    expect(tables).not.toContain('"public"."tenants"');
    expect(tables).not.toContain('"public"."tenant_deletions"');
  });

  it('a deletion message nobody recorded deletes nothing', async () => {
    const job = new TenantDeletionJob(kit.kernel.orm, kit.kernel.logger);
    expect(await job.run({ deletion_uuid: '0190a1b2-0000-7000-8000-000000000001', tenant_uuid: kit.tenant.uuid })).toBe(false);
    await kit.api.get('/api/v1/notes').expect(200);
  });

  it('stops the tokens at once in every process, deletes the data in batches (202 + poll), keeps the slug until done, spares other tenants', async () => {
    const victim = await kit.createTenant('victim');
    const keeper = await kit.createTenant('keeper');
    await fill(kit, victim, 12_000);
    await fill(kit, keeper, 400);
    const victimBefore = await rowsOf(kit, victim.tenant.uuid);
    const keeperBefore = await rowsOf(kit, keeper.tenant.uuid);
    expect(victimBefore.lc_z_children).toBeGreaterThanOrEqual(12_000);
    const onSecond = () => supertest(second.url).get('/api/v1/notes').set('Host', 'victim.localhost').set('Authorization', `Bearer ${victim.token}`);
    await victim.api.get('/api/v1/notes').expect(200);
    await onSecond().expect(200); // now cached there, for ten minutes

    // A row lock on one of the victim's parents holds the job up, so that it is seen running.
    const blocker = new Client({ connectionString: kit.kernel.config.core.databaseUrl });
    await blocker.connect();
    let poll: string;
    try {
      await blocker.query('begin');
      await blocker.query('select 1 from lc_a_parents where tenant_uuid = $1 limit 1 for update', [victim.tenant.uuid]);

      const res = await kit.admin.delete('/admin/v1/tenants/victim').expect(202);
      expect(res.body.data).toEqual({
        uuid: expect.any(String),
        tenant_slug: 'victim',
        status: 'pending',
        deleted_rows: 0,
        error: null,
        created_at: expect.any(String),
        started_at: null,
        finished_at: null,
      });
      poll = `/admin/v1/tenant-deletions/${res.body.data.uuid}`;
      expect(res.headers.location).toBe(poll);

      const gone = await victim.api.get('/api/v1/notes').expect(404);
      expect(gone.body.message).toBe('Tenant "victim" not found');
      await waitFor(() => onSecond().then((r) => r.status), (status) => status === 404, 5_000);

      const running = await waitFor(() => kit.admin.get(poll).then((r) => r.body.data), (data) => data.status === 'running');
      expect(running.started_at).toEqual(expect.any(String));
      expect((await kit.admin.get('/admin/v1/tenants/victim').expect(200)).body.data.status).toBe('deleting');
      const taken = await kit.admin.post('/admin/v1/tenants').send({ slug: 'victim' }).expect(409);
      expect(taken.body.message).toContain('is being deleted');
      await kit.admin.post('/admin/v1/tenants/victim/tokens').send({}).expect(404);
      // Asked again: the same job.
      expect((await kit.admin.delete('/admin/v1/tenants/victim').expect(202)).body.data.uuid).toBe(res.body.data.uuid);
      const listed = await kit.admin.get('/admin/v1/tenants?status=deleting').expect(200);
      expect(listed.body.data.items.map((t: { slug: string; status: string }) => [t.slug, t.status])).toEqual([['victim', 'deleting']]);
    } finally {
      await blocker.query('rollback').catch(() => {});
      await blocker.end();
    }

    const done = await waitFor(() => kit.admin.get(poll).then((r) => r.body.data), (data) => data.status === 'done' || data.status === 'failed', 60_000);
    expect(done.status).toBe('done');
    expect(done.finished_at).toEqual(expect.any(String));
    // Every row was deleted by a batch: had a parent gone before its children, they would have gone uncounted with it.
    expect(done.deleted_rows).toBe(total(victimBefore));

    const victimAfter = await rowsOf(kit, victim.tenant.uuid);
    expect(Object.values(victimAfter).every((n) => n === 0)).toBe(true);
    expect(await rowsOf(kit, keeper.tenant.uuid)).toEqual(keeperBefore);
    await keeper.api.get('/api/v1/notes').expect(200);

    // The slug is free again.
    await kit.admin.post('/admin/v1/tenants').send({ slug: 'victim' }).expect(201);
    await kit.admin.delete('/admin/v1/tenants/nobody').expect(404);
    await kit.admin.get('/admin/v1/tenant-deletions/0190a1b2-0000-7000-8000-000000000000').expect(404);
    await kit.admin.get('/admin/v1/tenant-deletions/not-a-uuid').expect(422);
  });
}

describe('DELETE /admin/v1/tenants/{slug} (in-process bus)', () => deletionCases({}));
// RabbitMQ when AMQP_URL points at a broker.
(process.env.AMQP_URL ? describe : describe.skip)('DELETE /admin/v1/tenants/{slug} (RabbitMQ)', () => deletionCases({ amqpUrl: process.env.AMQP_URL }));
