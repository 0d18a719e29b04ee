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
}
