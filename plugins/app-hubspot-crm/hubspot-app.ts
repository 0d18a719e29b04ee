import { defineFlowApp } from '../flows';
import { hubspotActions } from './actions';
import { hubspotAuth } from './auth';
import { hubspotCrmDeps } from './deps';
import { hubspotOptions } from './options';
import { hubspotTriggers } from './trigger';

const ICON =
  'data:image/svg+xml;base64,' +
  Buffer.from(
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" fill="none" stroke="#ff7a59" stroke-width="2"><circle cx="16" cy="15" r="4"/><path d="M16 11V6M16 6a1.5 1.5 0 1 0 0-.01M12.8 12.6 5 7"/><circle cx="4" cy="6.5" r="1.5"/></svg>',
  ).toString('base64');

/** The `hubspot_crm` app: read and write the records of a HubSpot account's CRM, and react to their changes (connect, OAuth2). */
export const hubspotCrmApp = defineFlowApp({
  uid: 'hubspot_crm',
  name: 'HubSpot CRM',
  description: 'Create, update, upsert and find HubSpot CRM records (contacts, companies, deals, tickets, custom objects), and start flows when records change',
  icon: ICON,
  category: 'connect',
  version: '1.0.0',
  auth: hubspotAuth,
  deps: hubspotCrmDeps,
  triggers: hubspotTriggers,
  actions: hubspotActions,
  options: hubspotOptions,
});
