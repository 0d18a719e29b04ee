import { Entity, Property, Unique } from '@mikro-orm/decorators/legacy';
import { TenantScopedEntity } from '../../../core';

/**
 * A conversation whose turn is in progress: taken before the turn reads its history,
 * dropped when its messages are recorded. It is a row, not a database lock, because a
 * turn waits seconds for the model and must hold no connection meanwhile; it expires so
 * that a process dying mid-turn does not block the conversation for good.
 */
@Entity({ tableName: 'runtime_turn_leases' })
@Unique({ name: 'runtime_turn_leases_conversation_uuid_unique', properties: ['conversationUuid'] })
export class TurnLease extends TenantScopedEntity {
  @Property({ type: 'uuid' })
  conversationUuid!: string;

  /** Who holds it: a random id per turn. */
  @Property({ type: 'string', length: 64 })
  holder!: string;

  @Property({ type: 'timestamptz' })
  expiresAt!: Date;
}
