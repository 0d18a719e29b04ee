import { Entity, Property, Unique } from '@mikro-orm/decorators/legacy';
import type { Opt } from '@mikro-orm/core';
import { TenantScopedEntity } from '../../core';

/** One thing an agent remembers about a contact. */
export interface MemorizeField {
  key: string;
  description: string;
}

/**
 * A tenant's memorize settings: the default (`agentUuid` null, at most one per
 * tenant, by a partial unique index) or one agent's override (at most one per agent).
 * `agentUuid` is a plain column, not a relation: the agents plugin's entities are
 * its internals. Overrides of a deleted agent are removed on `agent.deleted`.
 */
@Entity({ tableName: 'memorize_settings' })
@Unique({ name: 'memorize_settings_tenant_uuid_agent_uuid_unique', properties: ['tenantUuid', 'agentUuid'] })
@Unique({ name: 'memorize_settings_tenant_uuid_default_unique', properties: ['tenantUuid'], where: 'agent_uuid is null' })
export class MemorizeSettings extends TenantScopedEntity {
  /** The agent this override belongs to; null for the tenant's default. */
  @Property({ type: 'uuid', nullable: true })
  agentUuid: string | null = null;

  @Property({ type: 'boolean' })
  enabled: boolean & Opt = false;

  @Property({ type: 'integer' })
  retentionDays: number & Opt = 365;

  @Property({ type: 'json' })
  fields: MemorizeField[] & Opt = [];

  @Property({ type: 'text' })
  summaryPrompt: string & Opt = '';
}
