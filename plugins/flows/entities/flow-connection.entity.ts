import type { Opt } from '@mikro-orm/core';
import { Entity, Index, Property } from '@mikro-orm/decorators/legacy';
import { TenantScopedEntity } from '../../../core';

/** A tenant's credentials for one `connect` app; `credentials` is sealed by the secrets service and never returned. */
@Entity({ tableName: 'flow_connections' })
@Index({ name: 'flow_connections_tenant_app_index', properties: ['tenantUuid', 'appUid'] })
export class FlowConnection extends TenantScopedEntity {
  @Property({ type: 'text' })
  appUid!: string;

  @Property({ type: 'text' })
  label!: string;

  /** JSON of the credentials, sealed. */
  @Property({ type: 'text' })
  credentials!: string;

  /** `needs_reauth` once an OAuth refresh was refused: steps using it fail with `statusMessage` until it is connected again. */
  @Property({ type: 'text', default: 'connected' })
  status: ConnectionStatus & Opt = 'connected';

  @Property({ type: 'text', nullable: true })
  statusMessage: string | null = null;
}

export type ConnectionStatus = 'connected' | 'needs_reauth';
