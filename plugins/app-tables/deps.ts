import { tableRecordsRef } from '../tables';

/**
 * The services the `tables` app's code uses, named once: the app declares them, each
 * action, trigger and option list names them to type `context.deps`. The records service
 * works in the current tenant and transaction, whichever step, event or list that is.
 */
export const tablesDeps = { records: tableRecordsRef };
