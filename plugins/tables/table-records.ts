import { createServiceRef } from '../../core';
import type { RecordFilter, RecordSort } from './model/operators';
import type { ColumnJson, RecordJson } from './model/views';

export interface TableOutline {
  uuid: string;
  name: string;
  columns: ColumnJson[];
}

export interface FindRecordsOptions {
  filters?: RecordFilter[];
  sort?: RecordSort[];
  limit?: number;
  offset?: number;
}

export interface AggregateOptions {
  aggregate: 'count' | 'sum' | 'avg' | 'min' | 'max';
  /** Column (uuid or name) to aggregate; `count` without one counts records. */
  column?: string;
  /** Column (uuid or name) to group by. */
  groupBy?: string;
  filters?: RecordFilter[];
}

export interface RecordWriteOptions {
  /**
   * Who writes, e.g. `flow:<uuid>`: sent as the `caused-by` header of the record event
   * the write publishes, so a consumer can recognise the writes it caused itself.
   */
  cause?: string;
}

export type AggregateResult = { value: unknown } | { groups: Array<{ key: unknown; value: unknown }> };

/**
 * Records of the current tenant's tables, for other plugins (the tables flow app, the
 * agent runtime's lookups), in the current transaction. Columns are named by uuid or
 * name. An unknown table throws TableNotFoundError; bad values or filters throw a
 * ValidationError whose paths start at `values.` / `filters.`.
 */
export interface TableRecords {
  /** Tables whose name contains `search` (case-insensitive), by name. */
  listTables(options?: { search?: string; limit?: number; offset?: number }): Promise<{ items: Array<{ uuid: string; name: string }>; total: number }>;
  /** The table and its columns; null when it does not exist. */
  outline(tableUuid: string): Promise<TableOutline | null>;
  insert(tableUuid: string, values: Record<string, unknown>, options?: RecordWriteOptions): Promise<RecordJson>;
  /** Changes the values given, keeps the others; null when the record does not exist. */
  update(tableUuid: string, recordUuid: string, values: Record<string, unknown>, options?: RecordWriteOptions): Promise<RecordJson | null>;
  delete(tableUuid: string, recordUuid: string): Promise<boolean>;
  find(tableUuid: string, options?: FindRecordsOptions): Promise<{ items: RecordJson[]; total: number }>;
  aggregate(tableUuid: string, options: AggregateOptions): Promise<AggregateResult>;
}

export const tableRecordsRef = createServiceRef<TableRecords>('tables.records');
