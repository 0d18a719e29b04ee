import { defineFlowApp } from '../flows';
import { zohoAuth, zohoDeps } from './auth';
import { recordActions } from './record-actions';
import { recordTriggers } from './record-trigger';
import { zohoOptions } from './zoho-options';

const ICON =
  'data:image/svg+xml;base64,' +
  Buffer.from(
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" fill="none" stroke="#e42527" stroke-width="2"><circle cx="9" cy="8" r="3"/><path d="M3 20c0-3.3 2.7-6 6-6s6 2.7 6 6"/><path d="M16 6h5M16 10h5M18 14h3"/></svg>',
  ).toString('base64');

/** The `zoho_crm` app: Zoho CRM records through the v2 API, for a connection authorized with OAuth. */
export const zohoCrmApp = defineFlowApp({
  uid: 'zoho_crm',
  name: 'Zoho CRM',
  description: 'Create, update, upsert and find records of any Zoho CRM module, and start flows on records created or updated',
  icon: ICON,
  category: 'connect',
  version: '1.0.0',
  auth: zohoAuth,
  deps: zohoDeps,
  triggers: recordTriggers,
  actions: recordActions,
  options: zohoOptions,
});
