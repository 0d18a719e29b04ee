import { Entity, Index, ManyToOne, Property, Unique } from '@mikro-orm/decorators/legacy';
import { TenantScopedEntity } from '../../../core';
import { DataTable } from './data-table.entity';

/** How an agent uses a table: searched by meaning, or rows looked up exactly. */
export type AssignmentMode = 'knowledge_base' | 'lookup';

/** A table made available to an agent. `agent_uuid` is a plain column: the agents plugin's deletion event removes it. */
@Entity({ tableName: 'data_table_assignments' })
@Unique({ name: 'data_table_assignments_table_agent_unique', properties: ['tableUuid', 'agentUuid'] })
@Index({ name: 'data_table_assignments_agent_index', properties: ['tenantUuid', 'agentUuid'] })
export class TableAssignment extends TenantScopedEntity {
  @ManyToOne(() => DataTable, { mapToPk: true, fieldName: 'table_uuid', deleteRule: 'cascade' })
  tableUuid!: string;

  @Property({ type: 'uuid' })
  agentUuid!: string;

  @Property({ type: 'text' })
  mode!: AssignmentMode;
}
