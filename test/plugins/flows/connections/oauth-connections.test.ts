import path from 'node:path';
import { Type, configRef, definePlugin } from '../../../../core';
import { startTestKernel, type TestKernel } from '../../../../core/testing';
import { Auth, contributeFlowApp, defineAction, defineFlowApp, defineOptions, expectOk, flowApps } from '../../../../plugins/flows';
import { startOAuthServer, startVendorServer, type OAuthServer, type VendorServer } from '../../../../plugins/flows/testing-kit';
import { AGENTS_PLUGIN, FLOWS_PLUGIN } from '../catalog/fixture-apps';

/**
 * OAuth2 connections end to end, through the API: the authorization code grant with PKCE
 * against a strict local authorization server, the callback without a bearer, and the
 * engine keeping tokens fresh (before expiry, after a 401, collapsed, needs_reauth).
 */
const CLIENT = { clientId: 'switchboard-client', clientSecret: 'client-secret-123' };

const notesConfig = {
  notesClientId: { doc: 'client id', format: String, default: '', env: 'NOTES_CLIENT_ID' },
  notesClientSecret: { doc: 'client secret', format: String, default: '', env: 'NOTES_CLIENT_SECRET', sensitive: true },
  notesAccountsUrl: { doc: 'authorization server', format: String, default: 'https://accounts.notes.example', env: 'NOTES_ACCOUNTS_URL' },
};

const notesAuth = Auth.oauth2({
  authorizeUrl: '{notesAccountsUrl}/oauth/authorize',
  tokenUrl: '{notesAccountsUrl}/oauth/token',
  scopes: ['notes.read', 'notes.write'],
  clientIdKey: 'notesClientId',
  clientSecretKey: 'notesClientSecret',
  authorizeParams: { access_type: 'offline' },
});

/** A connect app whose only list asks the vendor's API with `context.http`. */
const notesApp = defineFlowApp({
  uid: 'oauth_notes',
  name: 'OAuth Notes',
  description: 'Notes behind OAuth',
  icon: 'https://notes.example.com/icon.png',
  category: 'connect',
  auth: notesAuth,
  deps: { config: configRef(notesConfig) },
  actions: [
    defineAction({
      auth: notesAuth,
      key: 'noop',
      name: 'Nothing',
      description: 'Does nothing',
      input: Type.Object({}),
      outputSample: {},
      run: () => ({}),
    }),
  ],
  options: [
    defineOptions({
      auth: notesAuth,
      kind: 'notebooks',
      params: Type.Object({}),
      async load({ http }) {
        const response = expectOk('Notes', await http.request(`${apiUrl}/notebooks`), 'list notebooks');
        return { options: response.json<Array<{ id: string; name: string }>>().map((book) => ({ label: book.name, value: book.id })) };
      },
    }),
  ],
});

/** An app with an API key: OAuth cannot start for it. */
const keyApp = defineFlowApp({
  uid: 'oauth_keyed',
  name: 'Keyed',
  description: 'API key app',
  icon: 'https://keyed.example.com/icon.png',
  category: 'connect',
  auth: Auth.apiKey(),
  actions: [defineAction({ key: 'noop', name: 'Nothing', description: 'Does nothing', input: Type.Object({}), outputSample: {}, run: () => ({}) })],
});

const notesPlugin = definePlugin({ id: 'oauth-notes', dependsOn: ['flows'], config: notesConfig, ...contributeFlowApp(notesApp) });
const keyedPlugin = definePlugin({ id: 'oauth-keyed', dependsOn: ['flows'], contributes: [flowApps.add(keyApp)] });

let apiUrl = '';
let oauth: OAuthServer;
let api: VendorServer<{ unauthorized: number }>;
let kit: TestKernel;
const REDIRECT = 'http://127.0.0.1:1/oauth/callback';
const WEBHOOK_PLUGIN = path.resolve(__dirname, '../../../../plugins/app-webhook');

