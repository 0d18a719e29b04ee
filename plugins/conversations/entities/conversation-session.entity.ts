import { Entity, Index, ManyToOne, Property, Unique } from '@mikro-orm/decorators/legacy';
import type { Opt } from '@mikro-orm/core';
import { TenantScopedEntity } from '../../../core';
import type { Channel, SessionCloseReason, SessionStatus } from '../channels';
import { Conversation } from './conversation.entity';

/**
 * A stretch of one conversation that is judged as a whole: it opens with the first
 * message after the last session closed, and closes when the customer has been idle
 * for the effective `sessionization.timeout_minutes` or when the conversation closes
 * (a call's end). A conversation has at most one open session (partial unique index).
 */
@Entity({ tableName: 'conversation_sessions' })
@Index({ name: 'conversation_sessions_tenant_uuid_conversation_uuid_index', properties: ['tenantUuid', 'conversationUuid', 'startedAt'] })
@Index({ name: 'conversation_sessions_tenant_uuid_started_at_index', properties: ['tenantUuid', 'startedAt', 'uuid'] })
@Unique({ name: 'conversation_sessions_open_unique', properties: ['conversationUuid'], where: "status = 'open'" })
export class ConversationSession extends TenantScopedEntity {
  @ManyToOne(() => Conversation, { mapToPk: true, fieldName: 'conversation_uuid', deleteRule: 'cascade' })
  conversationUuid!: string;

  @Property({ type: 'uuid' })
  agentUuid!: string;

  @Property({ type: 'uuid', nullable: true })
  contactUuid: string | null = null;

  @Property({ type: 'text' })
  channel!: Channel;

  @Property({ type: 'text', default: 'open' })
  status: SessionStatus & Opt = 'open';

  @Property({ type: 'datetime' })
  startedAt: Date & Opt = new Date();

  @Property({ type: 'datetime', nullable: true })
  endedAt: Date | null = null;

  /** The last customer message (the idleness clock); null until the customer speaks. */
  @Property({ type: 'datetime', nullable: true })
  lastCustomerMessageAt: Date | null = null;

  @Property({ type: 'integer', default: 0 })
  messageCount: number & Opt = 0;

  @Property({ type: 'text', nullable: true })
  closeReason: SessionCloseReason | null = null;
}
