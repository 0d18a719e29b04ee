import crypto from 'node:crypto';
import { startTestKernel, waitFor, type ApiClient, type TestKernel } from '../../../../core/testing';
import { startFakeCrm } from './fake-crm';
import { CATALOG_PLUGINS } from './fixture-apps';

// The fixture CRM tests a connection by asking its service (`/me`) who the key belongs to.
let crm: Awaited<ReturnType<typeof startFakeCrm>>;
let CRM: { base_url: string; api_key: string };

async function connect(api: ApiClient, body: Record<string, unknown> = {}) {
  const res = await api.post('/api/v1/flow/connections').send({ app_uid: 'fixture_crm', label: 'Sales', credentials: CRM, ...body }).expect(201);
  return res.body.data as { uuid: string; app_uid: string; label: string; created_at: string };
}

describe('app connections', () => {
  let kit: TestKernel;
  beforeAll(async () => {
    crm = await startFakeCrm(null);
    CRM = { base_url: crm.url, api_key: 'a-valid-api-key' };
    // Every level, so access lines and debug output are covered by the secrets canary too.
    kit = await startTestKernel({ plugins: CATALOG_PLUGINS, config: { logLevel: 'silly' } });
  });
  afterAll(async () => {
    await kit?.stop();
    await crm?.close();
  });
  beforeEach(() => {
    crm.requests.length = 0;
    Object.assign(crm.state, { failing: false, hold: false });
    crm.state.revoked.clear();
  });

  const sql = (query: string, params: unknown[] = []) => kit.kernel.orm.em.fork().getConnection().execute(query, params);

  it('POST creates one (201, the decisions.md shape); GET reads it; the list pages newest first and filters by app_uid', async () => {
    const { api } = await kit.createTenant();
    const created = await connect(api, { label: 'Sales CRM' });
    expect(created).toEqual({ uuid: expect.any(String), app_uid: 'fixture_crm', label: 'Sales CRM', status: 'connected', status_message: null, created_at: expect.any(String) });
    expect(new Date(created.created_at).toISOString()).toBe(created.created_at);
    await api.get(`/api/v1/flow/connections/${created.uuid}`).expect(200, { data: created });

    const chat = (await api.post('/api/v1/flow/connections').send({ app_uid: 'fixture_chat', label: 'Bot', credentials: { bot_token: 't' } }).expect(201)).body.data;
    const third = await connect(api, { label: 'Support CRM' });

    const all = await api.get('/api/v1/flow/connections').expect(200);
    expect(all.body.data.items).toEqual([third, chat, created]);
    expect(all.body.data.pagination).toMatchObject({ total: 3, current_page: 1 });
    const crmOnly = await api.get('/api/v1/flow/connections?app_uid=fixture_crm&per_page=1&page=2').expect(200);
    expect(crmOnly.body.data.items).toEqual([created]);
    expect(crmOnly.body.data.pagination).toMatchObject({ total: 2, per_page: 1, last_page: 2, has_more: false });
  });

  it('a read-back body is accepted: uuid and created_at are ignored', async () => {
    const created = await connect(kit.api);
    const again = await kit.api.post('/api/v1/flow/connections').send({ ...created, credentials: CRM }).expect(201);
    expect(again.body.data.uuid).not.toBe(created.uuid);
  });

  it('422 names each problem: an unknown or builtin app at app_uid, credentials not matching the auth schema at credentials.<path>', async () => {
    const refused = async (body: Record<string, unknown>, paths: string[]) => {
      const res = await kit.api.post('/api/v1/flow/connections').send(body).expect(422);
      expect(Object.keys(res.body.errors).sort()).toEqual(paths.sort());
      return res.body;
    };
    const before = (await kit.api.get('/api/v1/flow/connections').expect(200)).body.data.pagination.total;

    expect((await refused({ app_uid: 'no_such_app', label: 'x', credentials: {} }, ['app_uid'])).errors.app_uid).toEqual(['is not an app of the catalog']);
    expect((await refused({ app_uid: 'fixture_palette', label: 'x', credentials: {} }, ['app_uid'])).errors.app_uid[0]).toContain('builtin');
    const bad = await refused({ app_uid: 'fixture_crm', label: 'x', credentials: { base_url: 'not a url', api_key: '', extra: 1 } }, [
      'credentials.base_url',
      'credentials.api_key',
      'credentials.extra',
    ]);
    expect(bad.errors['credentials.api_key'][0]).toMatch(/fewer than 1 characters/);
    await refused({ app_uid: 'fixture_crm', label: 'x', credentials: { base_url: CRM.base_url } }, ['credentials.api_key']);
    await refused({ app_uid: 'fixture_crm', label: '', credentials: CRM, colour: 'red' }, ['label', 'colour']);
    await refused({}, ['app_uid', 'label', 'credentials']);
    await refused({ app_uid: 'fixture_crm', label: 'x', credentials: 'key' }, ['credentials']);

    expect((await kit.api.get('/api/v1/flow/connections').expect(200)).body.data.pagination.total).toBe(before);
    // Credentials the schema refuses never reach the app's service.
    expect(crm.requests).toEqual([]);
  });

  describe('the app’s connection test', () => {
    const count = async () => Number((await sql('select count(*)::int as n from flow_connections where tenant_uuid = ?', [kit.tenant.uuid]))[0].n);

    it('passing: the connection is stored, tested with the credentials sent', async () => {
      const before = await count();
      await connect(kit.api, { label: 'Tested' });
      expect(crm.requests).toEqual([{ path: '/me', query: {}, authorization: `Bearer ${CRM.api_key}` }]);
      expect(await count()).toBe(before + 1);
    });

    it('failing: a 422 at credentials with the app’s message, and nothing is written', async () => {
      crm.state.revoked.add('a-revoked-api-key');
      const before = await count();
      const res = await kit.api.post('/api/v1/flow/connections').send({ app_uid: 'fixture_crm', label: 'Revoked', credentials: { ...CRM, api_key: 'a-revoked-api-key' } }).expect(422);
      expect(res.body).toEqual({
        message: 'The app "Fixture CRM" refused the credentials: The CRM does not know this API key',
        errors: { credentials: ['The CRM does not know this API key'] },
      });
      expect(await count()).toBe(before);
    });

    it('a test that cannot reach the service (or throws) is a 422 at credentials too, never a 500', async () => {
      crm.state.failing = true;
      const down = await kit.api.post('/api/v1/flow/connections').send({ app_uid: 'fixture_crm', label: 'Down', credentials: CRM }).expect(422);
      expect(down.body.errors).toEqual({ credentials: ['could not be tested: the CRM answered 500'] });
      const gone = await startFakeCrm(null);
      await gone.close();
      const unreachable = await kit.api.post('/api/v1/flow/connections').send({ app_uid: 'fixture_crm', label: 'Gone', credentials: { ...CRM, base_url: gone.url } }).expect(422);
      expect(unreachable.body.errors.credentials[0]).toMatch(/^could not be tested: /);
      expect(kit.logs.filter((line) => line.message === 'unhandled error')).toEqual([]);
    });

    it('PATCH tests new credentials (a refusal keeps the stored ones); a rename tests nothing', async () => {
      const created = await connect(kit.api);
      const [{ credentials: sealed }] = await sql('select credentials from flow_connections where uuid = ?', [created.uuid]);
      crm.requests.length = 0;
      await kit.api.patch(`/api/v1/flow/connections/${created.uuid}`).send({ label: 'Renamed' }).expect(200);
      expect(crm.requests).toEqual([]);

      crm.state.revoked.add('a-revoked-api-key');
      const refused = await kit.api.patch(`/api/v1/flow/connections/${created.uuid}`).send({ label: 'Not this', credentials: { ...CRM, api_key: 'a-revoked-api-key' } }).expect(422);
      expect(refused.body.errors).toEqual({ credentials: ['The CRM does not know this API key'] });
      const [row] = await sql('select label, credentials from flow_connections where uuid = ?', [created.uuid]);
      expect(row).toEqual({ label: 'Renamed', credentials: sealed });

      await kit.api.patch(`/api/v1/flow/connections/${created.uuid}`).send({ credentials: { ...CRM, api_key: 'another-valid-key' } }).expect(200);
      expect(crm.requests.map((request) => request.authorization)).toEqual(['Bearer a-revoked-api-key', 'Bearer another-valid-key']);
    });

    it('runs with no database transaction open: the row is written after the app’s service answered', async () => {
      crm.state.hold = true;
      const creating = kit.api.post('/api/v1/flow/connections').send({ app_uid: 'fixture_crm', label: 'Slow', credentials: CRM }).then((res) => res.status);
      try {
        await waitFor(() => crm.requests.length, (n) => n === 1);
        const idleInTransaction = await sql(`select count(*)::int as n from pg_stat_activity where datname = current_database() and state like 'idle in transaction%'`);
        expect(idleInTransaction[0].n).toBe(0);
      } finally {
        crm.release();
      }
      expect(await creating).toBe(201);
    });
  });

  it('PATCH renames, or replaces the credentials whole (validated); app_uid cannot change', async () => {
    const created = await connect(kit.api);
    const renamed = await kit.api.patch(`/api/v1/flow/connections/${created.uuid}`).send({ label: 'Renamed' }).expect(200);
    expect(renamed.body.data).toEqual({ ...created, label: 'Renamed' });

    const [{ credentials: sealed }] = await sql('select credentials from flow_connections where uuid = ?', [created.uuid]);
    // A partial set is refused, not merged into the stored one.
    const partial = await kit.api.patch(`/api/v1/flow/connections/${created.uuid}`).send({ credentials: { api_key: 'another-valid-key' } }).expect(422);
    expect(Object.keys(partial.body.errors)).toEqual(['credentials.base_url']);
    await kit.api.patch(`/api/v1/flow/connections/${created.uuid}`).send({ label: 'x'.repeat(201) }).expect(422);
    expect((await sql('select credentials from flow_connections where uuid = ?', [created.uuid]))[0].credentials).toBe(sealed);

    const replaced = await kit.api.patch(`/api/v1/flow/connections/${created.uuid}`).send({ ...renamed.body.data, app_uid: 'fixture_chat', credentials: { ...CRM, api_key: 'another-valid-key' } }).expect(200);
    expect(replaced.body.data).toEqual({ ...created, label: 'Renamed' });
    expect((await sql('select credentials from flow_connections where uuid = ?', [created.uuid]))[0].credentials).not.toBe(sealed);
  });

  it('a connection of an app no longer installed can be read, renamed and deleted, but its credentials cannot be checked, so not replaced', async () => {
    const uuid = crypto.randomUUID();
    await sql(`insert into flow_connections (uuid, tenant_uuid, created_at, updated_at, app_uid, label, credentials) values (?, ?, now(), now(), 'uninstalled_app', 'Old', 'sb1:x')`, [uuid, kit.tenant.uuid]);
    await kit.api.get(`/api/v1/flow/connections/${uuid}`).expect(200);
    const res = await kit.api.patch(`/api/v1/flow/connections/${uuid}`).send({ label: 'Older', credentials: { api_key: 'k' } }).expect(422);
    expect(res.body.errors).toEqual({ credentials: ['cannot be checked: the app "uninstalled_app" is not installed'] });
    await kit.api.patch(`/api/v1/flow/connections/${uuid}`).send({ label: 'Older' }).expect(200);
    await kit.api.delete(`/api/v1/flow/connections/${uuid}`).expect(200);
  });

  it('DELETE removes it; a second DELETE and later reads answer 404', async () => {
    const created = await connect(kit.api);
    await kit.api.delete(`/api/v1/flow/connections/${created.uuid}`).expect(200, { success: true, message: 'Connection deleted', data: { deleted: true } });
    const notFound = { success: false, message: 'Connection not found', data: [] };
    await kit.api.get(`/api/v1/flow/connections/${created.uuid}`).expect(404, notFound);
    await kit.api.delete(`/api/v1/flow/connections/${created.uuid}`).expect(404, notFound);
    await kit.api.patch(`/api/v1/flow/connections/${created.uuid}`).send({ label: 'x' }).expect(404, notFound);
  });

  it('DELETE is refused with 409 naming the flows whose steps use it, until only deleted flows do', async () => {
    const created = await connect(kit.api);
    // Steps are written directly: whichever route writes them, the delete must see them.
    const flow = async (name: string) => {
      const uuid = crypto.randomUUID();
      await sql('insert into flows (uuid, tenant_uuid, created_at, updated_at, name) values (?, ?, now(), now(), ?)', [uuid, kit.tenant.uuid, name]);
      await sql(
        `insert into flow_steps (uuid, tenant_uuid, created_at, updated_at, flow_uuid, kind, ord, app_uid, action_key, app_connection_uuid, config)
         values (?, ?, now(), now(), ?, 'action', 0, 'fixture_crm', 'create_record', ?, '{}')`,
        [crypto.randomUUID(), kit.tenant.uuid, uuid, created.uuid],
      );
      return uuid;
    };
    const onboarding = await flow('Onboarding');
    const followUp = await flow('Follow-up');

    const refused = await kit.api.delete(`/api/v1/flow/connections/${created.uuid}`).expect(409);
    expect(refused.body).toEqual({ success: false, message: expect.stringContaining(`"Follow-up" (${followUp}), "Onboarding" (${onboarding})`), data: [] });
    await kit.api.get(`/api/v1/flow/connections/${created.uuid}`).expect(200);

    await sql('update flows set deleted_at = now() where uuid = ?', [followUp]);
    const stillOne = await kit.api.delete(`/api/v1/flow/connections/${created.uuid}`).expect(409);
    expect(stillOne.body.message).not.toContain('Follow-up');

    await sql('update flows set deleted_at = now() where uuid = ?', [onboarding]);
    await kit.api.delete(`/api/v1/flow/connections/${created.uuid}`).expect(200);
  });

  it('another tenant’s connection is not found by any route, nor listed', async () => {
    const other = await kit.createTenant();
    const theirs = await connect(other.api);
    await kit.api.get(`/api/v1/flow/connections/${theirs.uuid}`).expect(404);
    await kit.api.patch(`/api/v1/flow/connections/${theirs.uuid}`).send({ label: 'mine now' }).expect(404);
    await kit.api.delete(`/api/v1/flow/connections/${theirs.uuid}`).expect(404);
    const listed = (await kit.api.get('/api/v1/flow/connections?per_page=100').expect(200)).body.data.items;
    expect(listed.map((c: { uuid: string }) => c.uuid)).not.toContain(theirs.uuid);
    await other.api.get(`/api/v1/flow/connections/${theirs.uuid}`).expect(200, { data: theirs });
  });

  it('secrets canary: the credentials appear in no response, no log line and not in the database column (options.test.ts shows they still reach the app’s service)', async () => {
    const canary = `canary-${crypto.randomBytes(12).toString('hex')}`;
    const bodies: unknown[] = [];
    const keep = <T extends { body: unknown }>(res: T) => (bodies.push(res.body), res);

    const created = keep(await kit.api.post('/api/v1/flow/connections').send({ app_uid: 'fixture_crm', label: 'Canary', credentials: { ...CRM, api_key: canary } }).expect(201)).body.data;
    keep(await kit.api.get(`/api/v1/flow/connections/${created.uuid}`).expect(200));
    keep(await kit.api.get('/api/v1/flow/connections?per_page=100').expect(200));
    keep(await kit.api.patch(`/api/v1/flow/connections/${created.uuid}`).send({ credentials: { ...CRM, api_key: `${canary}-2` } }).expect(200));
    keep(await kit.api.patch(`/api/v1/flow/connections/${created.uuid}`).send({ credentials: { ...CRM, api_key: '' } }).expect(422));
    crm.state.revoked.add(`${canary}-3`);
    keep(await kit.api.patch(`/api/v1/flow/connections/${created.uuid}`).send({ credentials: { ...CRM, api_key: `${canary}-3` } }).expect(422));
    keep(await kit.api.post('/api/v1/flow/connections').send({ app_uid: 'fixture_crm', label: 'Canary', credentials: { base_url: canary, api_key: canary } }).expect(422));

    for (const body of bodies) expect(JSON.stringify(body)).not.toContain(canary);
    // No member holds credentials (a 422 names the path `credentials` among its errors: a name, not a value).
    for (const body of bodies) expect(JSON.stringify({ ...(body as object), errors: undefined })).not.toContain('credentials"');
    expect(JSON.stringify(kit.logs)).not.toContain(canary);

    const [row] = await sql('select credentials from flow_connections where uuid = ?', [created.uuid]);
    expect(row.credentials).toMatch(/^sb1:/);
    expect(row.credentials).not.toContain(canary);
    expect(row.credentials).not.toContain(Buffer.from(canary).toString('base64'));
  });
});
