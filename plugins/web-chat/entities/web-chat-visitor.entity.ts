import { Entity, Index, Property } from '@mikro-orm/decorators/legacy';
import { TenantScopedEntity } from '../../../core';

/**
 * The visitor of one web chat conversation: who holds the token may read and continue
 * it. Only the token's SHA-256 is kept (a random 256-bit secret needs no slow hash), so
 * a database read does not hand out conversations.
 */
@Entity({ tableName: 'web_chat_visitors' })
export class WebChatVisitor extends TenantScopedEntity {
  @Property({ type: 'uuid', unique: true }) conversationUuid!: string;
  /** The agent channel the conversation was opened on: the token works with that channel's key only. */
  @Index() @Property({ type: 'uuid' }) channelUuid!: string;
  @Property({ type: 'string', length: 64 }) tokenHash!: string;
}
