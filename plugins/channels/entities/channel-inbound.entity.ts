import { Entity, Index, Property, Unique } from '@mikro-orm/decorators/legacy';
import { TenantScopedEntity } from '../../../core';

/**
 * One inbound message of a channel, by the provider's id: a provider's retry of it finds it
 * here and is only acknowledged. `created_at` is when the hook recorded it (the statement's
 * clock, so messages of one webhook keep their order).
 */
@Entity({ tableName: 'channel_inbound_messages' })
@Unique({ name: 'channel_inbound_messages_external_unique', properties: ['channelUuid', 'externalId'] })
@Index({
  name: 'channel_inbound_messages_awaiting_index',
  expression: 'create index "channel_inbound_messages_awaiting_index" on "channel_inbound_messages" ("channel_uuid", "awaiting_from", "created_at") where "awaiting_from" is not null',
})
export class ChannelInboundMessage extends TenantScopedEntity {
  @Property({ type: 'uuid' })
  channelUuid!: string;

  @Property({ type: 'text' })
  externalId!: string;

  /** A voice note's sender until its turn is taken (inbound/arrival-order.ts): later messages of the sender wait for it. */
  @Property({ type: 'text', nullable: true })
  awaitingFrom?: string | null;
}
