import { configRef } from '../../core';
import { Auth } from '../flows';
import { zohoConfig } from './zoho-config';

/**
 * A Zoho CRM connection: OAuth 2.0 against the operator's Zoho client. Zoho joins scopes
 * with commas, gives a refresh token only with `access_type=offline` (and again on a new
 * consent with `prompt=consent`), and wants `Zoho-oauthtoken` before the access token.
 * The flows plugin runs the dance and refreshes tokens; the app's code never does.
 */
export const zohoAuth = Auth.oauth2({
  description: 'Your Zoho CRM account: sign in with Zoho and grant access to its modules and settings',
  authorizeUrl: '{zohoAccountsUrl}/oauth/v2/auth',
  tokenUrl: '{zohoAccountsUrl}/oauth/v2/token',
  // modules: records; settings: modules and fields metadata; securesearch: the search API.
  scopes: ['ZohoCRM.modules.ALL', 'ZohoCRM.settings.ALL', 'ZohoSearch.securesearch.READ'],
  scopeSeparator: ',',
  pkce: true,
  clientIdKey: 'zohoClientId',
  clientSecretKey: 'zohoClientSecret',
  authorizeParams: { access_type: 'offline', prompt: 'consent' },
  tokenPrefix: 'Zoho-oauthtoken',
});

/** What the app's code uses: its plugin's config, for the API base URL. */
export const zohoDeps = { config: configRef(zohoConfig) };
