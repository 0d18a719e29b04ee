import { Entity, Property } from '@mikro-orm/decorators/legacy';
import type { Opt } from '@mikro-orm/core';
import { TenantScopedEntity } from '../../../core';
import type { AgentStatus } from '../agent-status';

/**
 * An agent: persona and prompt text, its settings and appointment configuration.
 * Its lists (guidelines, intents, rules, ...) are rows of their own tables, so one
 * can be added or changed without rewriting the others.
 */
@Entity({ tableName: 'agents' })
export class Agent extends TenantScopedEntity {
  @Property({ type: 'string', length: 200 })
  name!: string;

  @Property({ type: 'text' }) description: string & Opt = '';
  @Property({ type: 'text' }) companyName: string & Opt = '';
  @Property({ type: 'text' }) role: string & Opt = '';
  @Property({ type: 'text' }) objective: string & Opt = '';
  @Property({ type: 'text' }) tone: string & Opt = '';
  @Property({ type: 'text' }) behaviorGuidelines: string & Opt = '';
  @Property({ type: 'text' }) companyService: string & Opt = '';
  @Property({ type: 'text' }) topic: string & Opt = '';
  @Property({ type: 'text' }) lengthDetail: string & Opt = '';
  @Property({ type: 'text' }) interestOfProduct: string & Opt = '';
  @Property({ type: 'text' }) negativeResponse: string & Opt = '';
  @Property({ type: 'text' }) customPrompt: string & Opt = '';
  @Property({ type: 'text' }) recommendations: string & Opt = '';

  @Property({ type: 'string', length: 16 })
  status: AgentStatus & Opt = 'pending';

  @Property({ type: 'string', length: 35 })
  language: string & Opt = 'en-US';

  @Property({ type: 'string', length: 32 })
  speed: string & Opt = 'normal';

  @Property({ type: 'string', length: 64 })
  timezone: string & Opt = 'UTC';

  @Property({ type: 'boolean' })
  appointmentSchedulingEnabled: boolean & Opt = false;

  @Property({ type: 'boolean' })
  appointmentSchedulingRandomly: boolean & Opt = false;

  @Property({ type: 'text', nullable: true })
  customLlmUrl: string | null = null;

  /** What the client set of `settings.voice`; defaults fill the rest when read. */
  @Property({ type: 'json' })
  voiceSettings: Record<string, unknown> & Opt = {};

  /** What the client set of `settings.text`; defaults fill the rest when read. */
  @Property({ type: 'json' })
  textSettings: Record<string, unknown> & Opt = {};

  /** The appointments configuration, stored as sent (validated on the way in). */
  @Property({ type: 'json' })
  appointments: Record<string, unknown> & Opt = {};
}