async function boot(ttlSeconds: number, options: { configured?: boolean } = {}) {
  oauth = await startOAuthServer({ ...CLIENT, accessTokenTtlSeconds: ttlSeconds });
  api = await startVendorServer<{ unauthorized: number }>(
    {
      'GET /notebooks': (request, state) => {
        if (!oauth.accepts(request.headers.authorization)) {
          state.unauthorized += 1;
          return { status: 401, body: { error: 'invalid_token' } };
        }
        return { body: [{ id: 'nb1', name: 'Recipes' }] };
      },
    },
    { state: { unauthorized: 0 } },
  );
  apiUrl = api.url;
  kit = await startTestKernel({
    plugins: [AGENTS_PLUGIN, FLOWS_PLUGIN, WEBHOOK_PLUGIN, notesPlugin, keyedPlugin],
    config: {
      flows: { oauthRedirectUrl: REDIRECT },
      ...(options.configured === false ? {} : { 'oauth-notes': { notesClientId: CLIENT.clientId, notesClientSecret: CLIENT.clientSecret, notesAccountsUrl: oauth.url } }),
    },
  });
}

async function shutDown() {
  await kit?.stop();
  await api?.close();
  await oauth?.close();
}

/** Starts an authorization, grants it at the authorization server, and follows the browser back to the callback (no bearer). */
async function connect(label = 'My notes', extra: Record<string, unknown> = {}) {
  const started = await kit.api.post('/api/v1/flow/connections/oauth/start').send({ app_uid: 'oauth_notes', label, ...extra }).expect(200);
  const back = new URL(oauth.consent(started.body.data.authorization_url));
  return { started, callback: await kit.client({}).get(`${back.pathname}${back.search}`) };
}

const notebooks = (connectionUuid: string) => kit.api.post('/api/v1/flow/apps/oauth_notes/options').send({ kind: 'notebooks', connection_uuid: connectionUuid, params: {} });

