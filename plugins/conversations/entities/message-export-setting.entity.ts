import { Entity, Property, Unique } from '@mikro-orm/decorators/legacy';
import type { Opt } from '@mikro-orm/core';
import { TenantScopedEntity } from '../../../core';

export const EXPORT_POLICIES = ['enabled', 'masked', 'disabled'] as const;
export type ExportPolicy = (typeof EXPORT_POLICIES)[number];

/** The workspace's message export policy; a tenant without a row has `enabled`. */
@Entity({ tableName: 'message_export_settings' })
@Unique({ name: 'message_export_settings_tenant_uuid_unique', properties: ['tenantUuid'] })
export class MessageExportSetting extends TenantScopedEntity {
  @Property({ type: 'text', default: 'enabled' })
  policy: ExportPolicy & Opt = 'enabled';
}
