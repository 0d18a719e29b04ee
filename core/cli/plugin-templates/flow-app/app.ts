import { defineFlowApp } from 'switchboard/flows';
import { acmeLeadsAuth } from './auth';
import { createLead, createLeadV1 } from './create-lead';
import { lists } from './lists';
import { newLead } from './new-lead';

const ICON =
  'data:image/svg+xml;base64,' +
  Buffer.from(
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" fill="none" stroke="#2f855a" stroke-width="2"><circle cx="9" cy="8" r="4"/><path d="M2 21a7 7 0 0 1 14 0M19 8v6M16 11h6"/></svg>',
  ).toString('base64');

/**
 * The app as the flow studio shows it: a `connect` app, so each step names a connection
 * (an API key of the user's Acme Leads account), with one trigger, one action and the
 * option list their `list_id` is picked from. `version` is the app's release, shown in
 * the catalog: 1.1.0 added version 2 of `create_lead` beside version 1.
 */
export const acmeLeadsApp = defineFlowApp({
  uid: 'acme_leads',
  name: 'Acme Leads',
  version: '1.1.0',
  description: 'Start a flow on each new lead of an Acme Leads list, and add leads to a list',
  icon: ICON,
  category: 'connect',
  auth: acmeLeadsAuth,
  triggers: [newLead],
  actions: [createLead, createLeadV1],
  options: [lists],
});
