import type { ConfigValues } from '../../core';

/**
 * The Zoho CRM app's config slice (convict). Zoho runs one accounts server and one API
 * domain per data centre (.com, .eu, .in, .com.au, ...): an install whose Zoho accounts
 * live in another data centre points both URLs there. The OAuth client is the operator's,
 * registered in the Zoho API console (README.md).
 */
export const zohoConfig = {
  zohoClientId: { doc: 'Client ID of the OAuth client registered in the Zoho API console', format: String, default: '', env: 'ZOHO_CLIENT_ID' },
  zohoClientSecret: { doc: 'Client secret of that OAuth client', format: String, default: '', env: 'ZOHO_CLIENT_SECRET', sensitive: true },
  zohoAccountsUrl: {
    doc: "Zoho's OAuth authorization server (its /oauth/v2/auth and /oauth/v2/token); another data centre's for accounts there (https://accounts.zoho.eu)",
    format: String,
    default: 'https://accounts.zoho.com',
    env: 'ZOHO_ACCOUNTS_URL',
  },
  zohoApiBaseUrl: {
    doc: 'Base URL of the Zoho CRM API (/crm/v2/... hangs under it); the data centre of the accounts (https://www.zohoapis.eu)',
    format: String,
    default: 'https://www.zohoapis.com',
    env: 'ZOHO_API_BASE_URL',
  },
};

export type ZohoSettings = ConfigValues<typeof zohoConfig>;
