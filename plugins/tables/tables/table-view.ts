import type { EntityManager } from '@mikro-orm/postgresql';
import { TableColumn, type DataTable } from '../entities';
import { columnJson } from '../model/record-view';
import { columnsOf } from './column-schema';
import type { TableJson } from './table-schemas';

export function tableJson(table: DataTable, columns: readonly TableColumn[], recordCount: number): TableJson {
  return {
    uuid: table.uuid,
    name: table.name,
    description: table.description,
    search_language: table.searchLanguage,
    columns: columns.map(columnJson),
    record_count: recordCount,
    index: { status: table.indexStatus, indexed_at: table.indexedAt ? new Date(table.indexedAt).toISOString() : null },
    created_at: new Date(table.createdAt).toISOString(),
    updated_at: new Date(table.updatedAt).toISOString(),
  };
}

/** Records per table, in one statement for any number of tables. */
async function recordCounts(em: EntityManager, tenantUuid: string, tableUuids: readonly string[]): Promise<Map<string, number>> {
  if (tableUuids.length === 0) return new Map();
  const rows: Array<{ table_uuid: string; count: number }> = await em
    .getConnection()
    .execute(
      'select table_uuid, count(*)::int as count from data_table_records where tenant_uuid = ? and table_uuid = any(array[?]::uuid[]) group by table_uuid',
      [tenantUuid, [...tableUuids]],
      'all',
      em.getTransactionContext(),
    );
  return new Map(rows.map((row) => [row.table_uuid, row.count]));
}

export async function renderTable(em: EntityManager, table: DataTable): Promise<TableJson> {
  const columns = await columnsOf(em, table.uuid);
  const counts = await recordCounts(em, table.tenantUuid, [table.uuid]);
  return tableJson(table, columns, counts.get(table.uuid) ?? 0);
}

/** A page of tables with their columns and counts: three statements whatever the page size. */
export async function renderTables(em: EntityManager, tenantUuid: string, tables: readonly DataTable[]): Promise<TableJson[]> {
  const uuids = tables.map((table) => table.uuid);
  const columns = uuids.length === 0 ? [] : await em.find(TableColumn, { tableUuid: { $in: uuids } }, { orderBy: { ord: 'asc' } });
  const counts = await recordCounts(em, tenantUuid, uuids);
  const byTable = new Map<string, TableColumn[]>();
  for (const column of columns) {
    const list = byTable.get(column.tableUuid) ?? [];
    list.push(column);
    byTable.set(column.tableUuid, list);
  }
  return tables.map((table) => tableJson(table, byTable.get(table.uuid) ?? [], counts.get(table.uuid) ?? 0));
}
