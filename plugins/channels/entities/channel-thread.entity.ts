import { Entity, Property, Unique } from '@mikro-orm/decorators/legacy';
import { TenantScopedEntity } from '../../../core';

/** The conversation a customer address is having on a channel; a closed one is replaced by the next turn's. */
@Entity({ tableName: 'channel_threads' })
@Unique({ name: 'channel_threads_address_unique', properties: ['channelUuid', 'address'] })
export class ChannelThread extends TenantScopedEntity {
  @Property({ type: 'uuid' })
  channelUuid!: string;

  @Property({ type: 'text' })
  address!: string;

  @Property({ type: 'uuid' })
  conversationUuid!: string;
}
