import { Entity, Index, ManyToOne, Property } from '@mikro-orm/decorators/legacy';
import { TenantScopedChildEntity } from '../../../core';
import { DataTable } from './data-table.entity';

/**
 * One row: `{<column key>: value}`, every value checked against its column's type on the way in.
 * It belongs to its tenant through its table (imports write them thousands at a time).
 */
@Entity({ tableName: 'data_table_records' })
@Index({ name: 'data_table_records_table_index', properties: ['tableUuid', 'uuid'] })
export class TableRecord extends TenantScopedChildEntity {
  @ManyToOne(() => DataTable, { mapToPk: true, fieldName: 'table_uuid', deleteRule: 'cascade' })
  tableUuid!: string;

  @Property({ type: 'json' })
  values!: Record<string, unknown>;
}
