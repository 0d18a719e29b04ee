import { Entity, Index, ManyToOne, Property } from '@mikro-orm/decorators/legacy';
import type { Opt } from '@mikro-orm/core';
import { TenantScopedEntity } from '../../../core';
import type { Channel, DeliveryStatus, MessageType, Sender } from '../channels';
import { ConversationSession } from './conversation-session.entity';
import { Conversation } from './conversation.entity';

/**
 * One turn of a conversation. The agent, contact and channel are copied from the
 * conversation so the message export reads one table. `(tenant, created_at, uuid)` is
 * the export's keyset order; the channel index serves the export's channel filter; the
 * conversation index a conversation's messages in order (its listing, a turn's history).
 */
@Entity({ tableName: 'conversation_messages' })
@Index({ name: 'conversation_messages_export_index', properties: ['tenantUuid', 'createdAt', 'uuid'] })
@Index({ name: 'conversation_messages_channel_export_index', properties: ['tenantUuid', 'channel', 'createdAt', 'uuid'] })
@Index({ name: 'conversation_messages_session_index', properties: ['sessionUuid', 'createdAt', 'uuid'] })
@Index({ name: 'conversation_messages_conversation_index', properties: ['conversationUuid', 'tenantUuid', 'createdAt', 'uuid'] })
export class ConversationMessage extends TenantScopedEntity {
  @ManyToOne(() => Conversation, { mapToPk: true, fieldName: 'conversation_uuid', deleteRule: 'cascade' })
  conversationUuid!: string;

  @ManyToOne(() => ConversationSession, { mapToPk: true, fieldName: 'session_uuid', deleteRule: 'cascade' })
  sessionUuid!: string;

  @Property({ type: 'uuid', nullable: true })
  contactUuid: string | null = null;

  @Property({ type: 'uuid' })
  agentUuid!: string;

  @Property({ type: 'text' })
  channel!: Channel;

  @Property({ type: 'text', nullable: true })
  channelLabel: string | null = null;

  @Property({ type: 'text' })
  sender!: Sender;

  @Property({ type: 'text', default: 'text' })
  messageType: MessageType & Opt = 'text';

  @Property({ type: 'text' })
  content!: string;

  /** What became of an agent message sent through a channel (the channels plugin); null for every other message. */
  @Property({ type: 'text', nullable: true })
  deliveryStatus: DeliveryStatus | null = null;

  /** The provider's reason, for `failed`. */
  @Property({ type: 'text', nullable: true })
  deliveryError: string | null = null;
}
