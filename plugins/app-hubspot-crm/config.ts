import type { ConfigValues } from '../../core';

/**
 * The HubSpot CRM app's settings (decisions-2.md section 0): the operator's OAuth client
 * (a HubSpot app) and HubSpot's endpoints, which default to the public ones; an install
 * or a test points them elsewhere. HubSpot's token endpoint hangs under the API host, not
 * under the accounts host where users grant access, hence `{hubspotApiBaseUrl}` in the token URL.
 */
export const hubspotCrmConfig = {
  hubspotClientId: {
    doc: 'Client id of the HubSpot app the HubSpot CRM flow app authorizes with (empty: connections cannot be made)',
    format: String,
    default: '',
    env: 'HUBSPOT_CLIENT_ID',
  },
  hubspotClientSecret: {
    doc: 'Client secret of that HubSpot app',
    format: String,
    default: '',
    env: 'HUBSPOT_CLIENT_SECRET',
    sensitive: true,
  },
  hubspotAccountsUrl: {
    doc: 'Base URL where HubSpot users grant access (`/oauth/authorize` hangs under it)',
    format: String,
    default: 'https://app.hubspot.com',
    env: 'HUBSPOT_ACCOUNTS_URL',
  },
  hubspotApiBaseUrl: {
    doc: 'Base URL of the HubSpot API (`/crm/v3/...` and the OAuth token endpoint `/oauth/v3/token` hang under it)',
    format: String,
    default: 'https://api.hubapi.com',
    env: 'HUBSPOT_API_BASE_URL',
  },
  hubspotPollSettleSeconds: {
    doc:
      'How old a change must be before the record_created_or_updated trigger reads past it (seconds): HubSpot search sees a change a few ' +
      'seconds after it is made, and a poll that moved its cursor past a change not yet searchable would never see it',
    format: 'nat',
    default: 15,
    env: 'HUBSPOT_POLL_SETTLE_SECONDS',
  },
};

export type HubSpotCrmSettings = ConfigValues<typeof hubspotCrmConfig>;
