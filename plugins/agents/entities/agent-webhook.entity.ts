import { Entity, Property } from '@mikro-orm/decorators/legacy';
import type { Opt } from '@mikro-orm/core';
import { AgentChild } from './agent-child';

@Entity({ tableName: 'agent_webhooks' })
export class AgentWebhook extends AgentChild {
  @Property({ type: 'text' }) url!: string;
  @Property({ type: 'json' }) events: string[] & Opt = [];
  @Property({ type: 'boolean' }) isActive: boolean & Opt = true;
  /** Sealed with the secrets service (see webhookSecret); only `has_secret` is ever returned. */
  @Property({ type: 'text', nullable: true }) secret: string | null = null;
}
