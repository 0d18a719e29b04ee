import type { EntityManager } from '@mikro-orm/postgresql';
import type { TenantRef } from '../context/request-context';

export interface BusMessage<T = unknown> {
  /** The logical message id: the same on every attempt, so handlers can use it as an idempotency key. */
  id: string;
  topic: string;
  payload: T;
  headers: Record<string, string>;
  /** The tenant whose work this is; the handler runs as that tenant. */
  tenant?: TenantRef;
  /** 1 on first delivery, then 2, 3, ... on retries. */
  attempt: number;
}

export interface PublishOptions {
  /** Deliver no earlier than this many milliseconds after commit. */
  delay?: number;
  /** Deliver no earlier than this time. */
  at?: Date;
  /** A pending, undelivered message with the same topic and key is replaced (a newer deadline supersedes an older one). */
  key?: string;
  headers?: Record<string, string>;
}

export interface RetryPolicy {
  /** Deliveries in all, the first included; after the last the message is dead-lettered. */
  attempts: number;
  /** Exponential backoff: initialMs * factor^(attempt-1), capped at maxMs. */
  backoff: { initialMs: number; factor: number; maxMs: number };
}

export interface ConsumerOptions<T = any, P = undefined> {
  /** Unique within the plugin; the kernel prefixes the plugin id. */
  name: string;
  /** Topics, with AMQP wildcards: `*` one word, `#` any number of words (words are dot-separated). */
  topics: string[];
  /** Handlers of this consumer running at once in one process (default 1). */
  concurrency?: number;
  retry?: Partial<Omit<RetryPolicy, 'backoff'>> & { backoff?: Partial<RetryPolicy['backoff']> };
  /**
   * Runs before the message's transaction opens, as the message's tenant, with no
   * transaction of its own: the place for calls to other systems (an LLM, an embeddings
   * API) that may take seconds, which inside the transaction would hold a database
   * connection and the transaction open all the while. It may read; writes and
   * publishes belong to the handler, which gets what this returns as
   * `context.prepared`. A prepare that throws fails the delivery as a throwing handler
   * does (retry with backoff, then the dead letter). It is skipped for a message
   * already handled (unless `prepareSeesHandled`: then it tells that itself), but may
   * run again for one delivered twice at once.
   */
  prepare?: (message: BusMessage<T>, context: PrepareContext) => P | Promise<P>;
  /**
   * Which messages need `prepare` (default: all). A message it turns down is neither
   * prepared nor looked up in the inbox before its transaction (its `prepared` is
   * undefined), so a consumer that prepares only some of its messages costs the others
   * nothing.
   */
  prepareIf?: (message: BusMessage<T>) => boolean;
  /**
   * Set when `prepare` itself tells a message already handled, by reading what its
   * handler writes (a row's status or token), and then does nothing costly: the bus
   * skips its own inbox read before `prepare`, a round trip per message (measured on
   * agent webhook deliveries). The handler's transaction still records the message and
   * skips a duplicate.
   */
  prepareSeesHandled?: boolean;
  /**
   * `false` when the handler itself makes a repeat delivery harmless (its writes are
   * guarded by a token of its own, as a webhook delivery's queue token): the bus then
   * keeps no inbox record of the consumer's messages, a statement less per message and
   * no row to prune, and a message delivered twice runs its handler twice. Default true.
   */
  inbox?: boolean;
  /**
   * The full names (`<plugin>.<name>`) this consumer had in earlier releases. At start
   * their queued and retrying messages and their inbox records become this consumer's,
   * and their RabbitMQ queues are emptied into its queue and deleted: an upgrade that
   * renames a consumer neither loses a message nor handles one twice, and leaves no
   * queue behind that the exchange keeps filling.
   */
  formerly?: string[];
}

export interface PrepareContext {
  /** Reads of the current tenant, outside any transaction. */
  em: EntityManager;
}

export interface ConsumerContext<P = undefined> {
  /** The handler's transaction: its writes, its publishes and the inbox record commit together. */
  em: EntityManager;
  /** What the consumer's `prepare` returned for this message (undefined without one). */
  prepared: P;
}

export type MessageHandler<T = any, P = undefined> = (message: BusMessage<T>, context: ConsumerContext<P>) => void | Promise<void>;

/** A batch consumer's options: a consumer's, without `prepare` (its handler gets many messages at once). */
export type BatchConsumerOptions<T = any> = Omit<ConsumerOptions<T>, 'prepare' | 'prepareIf' | 'prepareSeesHandled'>;

/** Messages of one tenant that arrived together (one or more, in arrival order), in one call. */
export type BatchMessageHandler<T = any> = (messages: BusMessage<T>[], context: { em: EntityManager }) => void | Promise<void>;

export interface BusService {
  /**
   * Writes the message to the outbox in the current transaction (a write request or
   * a consumer's handler): nothing is delivered unless that transaction commits.
   * Returns the message id.
   */
  publish(topic: string, payload: unknown, options?: PublishOptions): Promise<string>;
  /**
   * One message per payload, all to `topic`, written in one statement (a bulk write's
   * events); the same delivery as `publish`. `key` is refused: messages that replace
   * one another cannot be published together. Returns the message ids, in order.
   */
  publishMany(topic: string, payloads: readonly unknown[], options?: Omit<PublishOptions, 'key'>): Promise<string[]>;
  /** Registers a consumer (at init). It runs in `worker` and `start` processes. */
  consume<T = unknown, P = undefined>(options: ConsumerOptions<T, P>, handler: MessageHandler<T, P>): void;
  /**
   * Registers a consumer whose handler takes the messages that arrived together, up to
   * 32, one tenant's at a time: one read and one write for many messages instead of one
   * each (the agent webhooks' fan-out). Delivery is as `consume`'s, each message
   * recorded in the inbox on its own; a call that throws is rolled back and its messages
   * are handled again one per call in the same transaction, so that one bad message
   * fails (retries, dead-letters) alone.
   */
  consumeBatch<T = unknown>(options: BatchConsumerOptions<T>, handler: BatchMessageHandler<T>): void;
}

export interface RegisteredConsumer {
  /** `<plugin>.<name>` */
  name: string;
  topics: string[];
  concurrency: number;
  retry: RetryPolicy;
  prepare?: (message: BusMessage, context: PrepareContext) => unknown;
  prepareIf?: (message: BusMessage) => boolean;
  prepareSeesHandled?: boolean;
  inbox?: boolean;
  handler: MessageHandler<any, any>;
  /** A batch consumer's handler (consumeBatch); `handler` then calls it with one message. */
  batchHandler?: BatchMessageHandler<any>;
  /** Earlier full names (ConsumerOptions.formerly). */
  formerly?: string[];
}

/** A claimed outbox row, as the transports carry it. */
export interface Envelope {
  rowId: string;
  messageId: string;
  topic: string;
  payload: unknown;
  headers: Record<string, string>;
  tenantUuid: string | null;
  /** Only this consumer gets it (a retry or a replay). */
  consumer: string | null;
  attempt: number;
}
