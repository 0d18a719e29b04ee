import { Entity, Index, ManyToOne, Property } from '@mikro-orm/decorators/legacy';
import type { Opt } from '@mikro-orm/core';
import { TenantScopedEntity } from '../../../core';
import { Contact } from './contact.entity';

export type ApprovalStatus = 'pending' | 'approved' | 'rejected';

/** An AI-suggested update of one contact field, awaiting a person's decision (or applied at once under auto-approve). */
@Entity({ tableName: 'contact_approvals' })
@Index({ name: 'contact_approvals_tenant_uuid_status_index', properties: ['tenantUuid', 'status', 'createdAt'] })
export class ContactApproval extends TenantScopedEntity {
  @ManyToOne(() => Contact, { mapToPk: true, fieldName: 'contact_uuid', deleteRule: 'cascade', index: true })
  contactUuid!: string;

  @Property({ type: 'text' })
  analyzerId!: string;

  /** What it writes: a built-in member (`company`), `custom_fields.<key>` or `pipeline_stage`. */
  @Property({ type: 'text' })
  field!: string;

  @Property({ type: 'json', nullable: true })
  currentValue: unknown = null;

  @Property({ type: 'json', nullable: true })
  proposedValue: unknown = null;

  /** The session it was learned from. */
  @Property({ type: 'uuid', nullable: true })
  sessionUuid: string | null = null;

  @Property({ type: 'text', default: '' })
  reason: string & Opt = '';

  @Property({ type: 'text', default: 'pending' })
  status: ApprovalStatus & Opt = 'pending';

  @Property({ type: 'datetime', nullable: true })
  decidedAt: Date | null = null;
}
