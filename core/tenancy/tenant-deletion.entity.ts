import { Entity, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import { BigIntType, type Opt } from '@mikro-orm/core';
import { newUuid } from '../data/uuid';

export type TenantDeletionStatus = 'pending' | 'running' | 'done' | 'failed';

/**
 * A tenant's deletion, as the admin API reports it. No foreign key to the tenant: the
 * record outlives the tenant row, which is deleted last.
 */
@Entity({ tableName: 'tenant_deletions' })
export class TenantDeletion {
  @PrimaryKey({ type: 'uuid' })
  uuid: string & Opt = newUuid();

  @Property({ type: 'uuid', index: true })
  tenantUuid!: string;

  @Property({ type: 'string', length: 63 })
  tenantSlug!: string;

  @Property({ type: 'string', length: 16 })
  status: TenantDeletionStatus & Opt = 'pending';

  /** Rows removed so far by the batches (rows the final cascade removes are not counted). */
  @Property({ type: new BigIntType('number') })
  deletedRows: number & Opt = 0;

  /** The last attempt's failure; the bus retries a failed attempt with backoff. */
  @Property({ type: 'text', nullable: true })
  error: (string & Opt) | null = null;

  @Property({ type: 'datetime' })
  createdAt: Date & Opt = new Date();

  @Property({ type: 'datetime', nullable: true })
  startedAt: (Date & Opt) | null = null;

  @Property({ type: 'datetime', nullable: true })
  finishedAt: (Date & Opt) | null = null;
}
