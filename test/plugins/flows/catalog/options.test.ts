import { startTestKernel, type ApiClient, type TestKernel } from '../../../../core/testing';
import { startFakeCrm } from './fake-crm';
import { CATALOG_PLUGINS, COLORS, SWATCHES } from './fixture-apps';

const API_KEY = 'the-crm-api-key';

describe('POST /api/v1/flow/apps/{uid}/options', () => {
  let kit: TestKernel;
  let crm: Awaited<ReturnType<typeof startFakeCrm>>;
  let crmConnection: string;
  beforeAll(async () => {
    // Any key it has not revoked: a connection's key passes the connection test, then may be revoked.
    crm = await startFakeCrm(null);
    kit = await startTestKernel({ plugins: CATALOG_PLUGINS });
    crmConnection = await connect(kit.api, 'fixture_crm', { base_url: crm.url, api_key: API_KEY });
  });
  afterAll(async () => {
    await kit?.stop();
    await crm?.close();
  });
  beforeEach(() => {
    crm.requests.length = 0;
    crm.state.failing = false;
    crm.state.revoked.clear();
  });
  /** What the option lists asked the CRM (not the connection tests of `connect`). */
  const listCalls = () => crm.requests.filter((request) => request.path !== '/me');

  async function connect(api: ApiClient, app: string, credentials: Record<string, unknown>): Promise<string> {
    return (await api.post('/api/v1/flow/connections').send({ app_uid: app, label: app, credentials }).expect(201)).body.data.uuid;
  }
  const options = (uid: string, body: Record<string, unknown>, api: ApiClient = kit.api) => api.post(`/api/v1/flow/apps/${uid}/options`).send(body);
  const refused = async (uid: string, body: Record<string, unknown>, errors: Record<string, unknown>) => {
    const res = await options(uid, body).expect(422);
    expect(res.body.errors).toEqual(errors);
    return res.body.message as string;
  };

  describe('a builtin app with static lists', () => {
    it('answers the first page of 100 with a cursor, then the next pages; the server picks nothing', async () => {
      const all = [...COLORS, { label: 'Crimson Red', value: 'crimson' }];
      const first = await options('fixture_palette', { kind: 'colors', connection_uuid: null, params: {} }).expect(200);
      expect(first.body).toEqual({ success: true, data: all.slice(0, 100), next_cursor: expect.any(String) });
      const second = await options('fixture_palette', { kind: 'colors', cursor: first.body.next_cursor }).expect(200);
      expect(second.body.data).toEqual(all.slice(100, 200));
      const last = await options('fixture_palette', { kind: 'colors', cursor: second.body.next_cursor }).expect(200);
      expect(last.body).toEqual({ success: true, data: all.slice(200), next_cursor: null });
    });

    it('filters by `search` on the label, any case, and pages the matches', async () => {
      const found = await options('fixture_palette', { kind: 'colors', search: 'CRIMSON' }).expect(200);
      expect(found.body).toEqual({ success: true, data: [{ label: 'Crimson Red', value: 'crimson' }], next_cursor: null });
      // 133 labels hold a "1": more than a page.
      const matches = COLORS.filter((colour) => colour.label.includes('1'));
      expect(matches).toHaveLength(133);
      const page1 = await options('fixture_palette', { kind: 'colors', search: '1' }).expect(200);
      expect(page1.body.data).toEqual(matches.slice(0, 100));
      const page2 = await options('fixture_palette', { kind: 'colors', search: '1', cursor: page1.body.next_cursor }).expect(200);
      expect(page2.body).toEqual({ success: true, data: matches.slice(100), next_cursor: null });
      // The value is not searched, only the label.
      await options('fixture_palette', { kind: 'colors', search: 'c12' }).expect(200, { success: true, data: [], next_cursor: null });
    });

    it('a cursor goes on after the last option sent: options added or removed before it are neither repeated nor skipped', async () => {
      const swatch = (n: number) => ({ label: `Swatch ${n}`, value: `s${n}` });
      SWATCHES.splice(0, SWATCHES.length, ...Array.from({ length: 250 }, (_, i) => swatch(i + 1)));
      const first = await options('fixture_palette', { kind: 'swatches' }).expect(200);
      expect(first.body.data.map((o: { value: string }) => o.value)).toEqual(SWATCHES.slice(0, 100).map((o) => o.value));
      // Two added at the top, one removed from the first page: an offset would repeat one and skip none, or skip some.
      SWATCHES.unshift(swatch(1000), swatch(1001));
      SWATCHES.splice(SWATCHES.findIndex((o) => o.value === 's50'), 1);
      const second = await options('fixture_palette', { kind: 'swatches', cursor: first.body.next_cursor }).expect(200);
      expect(second.body.data[0]).toEqual(swatch(101));
      expect(second.body.data).toHaveLength(100);
      // The option the page ended on is gone: the next page starts after the one before it.
      SWATCHES.splice(SWATCHES.findIndex((o) => o.value === 's200'), 1);
      const third = await options('fixture_palette', { kind: 'swatches', cursor: second.body.next_cursor }).expect(200);
      expect(third.body).toEqual({ success: true, data: Array.from({ length: 50 }, (_, i) => swatch(201 + i)), next_cursor: null });
    });

    it('a cursor is bound to its list and search: another kind, params or search is a 422 at cursor', async () => {
      const first = await options('fixture_palette', { kind: 'colors', search: '1' }).expect(200);
      const cursor = first.body.next_cursor;
      // The same search, whatever its case and spaces: the same matches.
      await options('fixture_palette', { kind: 'colors', search: ' 1 ', cursor }).expect(200);
      const elsewhere = ['was returned for another list or search: send the `kind`, `params` and `search` of the page it came from'];
      await refused('fixture_palette', { kind: 'colors', search: '2', cursor }, { cursor: elsewhere });
      await refused('fixture_palette', { kind: 'colors', cursor }, { cursor: elsewhere });
      await refused('fixture_palette', { kind: 'swatches', search: '1', cursor }, { cursor: elsewhere });
    });

    it('passes params, and a list of one stays a list for the user to choose from', async () => {
      const one = await options('fixture_palette', { kind: 'shades', params: { color: 'blue' } }).expect(200);
      expect(one.body).toEqual({ success: true, data: [{ label: 'blue 1', value: 'blue-1' }], next_cursor: null });
      const three = await options('fixture_palette', { kind: 'shades', params: { color: 'red', depth: 3 } }).expect(200);
      expect(three.body.data.map((o: { value: string }) => o.value)).toEqual(['red-1', 'red-2', 'red-3']);
    });

    it('422: unknown kind, params not matching the list’s schema, a connection given, a cursor it never returned', async () => {
      await refused('fixture_palette', { kind: 'sizes' }, { kind: ['must be one of: colors, shades, swatches, exploding, malformed'] });
      await refused('fixture_palette', { kind: 'shades', params: {} }, { 'params.color': ['is required'] });
      await refused('fixture_palette', { kind: 'shades', params: { color: 'red', depth: 9, hue: 1 } }, { 'params.depth': ['must be <= 5'], 'params.hue': ['is not a known member'] });
      const message = await refused('fixture_palette', { kind: 'colors', connection_uuid: crmConnection }, { connection_uuid: [expect.stringContaining('builtin app and takes no connection')] });
      expect(message).toContain('connection_uuid must be null');
      await refused('fixture_palette', { kind: 'colors', cursor: 'bm90IG91cnM' }, { cursor: ['is not a cursor this list returned'] });
      // Every problem at once.
      await refused('fixture_palette', { kind: 'shades', connection_uuid: crmConnection, params: { depth: 0 } }, {
        'params.color': ['is required'],
        'params.depth': ['must be >= 1'],
        connection_uuid: [expect.any(String)],
      });
      await refused('fixture_palette', { params: [], search: 5 }, { kind: ['is required'], params: ['must be an object'], search: ['must be a string', 'must be null'] });
    });

    it('a provider that throws answers 502 saying the app’s service failed, never a 500; a malformed answer too', async () => {
      const failed = await options('fixture_palette', { kind: 'exploding' }).expect(502);
      expect(failed.body).toEqual({ success: false, message: 'The service of the app "Fixture Palette" failed to list exploding: the palette is on fire', data: [] });
      expect(JSON.stringify(failed.body)).not.toContain('at ');
      const malformed = await options('fixture_palette', { kind: 'malformed' }).expect(502);
      expect(malformed.body.message).toBe('The app "Fixture Palette" answered an invalid malformed list');
      expect(kit.logs.filter((line) => line.message === 'unhandled error')).toEqual([]);
    });
  });

  describe('a connect app', () => {
    it('loads through the app’s service with the connection’s decrypted credentials, filtered and paged by the server', async () => {
      const res = await options('fixture_crm', { kind: 'modules', connection_uuid: crmConnection, params: {} }).expect(200);
      expect(res.body).toEqual({ success: true, data: [{ label: 'Contacts', value: 'contacts' }, { label: 'Deals', value: 'deals' }], next_cursor: null });
      expect(crm.requests).toEqual([{ path: '/modules', query: {}, authorization: `Bearer ${API_KEY}` }]);
      // Not searchable: the CRM is not asked to search, the server filters.
      crm.requests.length = 0;
      await options('fixture_crm', { kind: 'modules', connection_uuid: crmConnection, search: 'dea' }).expect(200, { success: true, data: [{ label: 'Deals', value: 'deals' }], next_cursor: null });
      expect(crm.requests).toEqual([{ path: '/modules', query: {}, authorization: `Bearer ${API_KEY}` }]);
    });

    it('a searchable list gets `search` and `cursor` passed through and answers the service’s own cursor', async () => {
      const first = await options('fixture_crm', { kind: 'records', connection_uuid: crmConnection, params: { module: 'contacts' }, search: 'a' }).expect(200);
      expect(first.body).toEqual({ success: true, data: [{ label: 'Ada Lovelace', value: 'r1' }, { label: 'Alan Turing', value: 'r2' }], next_cursor: 'page-2' });
      const second = await options('fixture_crm', { kind: 'records', connection_uuid: crmConnection, params: { module: 'contacts' }, search: 'a', cursor: 'page-2' }).expect(200);
      expect(second.body).toEqual({ success: true, data: [{ label: 'Grace Hopper', value: 'r3' }, { label: 'Adele Goldberg', value: 'r4' }], next_cursor: null });
      expect(crm.requests.map((r) => r.query)).toEqual([
        { module: 'contacts', search: 'a' },
        { module: 'contacts', search: 'a', cursor: 'page-2' },
      ]);
    });

    it('credentials replaced by PATCH are the ones the next load sends', async () => {
      const uuid = await connect(kit.api, 'fixture_crm', { base_url: crm.url, api_key: 'an-outdated-key' });
      crm.state.revoked.add('an-outdated-key');
      const refusedKey = await options('fixture_crm', { kind: 'modules', connection_uuid: uuid }).expect(200);
      // A key the service refuses is a state the user can fix, not an error.
      expect(refusedKey.body).toEqual({ success: true, data: [], next_cursor: null, state: 'unavailable', message: 'The CRM refused the API key of this connection' });
      await kit.api.patch(`/api/v1/flow/connections/${uuid}`).send({ credentials: { base_url: crm.url, api_key: API_KEY } }).expect(200);
      await options('fixture_crm', { kind: 'modules', connection_uuid: uuid }).expect(200);
      expect(listCalls().map((r) => r.authorization)).toEqual(['Bearer an-outdated-key', `Bearer ${API_KEY}`]);
    });

    it('a failing service answers 502 with the cause, never a 500', async () => {
      crm.state.failing = true;
      const res = await options('fixture_crm', { kind: 'modules', connection_uuid: crmConnection }).expect(502);
      expect(res.body).toEqual({ success: false, message: 'The service of the app "Fixture CRM" failed to list modules: the CRM answered 500', data: [] });
      // A CRM that answered the connection test, then went away.
      const gone = await startFakeCrm(API_KEY);
      const unreachable = await connect(kit.api, 'fixture_crm', { base_url: gone.url, api_key: API_KEY });
      await gone.close();
      const down = await options('fixture_crm', { kind: 'modules', connection_uuid: unreachable }).expect(502);
      expect(down.body.message).toMatch(/^The service of the app "Fixture CRM" failed to list modules: /);
    });

    it('422: no connection, an unknown one, one of another app, one of another tenant; params checked too', async () => {
      const required = { connection_uuid: [expect.stringContaining('is required')] };
      await refused('fixture_crm', { kind: 'modules' }, required);
      await refused('fixture_crm', { kind: 'modules', connection_uuid: null }, required);
      await refused('fixture_crm', { kind: 'modules', connection_uuid: '0198c0de-7a4e-7c1a-9f0e-3d2b1a0c9e8f' }, { connection_uuid: ['is not a connection of this tenant'] });
      const chat = await connect(kit.api, 'fixture_chat', { bot_token: 'token' });
      await refused('fixture_crm', { kind: 'modules', connection_uuid: chat }, { connection_uuid: ['is a connection of the app "fixture_chat", not of "fixture_crm"'] });
      const other = await kit.createTenant();
      const theirs = await connect(other.api, 'fixture_crm', { base_url: crm.url, api_key: API_KEY });
      await refused('fixture_crm', { kind: 'modules', connection_uuid: theirs }, { connection_uuid: ['is not a connection of this tenant'] });
      await options('fixture_crm', { kind: 'modules', connection_uuid: theirs }, other.api).expect(200);
      await refused('fixture_crm', { kind: 'records', connection_uuid: crmConnection, params: { module: '' } }, { 'params.module': ['must NOT have fewer than 1 characters'] });
      await refused('fixture_crm', { kind: 'people', connection_uuid: chat }, { kind: ['must be one of: modules, records'], connection_uuid: [expect.stringContaining('fixture_chat')] });
      await refused('fixture_crm', { kind: 'records', connection_uuid: 'not-a-uuid' }, { connection_uuid: ['must be a valid uuid', 'must be null'] });
      // Only the other tenant's own call reached the CRM: refused requests never load anything.
      expect(listCalls()).toHaveLength(1);
    });

    it('422 for an app with no list operation (the spec’s bot messaging case), whatever the request says', async () => {
      const chat = await connect(kit.api, 'fixture_chat', { bot_token: 'token' });
      const res = await options('fixture_chat', { kind: 'channels', connection_uuid: chat }).expect(422);
      expect(res.body).toEqual({ message: 'The app "Fixture Chat" has no option lists', errors: { kind: ['is not an option list of this app: it has none'] } });
    });
  });
});
