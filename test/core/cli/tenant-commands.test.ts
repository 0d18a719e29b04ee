import path from 'node:path';
import supertest from 'supertest';
import { createTestDatabase, startTestKernel, waitFor } from '../../../core/testing';
import { CLI_TEST_TIMEOUT_MS, ROOT, switchboard } from './cli-helpers';

const NOTES = path.join(ROOT, 'examples/plugins/notes');

describe('switchboard tenant delete', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database?.drop());

  it('--wait deletes the tenant and its data in the CLI process; the slug is free again', async () => {
    const env = { DATABASE_URL: database.url };
    expect((await switchboard(['tenant', 'create', 'acme'], env)).code).toBe(0);
    const deleted = await switchboard(['tenant', 'delete', 'acme', '--wait'], env);
    expect(deleted.code).toBe(0);
    const { deletion } = JSON.parse(deleted.stdout);
    expect(deletion).toMatchObject({ tenant_slug: 'acme', status: 'done', deleted_rows: 1 }); // its one token
    expect(deletion.finished_at).toEqual(expect.any(String));
    expect((await switchboard(['tenant', 'create', 'acme'], env)).code).toBe(0);
  }, CLI_TEST_TIMEOUT_MS);

  it('says so for a tenant that does not exist', async () => {
    const unknown = await switchboard(['tenant', 'delete', 'nobody'], { DATABASE_URL: database.url });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('Tenant "nobody" not found');
  }, CLI_TEST_TIMEOUT_MS);

  it('without --wait, the token stops at once and a running worker deletes the data', async () => {
    const kit = await startTestKernel({ plugins: [NOTES], databaseUrl: database.url, tenant: 'keeper', config: { authCacheTtlMs: 600_000 } });
    try {
      const victim = await kit.createTenant('victim');
      await victim.api.get('/api/v1/notes').expect(200); // and cached, for ten minutes
      const deleted = await switchboard(['tenant', 'delete', 'victim'], { DATABASE_URL: database.url });
      expect(deleted.code).toBe(0);
      const { deletion } = JSON.parse(deleted.stdout);
      expect(deletion).toMatchObject({ tenant_slug: 'victim', status: 'pending' });
      const refused = await waitFor(() => victim.api.get('/api/v1/notes'), (res) => res.body.message === 'Tenant "victim" not found', 5_000);
      expect(refused.status).toBe(404);
      const done = await waitFor(() => supertest(kit.url).get(`/admin/v1/tenant-deletions/${deletion.uuid}`).set('Authorization', `Bearer ${kit.adminToken}`), (res) => res.body.data?.status === 'done');
      expect(done.body.data.deleted_rows).toBe(1);
      const rows = await kit.kernel.orm.em.fork().getConnection().execute('select 1 from tenants where slug = ?', ['victim']);
      expect(rows).toEqual([]);
      await kit.api.get('/api/v1/notes').expect(200);
    } finally {
      await kit.stop();
    }
  }, CLI_TEST_TIMEOUT_MS);
});
