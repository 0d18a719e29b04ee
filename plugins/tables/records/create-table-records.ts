import type { OrmService } from '../../../core';
import type { TableRecords } from '../table-records';
import type { RecordStore } from './record-store';

// STUB: replaced by the tables/records helper.
export function createTableRecords(_orm: OrmService, _store: RecordStore): TableRecords {
  const missing = () => Promise.reject(new Error('TableRecords is not built yet'));
  return { listTables: missing, outline: missing, insert: missing, update: missing, delete: missing, find: missing, aggregate: missing };
}
