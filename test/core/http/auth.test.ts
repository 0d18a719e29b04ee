import path from 'node:path';
import { startTestKernel, type TestKernel } from '../../../core/testing';

const NOTES = path.resolve(__dirname, '../../../examples/plugins/notes');
let kit: TestKernel;

beforeAll(async () => {
  kit = await startTestKernel({ plugins: [NOTES] });
});
afterAll(() => kit?.stop());

/** The body of a response, after checking its status. */
const bodyOf = async (test: import('supertest').Test, status: number) => (await test.expect(status)).body;

const denied = (message: RegExp | string) => ({ success: false, message: expect.stringMatching(message), data: [] });

describe('tenant routes: who may call', () => {
  it('answers a valid token of the host tenant', async () => {
    await kit.api.get('/api/v1/notes').expect(200);
  });

  it('401 without a token', async () => {
    const res = await kit.client({ host: 'acme.localhost' }).get('/api/v1/notes').expect(401);
    expect(res.body).toEqual(denied('Missing bearer token'));
  });

  it('401 with a malformed or unknown token', async () => {
    expect(await bodyOf(kit.client({ host: 'acme.localhost', token: 'sbt_nope' }).get('/api/v1/notes'), 401)).toEqual(denied('Invalid or revoked token'));
    const res = await kit.client({ host: 'acme.localhost' }).get('/api/v1/notes').set('Authorization', 'Basic abc').expect(401);
    expect(res.body.message).toBe('Missing bearer token');
  });

  it("401 with another tenant's token, and never the other tenant's data", async () => {
    const other = await kit.createTenant();
    await other.api.post('/api/v1/notes').send({ title: 'private' }).expect(201);
    expect(await bodyOf(kit.client({ host: 'acme.localhost', token: other.token }).get('/api/v1/notes'), 401)).toEqual(denied('Invalid or revoked token'));
    const own = await kit.api.get('/api/v1/notes').expect(200);
    expect(own.body.data.items.map((n: { title: string }) => n.title)).not.toContain('private');
  });

  it('401 once a token is revoked (through the admin API)', async () => {
    const created = await kit.admin.post('/admin/v1/tenants/acme/tokens').send({ name: 'temp' }).expect(201);
    const temp = kit.client({ host: 'acme.localhost', token: created.body.data.token });
    await temp.get('/api/v1/notes').expect(200);
    await kit.admin.delete(`/admin/v1/tenants/acme/tokens/${created.body.data.uuid}`).expect(200, { success: true, message: 'Token revoked', data: { deleted: true } });
    expect(await bodyOf(temp.get('/api/v1/notes'), 401)).toEqual(denied('Invalid or revoked token'));
  });

  it('403 for a read-only token on a write, 200 on a read', async () => {
    const created = await kit.admin.post('/admin/v1/tenants/acme/tokens').send({ scopes: ['read'] }).expect(201);
    expect(created.body.data.scopes).toEqual(['read']);
    const reader = kit.client({ host: 'acme.localhost', token: created.body.data.token });
    await reader.get('/api/v1/notes').expect(200);
    expect(await bodyOf(reader.post('/api/v1/notes').send({ title: 'x' }), 403)).toEqual(denied('lacks the "write" scope'));
  });

  it('404 for an unknown tenant, and for the bare base domain: never a default tenant', async () => {
    expect(await bodyOf(kit.client({ host: 'nobody.localhost', token: kit.token }).get('/api/v1/notes'), 404)).toEqual(denied('Tenant "nobody" not found'));
    await kit.client({ host: 'localhost', token: kit.token }).get('/api/v1/notes').expect(404);
    await kit.client({ host: 'a.b.localhost', token: kit.token }).get('/api/v1/notes').expect(404);
    await kit.client({ host: 'acme.example.com', token: kit.token }).get('/api/v1/notes').expect(404);
  });

  it('accepts the host with a port and in any case', async () => {
    await kit.client({ host: 'ACME.localhost:8080', token: kit.token }).get('/api/v1/notes').expect(200);
  });

  it('ignores X-Forwarded-Host unless TRUST_PROXY is set', async () => {
    await kit.client({ host: 'localhost', token: kit.token }).get('/api/v1/notes').set('X-Forwarded-Host', 'acme.localhost').expect(404);
    const proxied = await startTestKernel({ plugins: [NOTES], config: { trustProxy: true } });
    try {
      await proxied.client({ host: 'internal', token: proxied.token }).get('/api/v1/notes').set('X-Forwarded-Host', 'acme.localhost').expect(200);
    } finally {
      await proxied.stop();
    }
  });
});

