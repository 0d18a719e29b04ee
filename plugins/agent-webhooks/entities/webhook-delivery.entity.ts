import { Entity, Index, Property } from '@mikro-orm/decorators/legacy';
import type { Opt } from '@mikro-orm/core';
import { TenantScopedEntity } from '../../../core';

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';

/**
 * One event sent to one webhook. `body` is the exact JSON sent, kept so every attempt
 * (and a manual retry) resends the same bytes. `queueToken` names the one bus message
 * that may still act on the row: a retry or a manual re-queue replaces it, so a stale
 * message (an older delayed retry) does nothing.
 */
@Entity({ tableName: 'agent_webhook_deliveries' })
@Index({ name: 'agent_webhook_deliveries_webhook_created_index', properties: ['tenantUuid', 'webhookUuid', 'createdAt', 'uuid'] })
export class AgentWebhookDelivery extends TenantScopedEntity {
  @Property({ type: 'uuid' })
  agentUuid!: string;

  @Property({ type: 'uuid' })
  webhookUuid!: string;

  @Property({ type: 'text' })
  event!: string;

  @Property({ type: 'text' })
  body!: string;

  @Property({ type: 'text' })
  status: DeliveryStatus & Opt = 'pending';

  @Property({ type: 'int' })
  attempts: number & Opt = 0;

  @Property({ type: 'int', nullable: true })
  lastStatusCode: number | null = null;

  @Property({ type: 'text', nullable: true })
  lastError: string | null = null;

  @Property({ type: 'datetime', nullable: true })
  nextAttemptAt: Date | null = null;

  @Property({ type: 'uuid' })
  queueToken!: string;
}
