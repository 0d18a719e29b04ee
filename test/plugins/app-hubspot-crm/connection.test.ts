import { hubspotCrmApp, hubspotCrmConfig } from '../../../plugins/app-hubspot-crm';
import { HUBSPOT_OPTIONAL_SCOPES, HUBSPOT_SCOPES } from '../../../plugins/app-hubspot-crm/auth';
import { VendorError, type OAuth2Auth } from '../../../plugins/flows';
import { flowAppProblems } from '../../../plugins/flows/app/flow-app-problems';
import { authorizationUrl, exchangeCode, oauthEndpoints, pkcePair } from '../../../plugins/flows/connections/oauth-client';
import { loadOptions, runAction } from '../../../plugins/flows/testing-kit';
import { CLIENT, useHubSpot } from './hubspot-setup';

const { world, options, received } = useHubSpot();

const createContact = (credentials: Record<string, unknown>, email = 'ada@example.com') =>
  runAction(hubspotCrmApp, 'create_record', { module: 'contacts', properties: { email } }, options(credentials));

describe('the app', () => {
  it('passes every check the flows plugin makes at boot, and names its config keys after HUBSPOT_*', () => {
    expect(flowAppProblems([hubspotCrmApp], [])).toEqual([]);
    expect(Object.fromEntries(Object.entries(hubspotCrmConfig).map(([key, setting]) => [key, [setting.env, setting.default]]))).toEqual({
      hubspotClientId: ['HUBSPOT_CLIENT_ID', ''],
      hubspotClientSecret: ['HUBSPOT_CLIENT_SECRET', ''],
      hubspotAccountsUrl: ['HUBSPOT_ACCOUNTS_URL', 'https://app.hubspot.com'],
      hubspotApiBaseUrl: ['HUBSPOT_API_BASE_URL', 'https://api.hubapi.com'],
      hubspotPollSettleSeconds: ['HUBSPOT_POLL_SETTLE_SECONDS', 15],
    });
  });
});

describe('OAuth', () => {
  it('sends the user to HubSpot’s authorize URL with the scopes and PKCE, and exchanges the code at the API host’s token endpoint', async () => {
    const auth = hubspotCrmApp.auth as OAuth2Auth;
    const endpoints = oauthEndpoints(auth, (key) => world.values[key]);
    expect(endpoints.tokenUrl).toBe(`${world.hubspot.url}/oauth/v3/token`);
    const pkce = pkcePair();
    const redirectUri = 'https://switchboard.example.com/oauth/callback';
    const url = new URL(authorizationUrl(auth, endpoints, { state: 'state-1', redirectUri, codeChallenge: pkce.challenge }));
    expect(`${url.origin}${url.pathname}`).toBe(`${world.oauth.url}/oauth/authorize`);
    expect(url.searchParams.get('scope')).toBe(HUBSPOT_SCOPES.join(' '));
    expect(url.searchParams.get('optional_scope')).toBe(HUBSPOT_OPTIONAL_SCOPES.join(' '));

    const back = new URL(world.oauth.consent(url.toString()));
    const tokens = await exchangeCode(world.egress, endpoints, { code: back.searchParams.get('code')!, redirectUri, codeVerifier: pkce.verifier });
    expect(tokens).toMatchObject({ access_token: expect.any(String), refresh_token: expect.any(String), expires_in: 1800 });
    expect(world.oauth.tokenRequests).toEqual([expect.objectContaining({ grant_type: 'authorization_code', client_id: CLIENT.clientId, code_verifier: pkce.verifier })]);
    // The tokens work against the API.
    await expect(createContact({ access_token: tokens.access_token, refresh_token: tokens.refresh_token })).resolves.toBeDefined();
  });

  it('refreshes an access token about to expire before calling HubSpot', async () => {
    const issued = world.oauth.issue();
    const credentials = { ...issued, expires_at: new Date(Date.now() + 20_000).toISOString() };
    await createContact(credentials);
    expect(world.oauth.tokenRequests).toEqual([expect.objectContaining({ grant_type: 'refresh_token', refresh_token: issued.refresh_token, client_secret: CLIENT.clientSecret })]);
    const [request] = received('POST /crm/v3/objects/contacts');
    expect(request.headers.authorization).not.toBe(`Bearer ${issued.access_token}`);
    expect(world.oauth.accepts(request.headers.authorization)).toBe(true);
  });

  it('refreshes once and tries again when HubSpot answers 401 to a revoked token', async () => {
    const issued = world.oauth.issue();
    world.oauth.expireAccessTokens();
    const { output } = await createContact(issued);
    expect(output).toMatchObject({ email: 'ada@example.com' });
    expect(world.oauth.tokenRequests.map((form) => form.grant_type)).toEqual(['refresh_token']);
    expect(received('POST /crm/v3/objects/contacts').map((request) => request.headers.authorization === `Bearer ${issued.access_token}`)).toEqual([true, false]);
  });

});

describe('HubSpot refusing or failing', () => {
  it('waits out a short 429 and sends again', async () => {
    world.hubspot.state.failNext = [{ status: 429, retryAfter: 0 }];
    await expect(createContact(world.oauth.issue())).resolves.toMatchObject({ output: { email: 'ada@example.com' } });
    expect(received('POST /crm/v3/objects/contacts')).toHaveLength(2);
  });

  it('turns a long 429 into a VendorError that says when to try again', async () => {
    world.hubspot.state.failNext = [{ status: 429, retryAfter: 30 }];
    const failure = await createContact(world.oauth.issue()).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(VendorError);
    expect(failure).toMatchObject({ status: 429, retryAfterSeconds: 30, refused: true });
    expect((failure as Error).message).toBe('HubSpot is rate limiting the connection (429: You have reached your secondly limit.); try again in 30 s');
  });

  it('turns a 5xx into a VendorError naming what failed, in an action and an option list', async () => {
    world.hubspot.state.failNext = [{ status: 503, message: 'Service unavailable' }];
    await expect(createContact(world.oauth.issue())).rejects.toThrow('HubSpot failed to create a record of contacts (503: Service unavailable)');
    world.hubspot.state.failNext = [{ status: 500 }];
    await expect(loadOptions(hubspotCrmApp, 'module_fields', { module: 'deals' }, options())).rejects.toMatchObject({ status: 500, message: 'HubSpot failed to list the properties of deals (500: internal error)' });
  });
});

describe('credentials', () => {
  it('appear in no output and no log line, refresh included', async () => {
    const issued = world.oauth.issue();
    world.oauth.expireAccessTokens();
    const run = await createContact(issued);
    const refreshed = String(received('POST /crm/v3/objects/contacts')[1].headers.authorization).replace('Bearer ', '');
    expect(refreshed).not.toBe(issued.access_token);
    const shown = JSON.stringify({ output: run.output, logs: run.logs });
    for (const secret of [issued.access_token, issued.refresh_token, refreshed, CLIENT.clientSecret]) expect(shown).not.toContain(secret);
  });
});

// Last: the authorization server refuses every refresh token from now on.
describe('a revoked grant', () => {
  it('fails the step asking to authorize the connection again, and writes nothing', async () => {
    const issued = world.oauth.issue();
    world.oauth.expireAccessTokens();
    world.oauth.revokeRefreshTokens();
    await expect(createContact(issued)).rejects.toThrow(/must be authorized again/);
    expect(world.hubspot.state.records.contacts).toHaveLength(0);
  });
});
