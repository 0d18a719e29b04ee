import { Entity, Index, Property } from '@mikro-orm/decorators/legacy';
import type { Opt } from '@mikro-orm/core';
import { TenantScopedEntity } from '../../../core';
import { RECORDS_TABLE_KEY } from './record-table-key';

/** Whether the search index reflects the records: bulk writes (imports) leave it `stale` until a sync. */
export type IndexStatus = 'current' | 'stale' | 'syncing';

/**
 * A tenant's dataset: typed columns (TableColumn) and records (TableRecord). Agents it
 * is assigned to search it as a knowledge base or look rows up in it.
 */
@Entity({ tableName: 'data_tables', triggers: RECORDS_TABLE_KEY.parentTriggers })
@Index({ name: 'data_tables_tenant_listing_index', properties: ['tenantUuid', 'createdAt'] })
export class DataTable extends TenantScopedEntity {
  @Property({ type: 'text' })
  name!: string;

  @Property({ type: 'text', default: '' })
  description: string & Opt = '';

  /** The PostgreSQL text search configuration of its index (`english`, `german`, `simple`, ...). */
  @Property({ type: 'text', default: 'english' })
  searchLanguage: string & Opt = 'english';

  /** Columns store their values under short keys (`c1`, `c2`, ...) handed out from here, never reused. */
  @Property({ type: 'integer', default: 1 })
  nextColumnKey: number & Opt = 1;

  @Property({ type: 'text', default: 'current' })
  indexStatus: IndexStatus & Opt = 'current';

  @Property({ type: 'datetime', nullable: true })
  indexedAt: Date | null = null;
}
