import type { TableColumn, TableRecord } from '../entities';
import type { ColumnJson, RecordJson } from './views';

export const columnJson = (column: TableColumn): ColumnJson => ({ uuid: column.uuid, name: column.name, data_type: column.dataType });

/**
 * A stored record as the API shows it: values by column name, in column order, every
 * current column present (an empty cell is null). Keys of deleted columns are not shown.
 */
export function recordJson(
  columns: readonly Pick<TableColumn, 'name' | 'key'>[],
  record: Pick<TableRecord, 'uuid' | 'tableUuid' | 'values' | 'createdAt' | 'updatedAt'>,
): RecordJson {
  // Column names are the user's: `__proto__` would be swallowed by a plain object's setter.
  const values: Record<string, unknown> = Object.create(null);
  for (const column of columns) values[column.name] = record.values[column.key] ?? null;
  return {
    uuid: record.uuid,
    table_uuid: record.tableUuid,
    values,
    created_at: new Date(record.createdAt).toISOString(),
    updated_at: new Date(record.updatedAt).toISOString(),
  };
}
