import { Auth } from '../flows';

/**
 * Scopes every connection needs: read and write the standard objects the app offers, and
 * read their property definitions (the `module_fields` list). HubSpot refuses an
 * authorization whose `scope` differs from the required scopes set on the HubSpot app, so
 * the README lists these for the operator to set exactly.
 */
export const HUBSPOT_SCOPES = [
  'oauth',
  'crm.objects.contacts.read',
  'crm.objects.contacts.write',
  'crm.objects.companies.read',
  'crm.objects.companies.write',
  'crm.objects.deals.read',
  'crm.objects.deals.write',
  'tickets',
  'crm.schemas.contacts.read',
  'crm.schemas.companies.read',
  'crm.schemas.deals.read',
] as const;

/**
 * Custom objects exist on Enterprise accounts only: asked as `optional_scope`, so an
 * account without them can still connect (the `modules` list then shows standard objects only).
 */
export const HUBSPOT_OPTIONAL_SCOPES = ['crm.objects.custom.read', 'crm.objects.custom.write', 'crm.schemas.custom.read'] as const;

/**
 * A HubSpot CRM connection: the tokens of a HubSpot account that installed the operator's
 * HubSpot app. Users grant access at `{hubspotAccountsUrl}/oauth/authorize`; codes are
 * exchanged and tokens refreshed at the v3 token endpoint (form body, as RFC 6749; the v1
 * endpoint is deprecated). Access tokens last 30 minutes; the flows plugin refreshes them.
 */
export const hubspotAuth = Auth.oauth2({
  description: 'A HubSpot account whose CRM records the flows read and write',
  authorizeUrl: '{hubspotAccountsUrl}/oauth/authorize',
  tokenUrl: '{hubspotApiBaseUrl}/oauth/v3/token',
  scopes: HUBSPOT_SCOPES,
  pkce: true,
  clientIdKey: 'hubspotClientId',
  clientSecretKey: 'hubspotClientSecret',
  authorizeParams: { optional_scope: HUBSPOT_OPTIONAL_SCOPES.join(' ') },
});
