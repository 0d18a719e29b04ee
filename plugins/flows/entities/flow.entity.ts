import { Entity, Index, Property } from '@mikro-orm/decorators/legacy';
import type { Opt } from '@mikro-orm/core';
import { TenantScopedEntity } from '../../../core';

export type FlowStatus = 'draft' | 'live';

/**
 * A flow: one trigger step plus action steps. Deleting one is soft (`deletedAt`):
 * executions already queued still find their flow and version.
 */
@Entity({ tableName: 'flows' })
@Index({ name: 'flows_tenant_listing_index', properties: ['tenantUuid', 'createdAt'], where: 'deleted_at is null' })
export class Flow extends TenantScopedEntity {
  @Property({ type: 'text' })
  name!: string;

  @Property({ type: 'text' })
  description: string & Opt = '';

  @Property({ type: 'text' })
  status: FlowStatus & Opt = 'draft';

  /** The version that runs while the flow is live. */
  @Property({ type: 'uuid', nullable: true })
  liveVersionUuid: string | null = null;

  @Property({ type: 'datetime', nullable: true })
  deletedAt: Date | null = null;
}
