import { Entity, ManyToOne, Property, Unique } from '@mikro-orm/decorators/legacy';
import { TenantScopedEntity } from '../../../core';
import type { ColumnType } from '../model/column-types';
import { DataTable } from './data-table.entity';

/**
 * A typed column. Records keep their values in one jsonb object under the column's
 * `key`, so renaming a column rewrites nothing and a deleted column's values are
 * simply no longer read (a new column never gets an old key).
 */
@Entity({ tableName: 'data_table_columns' })
@Unique({ name: 'data_table_columns_table_name_unique', properties: ['tableUuid', 'name'] })
@Unique({ name: 'data_table_columns_table_key_unique', properties: ['tableUuid', 'key'] })
export class TableColumn extends TenantScopedEntity {
  @ManyToOne(() => DataTable, { mapToPk: true, fieldName: 'table_uuid', deleteRule: 'cascade' })
  tableUuid!: string;

  @Property({ type: 'text' })
  name!: string;

  @Property({ type: 'text' })
  dataType!: ColumnType;

  @Property({ type: 'text' })
  key!: string;

  /** Display order. */
  @Property({ type: 'integer' })
  ord!: number;
}
