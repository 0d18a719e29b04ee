import { Entity, Index, Property } from '@mikro-orm/decorators/legacy';
import { TenantScopedEntity } from '../../../core';

/**
 * An agent message sent through a channel (`uuid` is the conversation message's): the
 * provider's id of it, by which its delivery receipts find it.
 */
@Entity({ tableName: 'channel_deliveries' })
@Index({ name: 'channel_deliveries_external_index', properties: ['channelUuid', 'externalId'] })
export class ChannelDelivery extends TenantScopedEntity {
  @Property({ type: 'uuid' })
  channelUuid!: string;

  @Property({ type: 'text', nullable: true })
  externalId: string | null = null;
}
