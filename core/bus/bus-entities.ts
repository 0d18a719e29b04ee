import type { Opt } from '@mikro-orm/core';
import { Entity, Index, PrimaryKey, Property, Unique } from '@mikro-orm/decorators/legacy';
import { newUuid } from '../data/uuid';

/** What an outbox row and a dead letter both hold of a message. */
abstract class BusMessageColumns {
  @PrimaryKey({ type: 'uuid' })
  id: string & Opt = newUuid();

  /** The logical message id: the same across retries, the key of the consumers' inbox. */
  @Property({ type: 'uuid' })
  messageId!: string;

  @Property({ type: 'string', length: 255 })
  topic!: string;

  @Property({ type: 'json' })
  payload!: unknown;

  @Property({ type: 'json' })
  headers: Record<string, string> & Opt = {};

  @Property({ type: 'uuid', nullable: true })
  tenantUuid: string | null = null;
}

/**
 * A message waiting to reach the broker (or the in-process consumers). Written in
 * the publisher's transaction, so it exists only if that transaction commits; the
 * relay deletes it once it is delivered. A retry is a new row aimed at one consumer.
 */
// No insert trigger: relays are woken after the publishing transaction commits (outbox-commits.ts).
@Entity({ tableName: 'bus_outbox' })
@Index({ properties: ['dueAt'] })
// The replace of a keyed message finds the pending one by topic and key (outbox-store.ts).
@Index({ name: 'bus_outbox_topic_dedupe_key_index', properties: ['topic', 'dedupeKey'], where: 'dedupe_key is not null' })
export class OutboxRow extends BusMessageColumns {

  /** A pending row with the same topic and key is replaced instead of adding another. */
  @Property({ type: 'string', length: 255, nullable: true })
  dedupeKey: string | null = null;

  /** Set on retries and replays: only this consumer gets the message. */
  @Property({ type: 'string', length: 255, nullable: true })
  consumer: string | null = null;

  @Property({ type: 'integer' })
  attempt: number & Opt = 1;

  @Property({ type: 'datetime' })
  dueAt: Date & Opt = new Date();

  /** A relay's lease: until then no other relay claims the row. */
  @Property({ type: 'datetime', nullable: true })
  lockedUntil: Date | null = null;

  /** Put back because its tenant is suspended (held-messages.ts): reactivating the tenant makes it due at once. */
  @Property({ type: 'boolean' })
  held: boolean & Opt = false;

  @Property({ type: 'datetime' })
  createdAt: Date & Opt = new Date();
}

/** What each consumer has handled, recorded in the handler's own transaction. */
@Entity({ tableName: 'bus_inbox' })
@Index({ properties: ['handledAt'] })
export class InboxRow {
  @PrimaryKey({ type: 'string', length: 255 })
  consumer!: string;

  @PrimaryKey({ type: 'uuid' })
  messageId!: string;

  @Property({ type: 'datetime' })
  handledAt: Date & Opt = new Date();
}

/** A message a consumer gave up on after its last attempt, kept for an operator to replay. */
@Entity({ tableName: 'bus_dead_letters' })
@Unique({ properties: ['consumer', 'messageId'] })
export class DeadLetter extends BusMessageColumns {
  @Property({ type: 'string', length: 255 })
  consumer!: string;

  @Property({ type: 'integer' })
  attempts!: number;

  @Property({ type: 'text' })
  error!: string;

  @Property({ type: 'datetime' })
  createdAt: Date & Opt = new Date();
}
