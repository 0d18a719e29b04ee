import path from 'node:path';
import { startTestKernel, type TestKernel } from '../../../core/testing';
import { startOAuthServer, type OAuthServer, type VendorServer } from '../../../plugins/flows/testing-kit';
import { seedRecord, startZohoServer, type ZohoState } from './zoho-server';
import { CLIENT } from './zoho-test-setup';

/**
 * The plugin as an install runs it: booted with the flows plugin (its auth, option links
 * and config deps checked at boot), in the catalog, connected through the OAuth dance
 * against the fake Zoho accounts server, and its lists loaded through the API.
 */

type Json = Record<string, any>;
const PLUGINS = ['agents', 'flows', 'app-zoho-crm'].map((id) => path.resolve(__dirname, '../../../plugins', id));
const REDIRECT = 'https://switchboard.example.com/oauth/callback';

let oauth: OAuthServer;
let zoho: VendorServer<ZohoState>;
let kit: TestKernel;

beforeAll(async () => {
  oauth = await startOAuthServer({ clientId: CLIENT.zohoClientId, clientSecret: CLIENT.zohoClientSecret, authorizePath: '/oauth/v2/auth', tokenPath: '/oauth/v2/token' });
  zoho = await startZohoServer({ oauth });
  kit = await startTestKernel({
    plugins: PLUGINS,
    role: 'serve',
    config: { flows: { oauthRedirectUrl: REDIRECT }, 'app-zoho-crm': { ...CLIENT, zohoAccountsUrl: oauth.url, zohoApiBaseUrl: zoho.url } },
  });
});
afterAll(async () => {
  await kit?.stop();
  await zoho?.close();
  await oauth?.close();
});

describe('the zoho_crm app', () => {
  it('is in the catalog with its trigger, actions and option lists, fields linked to the lists', async () => {
    const app = (await kit.api.get('/api/v1/flow/apps/zoho_crm').expect(200)).body.data;
    expect(app).toMatchObject({ uid: 'zoho_crm', name: 'Zoho CRM', category: 'connect' });
    expect(app.triggers.map((trigger: Json) => trigger.key)).toEqual(['record_created_or_updated']);
    expect(app.actions.map((action: Json) => action.key)).toEqual(['create_record', 'update_record', 'upsert_record', 'find_records']);
    expect(app.options.map((list: Json) => [list.kind, list.searchable])).toEqual([
      ['modules', true],
      ['module_fields', true],
      ['records', true],
    ]);
    const upsert = app.actions.find((action: Json) => action.key === 'upsert_record').input_schema;
    expect(upsert.properties.module['x-options']).toEqual({ kind: 'modules', params: {}, dependsOn: [] });
    expect(upsert.properties.match_field['x-options']).toEqual({ kind: 'module_fields', params: { module: '{{config.module}}' }, dependsOn: ['module'] });
    const update = app.actions.find((action: Json) => action.key === 'update_record').input_schema;
    expect(update.properties.record_id['x-options']).toEqual({ kind: 'records', params: { module: '{{config.module}}' }, dependsOn: ['module'] });
  });

  it('connects through Zoho’s OAuth (comma-separated scopes, offline access, consent) and lists the account’s modules', async () => {
    const started = await kit.api.post('/api/v1/flow/connections/oauth/start').send({ app_uid: 'zoho_crm', label: 'Sales CRM' }).expect(200);
    const url = new URL(started.body.data.authorization_url);
    expect(`${url.origin}${url.pathname}`).toBe(`${oauth.url}/oauth/v2/auth`);
    expect(Object.fromEntries(url.searchParams)).toMatchObject({
      client_id: CLIENT.zohoClientId,
      scope: 'ZohoCRM.modules.ALL,ZohoCRM.settings.ALL,ZohoSearch.securesearch.READ',
      access_type: 'offline',
      prompt: 'consent',
      redirect_uri: REDIRECT,
    });

    const back = new URL(oauth.consent(started.body.data.authorization_url));
    const connected = await kit.client({}).get(`${back.pathname}${back.search}`).expect(200);
    expect(connected.body.data).toMatchObject({ app_uid: 'zoho_crm', label: 'Sales CRM', status: 'connected' });

    const lead = seedRecord(zoho.state, 'Leads', { Last_Name: 'Boyle', Full_Name: 'Patricia Boyle' });
    const load = (kind: string, params: Json) => kit.api.post('/api/v1/flow/apps/zoho_crm/options').send({ kind, connection_uuid: connected.body.data.uuid, params });
    const modules = (await load('modules', {}).expect(200)).body.data;
    expect(modules).toEqual([
      { label: 'Leads', value: 'Leads' },
      { label: 'Contacts', value: 'Contacts' },
      { label: 'Deals', value: 'Deals' },
    ]);
    expect((await load('records', { module: 'Leads' }).expect(200)).body.data).toEqual([{ label: 'Patricia Boyle', value: lead.id }]);
    await load('records', {}).expect(422);
  });
});
