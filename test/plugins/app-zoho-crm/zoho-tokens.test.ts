import { ConnectionNeedsReauth } from '../../../plugins/flows';
import { loadOptions, runAction } from '../../../plugins/flows/testing-kit';
import { zohoCrmApp } from '../../../plugins/app-zoho-crm';
import { seedRecord } from './zoho-server';
import { CLIENT, requestsTo, useZoho } from './zoho-test-setup';

const setup = useZoho();

/** The token requests made by the test so far (the fake authorization server keeps them across tests). */
function tokenRequestsSince(count: number) {
  return setup.oauth.tokenRequests.slice(count);
}

describe('the Zoho CRM connection’s tokens', () => {
  it('are refreshed before a call when the access token is about to expire', async () => {
    const before = setup.oauth.tokenRequests.length;
    const tokens = setup.tokens();
    const call = setup.call({ ...tokens, expires_at: new Date(Date.now() + 20_000).toISOString() });

    await loadOptions(zohoCrmApp, 'modules', {}, call);

    expect(tokenRequestsSince(before)).toEqual([
      expect.objectContaining({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: CLIENT.zohoClientId, client_secret: CLIENT.zohoClientSecret }),
    ]);
    const [request] = requestsTo(setup.zoho, 'GET', '/crm/v2/settings/modules');
    // Sent with the refreshed token, not the one about to expire.
    expect(request.headers.authorization).not.toBe(`Zoho-oauthtoken ${tokens.access_token}`);
    expect(setup.oauth.accepts(request.headers.authorization, 'Zoho-oauthtoken')).toBe(true);
  });

  it('are refreshed once when Zoho refuses the access token, and the call is sent again', async () => {
    seedRecord(setup.zoho.state, 'Leads', { Last_Name: 'Smith', Email: 'jane.smith@example.com' });
    const tokens = setup.tokens();
    setup.oauth.expireAccessTokens();
    const before = setup.oauth.tokenRequests.length;

    const { output } = await runAction(zohoCrmApp, 'find_records', { module: 'Leads', field: 'Email', value: 'jane.smith@example.com' }, setup.call(tokens));

    expect(output).toMatchObject({ count: 1 });
    expect(tokenRequestsSince(before).map((form) => form.grant_type)).toEqual(['refresh_token']);
    const searches = requestsTo(setup.zoho, 'GET', '/crm/v2/Leads/search');
    expect(searches).toHaveLength(2);
    expect(searches[0].headers.authorization).toBe(`Zoho-oauthtoken ${tokens.access_token}`);
    expect(searches[1].headers.authorization).not.toBe(searches[0].headers.authorization);
  });

  it('say the connection must be authorized again when Zoho refuses the refresh token', async () => {
    const tokens = setup.tokens();
    setup.oauth.expireAccessTokens();
    setup.oauth.revokeRefreshTokens();
    const refused = await runAction(zohoCrmApp, 'create_record', { module: 'Leads', fields: { Last_Name: 'Smith' } }, setup.call(tokens)).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ConnectionNeedsReauth);
    expect(setup.zoho.state.records.Leads).toHaveLength(0);
  });
});
