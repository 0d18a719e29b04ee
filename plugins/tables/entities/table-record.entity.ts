import { Entity, Index, Property } from '@mikro-orm/decorators/legacy';
import { TenantScopedChildEntity } from '../../../core';
import { RECORDS_TABLE_KEY } from './record-table-key';

/**
 * One row: `{<column key>: value}`, every value checked against its column's type on the way in.
 * It belongs to its tenant through its table (imports write them thousands at a time).
 */
@Entity({ tableName: 'data_table_records', triggers: RECORDS_TABLE_KEY.childTriggers })
@Index({ name: 'data_table_records_table_index', properties: ['tableUuid', 'uuid'] })
export class TableRecord extends TenantScopedChildEntity {
  /** Its table: a foreign key checked once per statement, with `on delete cascade` (RECORDS_TABLE_KEY). */
  @Property({ type: 'uuid' })
  tableUuid!: string;

  @Property({ type: 'json' })
  values!: Record<string, unknown>;
}
