import { Entity, Property, Unique } from '@mikro-orm/decorators/legacy';
import type { Opt } from '@mikro-orm/core';
import { TenantScopedEntity } from '../../../core';

export const CONTACT_FIELD_TYPES = ['text', 'number', 'date', 'boolean', 'json', 'url'] as const;
export type ContactFieldType = (typeof CONTACT_FIELD_TYPES)[number];

/** A custom contact field: identified by its `key` (immutable, unique per tenant), typed. */
@Entity({ tableName: 'contact_fields' })
@Unique({ name: 'contact_fields_tenant_uuid_key_unique', properties: ['tenantUuid', 'key'] })
export class ContactField extends TenantScopedEntity {
  @Property({ type: 'text' })
  key!: string;

  @Property({ type: 'text' })
  name!: string;

  @Property({ type: 'text', default: 'text' })
  dataType: ContactFieldType & Opt = 'text';

  @Property({ type: 'text', default: '' })
  description: string & Opt = '';
}
