import { Entity, Property, Unique } from '@mikro-orm/decorators/legacy';
import { TenantScopedEntity } from '../../../core';

/** One inbound message of a channel, by the provider's id: a provider's retry of it finds it here and is only acknowledged. */
@Entity({ tableName: 'channel_inbound_messages' })
@Unique({ name: 'channel_inbound_messages_external_unique', properties: ['channelUuid', 'externalId'] })
export class ChannelInboundMessage extends TenantScopedEntity {
  @Property({ type: 'uuid' })
  channelUuid!: string;

  @Property({ type: 'text' })
  externalId!: string;
}
