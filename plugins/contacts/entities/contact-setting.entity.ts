import { Entity, Property, Unique } from '@mikro-orm/decorators/legacy';
import { TenantScopedEntity } from '../../../core';

/** One contact setting of the tenant, by `key` (e.g. `approvals.auto_approve`). */
@Entity({ tableName: 'contact_settings' })
@Unique({ name: 'contact_settings_tenant_uuid_key_unique', properties: ['tenantUuid', 'key'] })
export class ContactSetting extends TenantScopedEntity {
  @Property({ type: 'text' })
  key!: string;

  @Property({ type: 'json' })
  value!: unknown;
}
