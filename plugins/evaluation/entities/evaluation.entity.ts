import { Entity, Index, Property, Unique } from '@mikro-orm/decorators/legacy';
import type { Opt } from '@mikro-orm/core';
import { TenantScopedEntity } from '../../../core';
import type { Channel } from '../../conversations';
import type { EvaluationMode } from '../settings/evaluate-values';

/** One analyzer's verdict: its label, the model's raw answer, and the error when it failed. */
export interface AnalyzerResult {
  label: string | null;
  raw: string | null;
  error?: string;
}

export type EvaluationStatus = 'completed' | 'failed';

/**
 * The verdicts on one closed session: one record per session (a rerun replaces it).
 * `results` is keyed by analyzer name; the list's analyzer + label filter and the
 * analytics read it with jsonb operators.
 */
@Entity({ tableName: 'evaluations' })
@Unique({ name: 'evaluations_tenant_uuid_session_uuid_unique', properties: ['tenantUuid', 'sessionUuid'] })
@Index({ name: 'evaluations_tenant_uuid_created_at_index', properties: ['tenantUuid', 'createdAt', 'uuid'] })
@Index({ name: 'evaluations_tenant_uuid_agent_uuid_created_at_index', properties: ['tenantUuid', 'agentUuid', 'createdAt'] })
export class Evaluation extends TenantScopedEntity {
  @Property({ type: 'uuid' })
  sessionUuid!: string;

  @Property({ type: 'uuid' })
  conversationUuid!: string;

  @Property({ type: 'uuid' })
  agentUuid!: string;

  @Property({ type: 'text' })
  channel!: Channel;

  /** Whose settings ran: the tenant's `default` or the agent's override (`agent`). */
  @Property({ type: 'text' })
  settingsSource!: 'default' | 'agent';

  /** Which analyzer block ran: `text` or `voice`. */
  @Property({ type: 'text' })
  block!: 'text' | 'voice';

  @Property({ type: 'text' })
  mode!: EvaluationMode;

  /** `completed` when every call answered; `failed` when some kept failing (their errors are in `results` and `errors`). */
  @Property({ type: 'text' })
  status!: EvaluationStatus;

  @Property({ type: 'json' })
  results: Record<string, AnalyzerResult> & Opt = {};

  /** The success prompt's verdict; null when it did not run, had no prompt, or failed (`successReason` says which). */
  @Property({ type: 'boolean', nullable: true })
  success: boolean | null = null;

  @Property({ type: 'text', nullable: true })
  successReason: string | null = null;

  @Property({ type: 'text', nullable: true })
  summary: string | null = null;

  /** Errors not tied to one analyzer (the summary's, a model that is not configured). */
  @Property({ type: 'json' })
  errors: string[] & Opt = [];

  @Property({ type: 'integer', default: 0 })
  llmCalls: number & Opt = 0;

  @Property({ type: 'integer', default: 0 })
  tokens: number & Opt = 0;

  /** How many times the session was evaluated (1, then +1 per rerun). */
  @Property({ type: 'integer', default: 1 })
  runs: number & Opt = 1;
}
