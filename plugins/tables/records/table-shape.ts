import type { EntityManager } from '@mikro-orm/postgresql';
import type { DataTable, TableColumn } from '../entities';
import { recordJson } from '../model/record-view';
import type { RecordJson } from '../model/views';
import { columnsOf } from '../tables/column-schema';
import { findTable } from '../tables/find-table';

/** A record as read with `RECORD_COLUMNS`. */
export interface RecordRow {
  uuid: string;
  table_uuid: string;
  values: Record<string, unknown>;
  created_at: Date | string;
  updated_at: Date | string;
}

/** What every record statement selects (the records table is aliased `r`). */
export const RECORD_COLUMNS = 'r.uuid, r.table_uuid, r."values", r.created_at, r.updated_at';

/**
 * A table with its columns, as every record operation needs it: columns found by uuid
 * or by name, records shown by column name.
 */
export class TableShape {
  private readonly byUuid: Map<string, TableColumn>;
  private readonly byName: Map<string, TableColumn>;

  constructor(
    readonly table: DataTable,
    readonly columns: readonly TableColumn[],
  ) {
    this.byUuid = new Map(columns.map((column) => [column.uuid, column]));
    this.byName = new Map(columns.map((column) => [column.name.toLowerCase(), column]));
  }

  /** The current tenant's table (TableNotFoundError otherwise) with its columns. */
  static async load(em: EntityManager, tableUuid: string): Promise<TableShape> {
    const table = await findTable(em, tableUuid);
    return new TableShape(table, await columnsOf(em, table.uuid));
  }

  columnById(uuid: string): TableColumn | undefined {
    return this.byUuid.get(uuid);
  }

  columnByName(name: string): TableColumn | undefined {
    return this.byName.get(name.toLowerCase());
  }

  /** A column named by its uuid or, failing that, its name (case-insensitive). */
  column(ref: string): TableColumn | undefined {
    return this.byUuid.get(ref) ?? this.byName.get(ref.toLowerCase());
  }

  view(row: RecordRow): RecordJson {
    return recordJson(this.columns, { uuid: row.uuid, tableUuid: row.table_uuid, values: row.values, createdAt: row.created_at as Date, updatedAt: row.updated_at as Date });
  }
}
