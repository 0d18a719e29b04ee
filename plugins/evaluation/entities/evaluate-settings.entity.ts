import { Entity, Property, Unique } from '@mikro-orm/decorators/legacy';
import type { Opt } from '@mikro-orm/core';
import { TenantScopedEntity } from '../../../core';
import type { AnalyzerBlock, EvaluationMode, SessionizationValues } from '../settings/evaluate-values';

/**
 * A tenant's evaluate settings: the default (`agentUuid` null, at most one per tenant)
 * or one agent's override (at most one per agent). The analyzer blocks and the
 * sessionization are jsonb: they are always read and written whole, and their shape is
 * the API schema's. `agentUuid` is a plain column (the agents plugin's entities are
 * its internals); an override goes when its agent's `agent.deleted` is consumed.
 */
@Entity({ tableName: 'evaluate_settings' })
@Unique({ name: 'evaluate_settings_tenant_uuid_agent_uuid_unique', properties: ['tenantUuid', 'agentUuid'] })
@Unique({ name: 'evaluate_settings_tenant_uuid_default_unique', properties: ['tenantUuid'], where: 'agent_uuid is null' })
export class EvaluateSettings extends TenantScopedEntity {
  @Property({ type: 'uuid', nullable: true })
  agentUuid: string | null = null;

  @Property({ type: 'boolean', default: true })
  isActive: boolean & Opt = true;

  @Property({ type: 'text', default: 'per_analyzer' })
  mode: EvaluationMode & Opt = 'per_analyzer';

  @Property({ type: 'json' })
  sessionization!: SessionizationValues;

  @Property({ type: 'json' })
  text!: AnalyzerBlock;

  @Property({ type: 'json' })
  voice!: AnalyzerBlock;
}