describe('admin API', () => {
  it('401 without or with a wrong admin token; a tenant token is not an admin token', async () => {
    await kit.client({}).get('/admin/v1/tenants').expect(401);
    await kit.client({ token: 'wrong' }).get('/admin/v1/tenants').expect(401);
    await kit.client({ token: kit.token }).get('/admin/v1/tenants').expect(401);
  });

  it('creates a tenant, then a token that works at once; lists tenants; refuses a duplicate slug', async () => {
    const res = await kit.admin.post('/admin/v1/tenants').send({ slug: 'globex', name: 'Globex' }).expect(201);
    expect(res.body.data).toEqual({ uuid: expect.any(String), slug: 'globex', name: 'Globex', status: 'active', created_at: expect.any(String) });
    const token = await kit.admin.post('/admin/v1/tenants/globex/tokens').send({ name: 'first' }).expect(201);
    expect(token.body.data).toEqual({ uuid: expect.any(String), name: 'first', scopes: ['read', 'write'], token: expect.stringMatching(/^sbt_/), created_at: expect.any(String) });
    await kit.client({ host: 'globex.localhost', token: token.body.data.token }).post('/api/v1/notes').send({ title: 'hi' }).expect(201);
    const list = await kit.admin.get('/admin/v1/tenants?per_page=100').expect(200);
    expect(list.body.data.items.map((t: { slug: string }) => t.slug)).toEqual(expect.arrayContaining(['acme', 'globex']));
    expect(list.body.data.pagination).toMatchObject({ current_page: 1, per_page: 100 });
    expect(await bodyOf(kit.admin.post('/admin/v1/tenants').send({ slug: 'globex' }), 409)).toEqual(denied('already exists'));
  });

  it('refuses invalid slugs with 422 naming the field', async () => {
    for (const slug of ['-acme', 'acme-', 'Acme', 'a_b', '', 'a'.repeat(64)]) {
      const res = await kit.admin.post('/admin/v1/tenants').send({ slug }).expect(422);
      expect(Object.keys(res.body.errors)).toEqual(['slug']);
    }
  });

  it('lists tokens without their secrets; 404 for an unknown tenant or token', async () => {
    const res = await kit.admin.get('/admin/v1/tenants/acme/tokens').expect(200);
    expect(res.body.data.items.length).toBeGreaterThan(0);
    expect(JSON.stringify(res.body)).not.toContain('sbt_');
    await kit.admin.get('/admin/v1/tenants/nobody/tokens').expect(404);
    await kit.admin.delete('/admin/v1/tenants/acme/tokens/00000000-0000-7000-8000-000000000000').expect(404);
  });

  it('is absent while ADMIN_TOKEN is unset', async () => {
    const closed = await startTestKernel({ config: { adminToken: '' } });
    try {
      await closed.client({ token: '' }).get('/admin/v1/tenants').expect(404);
    } finally {
      await closed.stop();
    }
  });
});

describe('optional bodies', () => {
  it('a POST whose body is all optional may send none at all', async () => {
    const res = await kit.admin.post('/admin/v1/tenants/acme/tokens').expect(201);
    expect(res.body.data.scopes).toEqual(['read', 'write']);
  });

  it('a POST with required members and no body names each missing member', async () => {
    const res = await kit.admin.post('/admin/v1/tenants').expect(422);
    expect(res.body.errors).toEqual({ slug: ['is required'] });
  });
});

describe('revocation across processes', () => {
  it("another kernel on the same database stops accepting a revoked token at once, not after its cache's TTL", async () => {
    const other = await startTestKernel({
      plugins: [NOTES],
      tenant: 'elsewhere',
      config: { databaseUrl: kit.kernel.config.core.databaseUrl, authCacheTtlMs: 60_000 },
    });
    try {
      const created = await kit.admin.post('/admin/v1/tenants/acme/tokens').send({ name: 'shared' }).expect(201);
      const viaOther = () => other.client({ host: 'acme.localhost', token: created.body.data.token }).get('/api/v1/notes');
      await viaOther().expect(200); // now cached there for a minute
      await kit.admin.delete(`/admin/v1/tenants/acme/tokens/${created.body.data.uuid}`).expect(200);
      const deadline = Date.now() + 2000;
      let status = 200;
      while (status === 200 && Date.now() < deadline) {
        status = (await viaOther()).status;
        if (status === 200) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(status).toBe(401);
    } finally {
      await other.stop();
    }
  });
});