describe('OAuth2 connections', () => {
  describe('the authorization code grant', () => {
    beforeAll(() => boot(3600));
    afterAll(shutDown);

    it('starts with an authorization URL carrying the client, the redirect URI, the scopes, a state and an S256 challenge', async () => {
      const res = await kit.api.post('/api/v1/flow/connections/oauth/start').send({ app_uid: 'oauth_notes', label: 'Notes' }).expect(200);
      const url = new URL(res.body.data.authorization_url);
      expect(`${url.origin}${url.pathname}`).toBe(`${oauth.url}/oauth/authorize`);
      expect(Object.fromEntries(url.searchParams)).toMatchObject({
        response_type: 'code',
        client_id: CLIENT.clientId,
        redirect_uri: REDIRECT,
        scope: 'notes.read notes.write',
        state: res.body.data.state,
        code_challenge_method: 'S256',
        access_type: 'offline',
      });
      expect(url.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(url.searchParams.has('client_secret')).toBe(false);

      // The catalog shows where this install sends users, never the client.
      const detail = (await kit.api.get('/api/v1/flow/apps/oauth_notes').expect(200)).body.data;
      expect(detail.auth.oauth2).toEqual({ authorize_url: `${oauth.url}/oauth/authorize`, configured: true, scopes: ['notes.read', 'notes.write'], pkce: true });
      expect(JSON.stringify(detail)).not.toContain(CLIENT.clientSecret);
    });

    it('refuses apps that are not OAuth2, unknown apps and a redirect_uri that is not a URL, at the member', async () => {
      const keyed = await kit.api.post('/api/v1/flow/connections/oauth/start').send({ app_uid: 'oauth_keyed', label: 'k' }).expect(422);
      expect(keyed.body.errors.app_uid[0]).toMatch(/not connected through OAuth2/);
      const unknown = await kit.api.post('/api/v1/flow/connections/oauth/start').send({ app_uid: 'nope', label: 'k' }).expect(422);
      expect(unknown.body.errors.app_uid).toBeDefined();
      const bad = await kit.api.post('/api/v1/flow/connections/oauth/start').send({ app_uid: 'oauth_notes', label: 'k', redirect_uri: 'javascript:alert(1)' }).expect(422);
      expect(bad.body.errors.redirect_uri).toBeDefined();
    });

    it('exchanges the code with the PKCE verifier and stores the connection, whose tokens no answer shows', async () => {
      const { callback } = await connect('Kitchen notes');
      expect(callback.status).toBe(200);
      expect(callback.body.data).toMatchObject({ app_uid: 'oauth_notes', label: 'Kitchen notes', status: 'connected', status_message: null });
      const exchange = oauth.tokenRequests.at(-1)!;
      expect(exchange).toMatchObject({ grant_type: 'authorization_code', redirect_uri: REDIRECT, client_id: CLIENT.clientId });
      expect(exchange.code_verifier).toMatch(/^[A-Za-z0-9_-]{43}$/);

      const read = await kit.api.get(`/api/v1/flow/connections/${callback.body.data.uuid}`).expect(200);
      const everything = JSON.stringify([callback.body, read.body, kit.logs]);
      expect(everything).not.toMatch(/access-[0-9a-f]{24}|refresh-[0-9a-f]{24}/);
      expect(everything).not.toContain(exchange.code_verifier);
      // The stored tokens work: the list is loaded with them.
      expect((await notebooks(callback.body.data.uuid).expect(200)).body.data).toEqual([{ label: 'Recipes', value: 'nb1' }]);
    });

    it('takes a state once: a replayed, unknown or missing state is a 400 and makes nothing', async () => {
      const { started, callback } = await connect();
      expect(callback.status).toBe(200);
      const again = await kit.client({}).get(`/oauth/callback?code=whatever&state=${started.body.data.state}`).expect(400);
      expect(again.body.message).toMatch(/unknown, used already or expired/);
      await kit.client({}).get('/oauth/callback?code=x&state=never-issued').expect(400);
      await kit.client({}).get('/oauth/callback?code=x').expect(400);
    });

    it('a user who refuses sends the browser back to redirect_uri with the error; a granted one with the connection', async () => {
      const started = await kit.api.post('/api/v1/flow/connections/oauth/start').send({ app_uid: 'oauth_notes', label: 'Denied', redirect_uri: 'https://app.example.com/done' }).expect(200);
      const denied = new URL(oauth.consent(started.body.data.authorization_url, { deny: true }));
      const refused = await kit.client({}).get(`${denied.pathname}${denied.search}`).expect(303);
      expect(Object.fromEntries(new URL(refused.headers.location).searchParams)).toMatchObject({ error: 'access_denied' });

      const { callback } = await connect('Granted', { redirect_uri: 'https://app.example.com/done?tab=apps' });
      expect(callback.status).toBe(303);
      const location = new URL(callback.headers.location);
      expect(location.origin + location.pathname).toBe('https://app.example.com/done');
      expect(location.searchParams.get('tab')).toBe('apps');
      expect(location.searchParams.get('status')).toBe('connected');
      await kit.api.get(`/api/v1/flow/connections/${location.searchParams.get('connection_uuid')}`).expect(200);
    });

    it('a code the authorization server refuses (tampered verifier or code) makes no connection', async () => {
      const started = await kit.api.post('/api/v1/flow/connections/oauth/start').send({ app_uid: 'oauth_notes', label: 'Tampered' }).expect(200);
      const back = new URL(oauth.consent(started.body.data.authorization_url));
      back.searchParams.set('code', 'code-forged');
      const res = await kit.client({}).get(`${back.pathname}${back.search}`).expect(400);
      expect(res.body.message).toMatch(/refused the authorization code/);
      const list = await kit.api.get('/api/v1/flow/connections?app_uid=oauth_notes').expect(200);
      expect(list.body.data.items.map((row: { label: string }) => row.label)).not.toContain('Tampered');
    });

    it('is bound to its tenant and to the token that started it: revoked since, the callback is refused', async () => {
      const made = await kit.admin.post(`/admin/v1/tenants/${kit.tenant.slug}/tokens`).send({ name: 'short-lived' }).expect(201);
      const client = kit.client({ host: `${kit.tenant.slug}.${kit.kernel.config.core.baseDomain}`, token: made.body.data.token });
      const started = await client.post('/api/v1/flow/connections/oauth/start').send({ app_uid: 'oauth_notes', label: 'Revoked' }).expect(200);
      await kit.admin.delete(`/admin/v1/tenants/${kit.tenant.slug}/tokens/${made.body.data.uuid}`).expect(200);
      const back = new URL(oauth.consent(started.body.data.authorization_url));
      await kit.client({}).get(`${back.pathname}${back.search}`).expect(403);

      // Another tenant cannot see, use or list the connection made for this one.
      const { callback } = await connect('Mine');
      const other = await kit.createTenant();
      await other.api.get(`/api/v1/flow/connections/${callback.body.data.uuid}`).expect(404);
      const foreign = await other.api.post('/api/v1/flow/apps/oauth_notes/options').send({ kind: 'notebooks', connection_uuid: callback.body.data.uuid, params: {} }).expect(422);
      expect(foreign.body.errors.connection_uuid).toBeDefined();
    });
  });

  describe('keeping tokens fresh', () => {
    beforeAll(() => boot(3600));
    afterAll(shutDown);

    it('refreshes once after a 401 and goes on with the new token; concurrent refreshes of one connection are one', async () => {
      const { callback } = await connect();
      const uuid = callback.body.data.uuid;
      oauth.expireAccessTokens();
      const before = oauth.tokenRequests.length;
      const answers = await Promise.all(Array.from({ length: 5 }, () => notebooks(uuid)));
      for (const answer of answers) expect(answer.body.data).toEqual([{ label: 'Recipes', value: 'nb1' }]);
      const refreshes = oauth.tokenRequests.slice(before).filter((form) => form.grant_type === 'refresh_token');
      expect(refreshes).toHaveLength(1);
      // Stored: the next load uses the new token at once.
      const unauthorized = api.state.unauthorized;
      await notebooks(uuid).expect(200);
      expect(api.state.unauthorized).toBe(unauthorized);
      expect(oauth.tokenRequests.slice(before).filter((form) => form.grant_type === 'refresh_token')).toHaveLength(1);
    });

    it('a refused refresh marks the connection needs_reauth; lists say so without calling the vendor; new credentials clear it', async () => {
      const { callback } = await connect('Will lapse');
      const uuid = callback.body.data.uuid;
      oauth.expireAccessTokens();
      oauth.revokeRefreshTokens();
      const first = await notebooks(uuid).expect(200);
      expect(first.body).toMatchObject({ data: [], state: 'unavailable' });
      expect(first.body.message).toMatch(/"Will lapse" must be authorized again/);
      const read = await kit.api.get(`/api/v1/flow/connections/${uuid}`).expect(200);
      expect(read.body.data).toMatchObject({ status: 'needs_reauth' });
      expect(read.body.data.status_message).toMatch(/invalid_grant/);

      const calls = api.requests.length;
      const again = await notebooks(uuid).expect(200);
      expect(again.body.state).toBe('unavailable');
      expect(api.requests.length).toBe(calls);

      // A step using it fails with the same message, before anything is sent.
      const flow = (await kit.api.post('/api/v1/flow').send({ name: 'Uses a lapsed connection' }).expect(201)).body.data.uuid;
      await kit.api.post(`/api/v1/flow/${flow}/steps`).send({ app_uid: 'webhook', trigger_key: 'catch_hook', config: {} }).expect(201);
      const step = (await kit.api.post(`/api/v1/flow/${flow}/steps`).send({ app_uid: 'oauth_notes', action_key: 'noop', app_connection_uuid: uuid, config: {} }).expect(201)).body.data.uuid;
      const tested = await kit.api.post(`/api/v1/flow/${flow}/steps/${step}/test`).expect(200);
      expect(tested.body.data.last_test.error).toMatch(/"Will lapse" must be authorized again/);

      const fresh = { ...(await startFreshTokens()) };
      const patched = await kit.api.patch(`/api/v1/flow/connections/${uuid}`).send({ credentials: fresh }).expect(200);
      expect(patched.body.data).toMatchObject({ status: 'connected', status_message: null });
    });
  });

  describe('refreshing before expiry', () => {
    // Tokens that live 30 s are within the minute the engine refreshes ahead of.
    beforeAll(() => boot(30));
    afterAll(shutDown);

    it('refreshes an access token about to lapse before calling, so the vendor never sees it refused', async () => {
      const { callback } = await connect();
      const before = oauth.tokenRequests.length;
      await notebooks(callback.body.data.uuid).expect(200);
      expect(oauth.tokenRequests.slice(before).map((form) => form.grant_type)).toEqual(['refresh_token']);
      expect(api.state.unauthorized).toBe(0);
    });
  });

  describe('an app whose OAuth client is not configured', () => {
    beforeAll(() => boot(3600, { configured: false }));
    afterAll(shutDown);

    it('refuses to start, naming the config key', async () => {
      const res = await kit.api.post('/api/v1/flow/connections/oauth/start').send({ app_uid: 'oauth_notes', label: 'n' }).expect(422);
      expect(res.body.errors.app_uid[0]).toMatch(/notesClientId/);
    });
  });
});

/** Tokens granted outside the dance (what PATCH credentials takes), after the old grant was revoked. */
async function startFreshTokens() {
  const fresh = await startOAuthServer(CLIENT);
  try {
    const issued = fresh.issue();
    return { access_token: issued.access_token, refresh_token: issued.refresh_token, expires_at: issued.expires_at };
  } finally {
    await fresh.close();
  }
}
