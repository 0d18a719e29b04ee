import { Entity, Property, Unique } from '@mikro-orm/decorators/legacy';
import type { Opt } from '@mikro-orm/core';
import { TenantScopedEntity } from '../../../core';

/**
 * What the model should extract about a contact from each closed session. Its id says
 * what it writes: `b_<built-in field>` (e.g. `b_company`), `f_<custom field key>`, or
 * `p_<pipeline stage>` (whether the contact reached that stage). Suggestions become
 * approvals, applied at once when `autoApprove` is on.
 */
@Entity({ tableName: 'contact_analyzers' })
@Unique({ name: 'contact_analyzers_tenant_uuid_analyzer_id_unique', properties: ['tenantUuid', 'analyzerId'] })
export class ContactAnalyzer extends TenantScopedEntity {
  @Property({ type: 'text' })
  analyzerId!: string;

  @Property({ type: 'text', default: '' })
  name: string & Opt = '';

  /** The instruction to the model. */
  @Property({ type: 'text' })
  instruction!: string;

  @Property({ type: 'boolean', default: true })
  enabled: boolean & Opt = true;

  @Property({ type: 'boolean', default: false })
  autoApprove: boolean & Opt = false;
}
