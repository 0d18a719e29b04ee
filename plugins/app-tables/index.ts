import { coreServices, definePlugin } from '../../core';
import { flowApps, flowTriggersRef } from '../flows';
import { tableRecordsRef, type TableRecords } from '../tables';
import { consumeRecordEvents } from './record-event-consumer';
import { createTablesApp } from './tables-app';

// App definitions are contributed before any plugin's init; the records service is handed
// over in init, so the app reads it when a step runs. The service works in the current
// tenant and transaction, whichever request or message that is.
let records: TableRecords | undefined;

export const tablesApp = createTablesApp(() => {
  if (!records) throw new Error('the app-tables plugin has not been initialised');
  return records;
});

export default definePlugin({
  id: 'app-tables',
  dependsOn: ['flows', 'tables'],
  contributes: [flowApps.add(tablesApp)],
  deps: { bus: coreServices.bus, triggers: flowTriggersRef, records: tableRecordsRef },
  init({ bus, triggers, records: service }) {
    records = service;
    consumeRecordEvents(bus, triggers, service);
  },
});
