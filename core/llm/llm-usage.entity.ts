import type { Opt } from '@mikro-orm/core';
import { Entity, Index, ManyToOne, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import { newUuid } from '../data/uuid';
import { Tenant } from '../tenancy/tenant.entity';

export type LlmCallStatus = 'ok' | 'error';

/**
 * One model call: who made it, for what, and what it cost in tokens. Not a
 * TenantScopedEntity: calls also happen outside any tenant's work (an operator's
 * job), so the tenant is nullable, and reports across tenants read it without
 * lifting a filter. Code listing one tenant's usage filters on `tenantUuid` itself.
 */
@Entity({ tableName: 'llm_usage' })
// Usage is read per tenant over a period (quotas, bills).
@Index({ properties: ['tenantUuid', 'createdAt'] })
@Index({ properties: ['agentUuid', 'createdAt'] })
export class LlmUsage {
  @PrimaryKey({ type: 'uuid' })
  uuid: string & Opt = newUuid();

  // A deleted tenant's usage goes with it, like the rest of its data.
  @ManyToOne(() => Tenant, { mapToPk: true, fieldName: 'tenant_uuid', deleteRule: 'cascade', nullable: true })
  tenantUuid: string | null = null;

  /** The provider's id, e.g. `openai-compatible`. */
  @Property({ type: 'string', length: 255 })
  provider!: string;

  /** The model that answered (as the server names it), or the one asked for when the call failed; null when unknown. */
  @Property({ type: 'string', length: 255, nullable: true })
  model: string | null = null;

  /** The agent the call was for (a turn, a memory, a guard check), when the caller said. */
  @Property({ type: 'uuid', nullable: true })
  agentUuid: string | null = null;

  /** The caller's label, e.g. `evaluation.analyzer`. */
  @Property({ type: 'string', length: 255, nullable: true })
  purpose: string | null = null;

  /** Token counts are null when the server did not report them (and for failed calls). */
  @Property({ type: 'integer', nullable: true })
  promptTokens: number | null = null;

  @Property({ type: 'integer', nullable: true })
  completionTokens: number | null = null;

  @Property({ type: 'integer', nullable: true })
  totalTokens: number | null = null;

  /** The whole call, retries included. */
  @Property({ type: 'integer' })
  durationMs!: number;

  @Property({ type: 'string', length: 16 })
  status!: LlmCallStatus;

  @Property({ type: 'datetime' })
  createdAt: Date & Opt = new Date();
}
