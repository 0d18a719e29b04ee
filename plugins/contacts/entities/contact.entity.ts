import { Entity, Index, Property, Unique } from '@mikro-orm/decorators/legacy';
import type { Opt } from '@mikro-orm/core';
import { TenantScopedEntity } from '../../../core';

/**
 * A person agents talk to. `phoneNumber` is E.164 (normalized on the way in) and
 * `email` lower-cased, each unique per tenant when present: listings and tasks find a
 * contact by them. Custom field values live in `customFields`, keyed by field `key`.
 */
@Entity({ tableName: 'contacts' })
@Unique({ name: 'contacts_tenant_uuid_phone_number_unique', properties: ['tenantUuid', 'phoneNumber'] })
@Unique({ name: 'contacts_tenant_uuid_email_unique', properties: ['tenantUuid', 'email'] })
@Index({ name: 'contacts_tenant_uuid_created_at_index', properties: ['tenantUuid', 'createdAt', 'uuid'] })
export class Contact extends TenantScopedEntity {
  @Property({ type: 'text', nullable: true })
  name: string | null = null;

  @Property({ type: 'text', nullable: true })
  surname: string | null = null;

  @Property({ type: 'text', nullable: true })
  phoneNumber: string | null = null;

  @Property({ type: 'text', nullable: true })
  email: string | null = null;

  @Property({ type: 'text', nullable: true })
  timezone: string | null = null;

  @Property({ type: 'text', nullable: true })
  countryCode: string | null = null;

  @Property({ type: 'text', nullable: true })
  primaryLanguage: string | null = null;

  @Property({ type: 'text', nullable: true })
  company: string | null = null;

  @Property({ type: 'text', nullable: true })
  city: string | null = null;

  @Property({ type: 'text', nullable: true })
  leadSource: string | null = null;

  /** The contact's stage in the tenant's pipeline, set by `p_` analyzers (through approvals) or by hand. */
  @Property({ type: 'text', nullable: true })
  pipelineStage: string | null = null;

  @Property({ type: 'json' })
  customFields: Record<string, unknown> & Opt = {};

  /** The contact asked not to be contacted: no task is created for them. */
  @Property({ type: 'boolean', default: false })
  optedOut: boolean & Opt = false;
}
