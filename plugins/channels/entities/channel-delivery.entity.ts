import { Entity, Index, Property } from '@mikro-orm/decorators/legacy';
import { TenantScopedEntity } from '../../../core';

/**
 * An agent message sent through a channel (`uuid` is the conversation message's): the
 * provider's id of it, by which its delivery receipts find it, and its place in the
 * customer's thread, whose messages go out one after another (outbound/send-order.ts).
 */
@Entity({ tableName: 'channel_deliveries' })
@Index({ name: 'channel_deliveries_external_index', properties: ['channelUuid', 'externalId'] })
@Index({
  name: 'channel_deliveries_unsettled_index',
  expression: 'create index "channel_deliveries_unsettled_index" on "channel_deliveries" ("tenant_uuid", "channel_uuid", "recipient", "seq") where "settled_at" is null',
})
export class ChannelDelivery extends TenantScopedEntity {
  @Property({ type: 'uuid' })
  channelUuid!: string;

  @Property({ type: 'text', nullable: true })
  externalId: string | null = null;

  /** The address the message goes to (the send's `to`); null on rows older than send ordering, which hold nothing up. */
  @Property({ type: 'text', nullable: true })
  recipient?: string | null;

  /** Insertion order: of one thread's unsettled messages, the lowest goes first. */
  @Property({ type: 'bigint', generated: 'identity', autoincrement: true })
  seq?: string;

  /** When it was sent or failed for good: until then later messages of its thread wait. */
  @Property({ type: 'timestamptz', nullable: true })
  settledAt?: Date | null;

  /** The send of this message, parked while an earlier message of the thread is unsettled; published when that one settles. */
  @Property({ type: 'json', nullable: true })
  heldPayload?: unknown;
}
