import { defineFlowApp } from '../flows';
import { tablesDeps } from './deps';
import { recordActions } from './record-actions';
import { recordTriggers } from './record-triggers';
import { tableOptions } from './table-options';

const ICON =
  'data:image/svg+xml;base64,' +
  Buffer.from(
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" fill="none" stroke="#2b6cb0" stroke-width="2"><rect x="3" y="4" width="18" height="16" rx="2"/><path d="M3 10h18M3 15h18M9 10v10M15 10v10"/></svg>',
  ).toString('base64');

/** The `tables` app: read and write the tenant's tables, and react to their records (builtin, no connection). */
export const tablesApp = defineFlowApp({
  uid: 'tables',
  name: 'Tables',
  description: 'Insert, update, delete, find and aggregate table records, and react to new and changed records',
  icon: ICON,
  category: 'builtin',
  deps: tablesDeps,
  triggers: recordTriggers,
  actions: recordActions,
  options: tableOptions,
});
