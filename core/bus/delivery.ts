import { TransactionContext } from '@mikro-orm/core';
import { type EntityManager, type MikroORM } from '@mikro-orm/postgresql';
import type { TenantRef } from '../context/request-context';
import { runInContext } from '../context/request-context';
import { boundQuery } from '../data/bound-query';
import { preparedStatement } from '../data/prepared-statements';
import { rowLevelSecurityOf, setTenantSql } from '../data/row-level-security';
import type { Logger } from '../logging/logger';
import type { TenantDirectory } from '../tenancy/tenant-directory';
import { backoffMs } from './backoff';
import type { BusMessage, Envelope, RegisteredConsumer } from './bus-types';
import type { HandlerConnections } from './handler-connections';
import type { OutboxStore } from './outbox-store';
import { holdMessages } from './held-messages';
import type { BusMetrics } from '../metrics/bus-metrics';

export type DeliveryOutcome = 'handled' | 'duplicate' | 'retry' | 'dead';

export interface BatchResult {
  /** One per envelope, in order. */
  outcomes: DeliveryOutcome[];
  /** Handlers run, and their wall time in all with their prepares' (ms): how quick this consumer's handlers are. */
  handlersRun: number;
  handlerMs: number;
}

/** The savepoint each handler of a batch runs under (one name, reused: PostgreSQL rolls back to the latest). */
const SAVEPOINT = 'bus_handler';

/** The messages' ids recorded for a consumer; returns those not recorded before (the others are duplicates). Exported for bench/bus's floor. */
export const RECORD_IN_INBOX = preparedStatement(
  'bus.inbox-record',
  'insert into bus_inbox (consumer, message_id, handled_at) select $1, id, clock_timestamp() from unnest($2::uuid[]) as id on conflict do nothing returning message_id',
  { tenantNeutral: true },
);

interface Item {
  index: number;
  envelope: Envelope;
  tenant?: TenantRef;
  /** What the consumer's prepare returned. */
  prepared?: unknown;
  /** Set when it failed: before its handler ran (its tenant is gone, its prepare threw) or in it. */
  error?: unknown;
}

/** Of these messages, those the consumer has handled already (read before preparing, so a redelivery is not prepared again). */
const HANDLED_BEFORE = preparedStatement('bus.inbox-handled', 'select message_id from bus_inbox where consumer = $1 and message_id = any($2::uuid[])', { tenantNeutral: true });

/**
 * Runs messages through one consumer, exactly once in effect. A batch of messages is
 * handled in one transaction: the inbox records of the whole batch are inserted by
 * one statement (a message already recorded is a duplicate and skipped), then each
 * handler runs under a savepoint of its own, as its message's tenant. A handler that
 * throws is rolled back to its savepoint (its writes and publishes vanish, the other
 * handlers' stay), its inbox record is removed, and its retry (a delayed outbox row for
 * this consumer alone) or, after the last attempt, its dead letter is written in the
 * same transaction. So the inbox records, the handlers' effects and the failures
 * commit together, and a redelivery after a crash finds the records and does nothing.
 * A message that arrives alone runs without a savepoint (deliverAlone). A batch
 * consumer's handler runs once per tenant of the batch, under one savepoint (unitsOf);
 * a consumer with `inbox: false` writes no inbox records and takes no message as a
 * duplicate.
 */
export class Delivery {
  constructor(
    private readonly orm: MikroORM,
    private readonly outbox: OutboxStore,
    private readonly tenants: TenantDirectory,
    private readonly logger: Logger,
    /** Every transaction below takes one of these first, so handlers never hold the whole pool. */
    private readonly connections: HandlerConnections,
    private readonly metrics?: BusMetrics,
  ) {}

  /** A transaction of its own on a fresh fork, once a handler connection is free. */
  private transaction<T>(work: (tx: EntityManager) => Promise<T>): Promise<T> {
    return this.connections.run(() => this.orm.em.fork().transactional(work));
  }

  /** One message alone (a batch of one). */
  async deliver(consumer: RegisteredConsumer, envelope: Envelope): Promise<DeliveryOutcome> {
    return (await this.deliverBatch(consumer, [envelope])).outcomes[0];
  }

  /**
   * Handles the envelopes in one transaction (see the class). Throws only when the
   * transaction itself fails (the database is down): then nothing of the batch
   * committed and every message of it must be delivered again.
   */
  async deliverBatch(consumer: RegisteredConsumer, envelopes: Envelope[]): Promise<BatchResult> {
    const result = await this.handleBatch(consumer, envelopes);
    // Counted once the batch's transaction has committed: a batch that throws is delivered again, and counted then.
    if (this.metrics) for (let i = 0; i < envelopes.length; i++) this.metrics.delivered(consumer.name, envelopes[i].topic, result.outcomes[i]);
    return result;
  }

  private async handleBatch(consumer: RegisteredConsumer, envelopes: Envelope[]): Promise<BatchResult> {
    const outcomes: DeliveryOutcome[] = new Array(envelopes.length);
    const items: Item[] = [];
    /** Messages of suspended tenants: put back unhandled (held-messages.ts), and not recorded in the inbox. */
    const held: Envelope[] = [];
    const seen = new Set<string>();
    for (let index = 0; index < envelopes.length; index++) {
      const envelope = envelopes[index];
      // The same message twice in one batch (sent again after a lost DELETE): the first one counts.
      if (seen.has(envelope.messageId)) {
        outcomes[index] = 'duplicate';
        continue;
      }
      seen.add(envelope.messageId);
      const item: Item = { index, envelope };
      if (envelope.tenantUuid) {
        try {
          item.tenant = (await this.tenants.findTenantByUuid(envelope.tenantUuid)) ?? undefined;
          if (!item.tenant) item.error = new Error(`tenant ${envelope.tenantUuid} no longer exists`);
        } catch (error) {
          item.error = error;
        }
        if (item.tenant && this.tenants.isSuspended(item.tenant)) {
          held.push(envelope);
          outcomes[index] = 'retry'; // put back for later, as a retry is (without using up an attempt)
          continue;
        }
      }
      items.push(item);
    }
    const result: BatchResult = { outcomes, handlersRun: 0, handlerMs: 0 };
    if (held.length > 0) {
      await this.transaction((tx) => holdMessages(tx, consumer.name, held));
      this.logger.debug('messages of a suspended tenant held', { consumer: consumer.name, count: held.length });
    }
    if (items.length === 0) return result;
    if (consumer.prepare) await this.prepare(consumer, items, result);
    if (items.length === 1 && items[0].error === undefined) {
      await this.deliverAlone(consumer, items[0], result);
      return result;
    }

    await this.transaction(async (tx) => {
      const run = (sql: string, params: unknown[] = []) => tx.getConnection().execute(sql, params, 'run', tx.getTransactionContext());
      const recorded = await this.recordInInbox(tx, consumer, items);
      const failed: Item[] = [];
      const ready: Item[] = [];
      for (const item of items) {
        if (!recorded.has(item.envelope.messageId)) outcomes[item.index] = 'duplicate';
        else if (item.error !== undefined) failed.push(item);
        else ready.push(item);
      }
      let savepoint = false;
      /** Runs one unit of handling under a savepoint of its own; a unit that throws is rolled back to it. */
      const attempt = async (unit: Item[]): Promise<unknown> => {
        // One round trip: the previous unit's savepoint is released as this one's is taken, and the
        // tables' tenant policies are keyed to this unit's tenant (row-level-security.ts). A local
        // set_config lasts to the end of the transaction, not the savepoint: so again for each unit.
        const tenantSql = rowLevelSecurityOf(tx) ? `; ${setTenantSql(unit[0].tenant?.uuid, true)}` : '';
        await run((savepoint ? `release savepoint ${SAVEPOINT}; savepoint ${SAVEPOINT}` : `savepoint ${SAVEPOINT}`) + tenantSql);
        savepoint = true;
        try {
          await this.runCounted(consumer, unit, tx, result);
          for (const item of unit) outcomes[item.index] = 'handled';
          return undefined;
        } catch (error) {
          await run(`rollback to savepoint ${SAVEPOINT}`);
          return error;
        }
      };
      for (const unit of unitsOf(consumer, ready)) {
        const error = await attempt(unit);
        if (error === undefined) continue;
        if (unit.length === 1) {
          unit[0].error = error;
          failed.push(unit[0]);
          continue;
        }
        // A batch handler that threw: its messages again one by one, so that one bad message fails alone.
        for (const item of unit) {
          const alone = await attempt([item]);
          if (alone === undefined) continue;
          item.error = alone;
          failed.push(item);
        }
      }
      if (failed.length > 0) {
        // Their inbox records go with their effects: a retry or a replay must find none.
        if (consumer.inbox !== false) await run('delete from bus_inbox where consumer = ? and message_id = any(?::uuid[])', [
          consumer.name,
          `{${failed.map((item) => item.envelope.messageId).join(',')}}`,
        ]);
        for (const item of failed) outcomes[item.index] = await this.fail(tx, consumer, item.envelope, item.error);
      }
    });
    return result;
  }

  /**
   * A message that arrived alone needs no savepoint, one round trip less: a failing
   * handler rolls its whole transaction back (its inbox record with it), and its retry
   * or dead letter is written in a transaction of its own. Were the process to stop in
   * between, the broker would deliver the message again for the same attempt.
   */
  private async deliverAlone(consumer: RegisteredConsumer, item: Item, result: BatchResult): Promise<void> {
    let failure: { error: unknown } | undefined;
    try {
      // Begun as the message's tenant, so its BEGIN carries the tenant policies' setting (row-level-security.ts).
      await runInContext({ tenant: item.tenant, requestId: item.envelope.messageId }, () => this.transaction(async (tx) => {
        if ((await this.recordInInbox(tx, consumer, [item])).size === 0) {
          result.outcomes[item.index] = 'duplicate';
          return;
        }
        try {
          await this.runCounted(consumer, [item], tx, result);
          result.outcomes[item.index] = 'handled';
        } catch (error) {
          failure = { error };
          throw error;
        }
      }));
    } catch (error) {
      // Not the handler's failure: the transaction itself failed (the database went away), and nothing of it holds.
      if (failure === undefined || failure.error !== error) throw error;
      const { error: handlerError } = failure;
      await this.transaction(async (tx) => {
        result.outcomes[item.index] = await this.fail(tx, consumer, item.envelope, handlerError);
      });
    }
  }

  /**
   * Runs the consumer's prepare for each item, before and outside the transaction (see
   * ConsumerOptions.prepare), one after another, as the item's tenant. A failure is the
   * item's: it is retried or dead-lettered in the transaction as a handler's would be.
   * Its time counts as its handler's, so that a consumer whose prepare is slow gets
   * batches of one, `concurrency` at once, as a slow handler does (consumer-batches.ts).
   */
  private async prepare(consumer: RegisteredConsumer, items: Item[], result: BatchResult): Promise<void> {
    const pending = items.filter((item) => item.error === undefined && (!consumer.prepareIf || consumer.prepareIf(messageOf(item))));
    if (pending.length === 0) return;
    const handled = consumer.prepareSeesHandled
      ? []
      : await boundQuery<{ message_id: string }>(this.orm.em.fork(), HANDLED_BEFORE, [consumer.name, pending.map((item) => item.envelope.messageId)]);
    const skip = new Set(handled.map((row) => row.message_id));
    for (const item of pending) {
      if (skip.has(item.envelope.messageId)) continue;
      const em = this.orm.em.fork();
      const started = performance.now();
      try {
        item.prepared = await runInContext({ tenant: item.tenant, requestId: item.envelope.messageId, em }, () => consumer.prepare!(messageOf(item), { em }));
      } catch (error) {
        item.error = error;
      } finally {
        result.handlerMs += performance.now() - started;
      }
    }
  }

  /** Records the items' messages as handled by `consumer`; returns the ids recorded now (the others were, earlier: duplicates). */
  private async recordInInbox(tx: EntityManager, consumer: RegisteredConsumer, items: readonly Item[]): Promise<Set<string>> {
    // A consumer without an inbox (ConsumerOptions.inbox) takes every message as new: its handler tells a repeat itself.
    if (consumer.inbox === false) return new Set(items.map((item) => item.envelope.messageId));
    const fresh = await boundQuery<{ message_id: string }>(tx, RECORD_IN_INBOX, [consumer.name, items.map((item) => item.envelope.messageId)]);
    return new Set(fresh.map((row) => row.message_id));
  }

  /** runHandler, counted and timed in the batch's result whatever its outcome (a unit of k messages counts k handlers). */
  private async runCounted(consumer: RegisteredConsumer, unit: Item[], tx: EntityManager, result: BatchResult): Promise<void> {
    const started = performance.now();
    try {
      await this.runHandler(consumer, unit, tx);
    } finally {
      result.handlersRun += unit.length;
      result.handlerMs += performance.now() - started;
    }
  }

  /**
   * The handler on a fork of the batch's transaction, as the messages' tenant (one unit
   * is one tenant's); its unit of work is flushed before its savepoint is released. A
   * batch consumer's handler gets the unit's messages in one call.
   */
  private runHandler(consumer: RegisteredConsumer, unit: Item[], tx: EntityManager): Promise<void> {
    const [first] = unit;
    const em = tx.fork({ clear: true, keepTransactionContext: true });
    return runInContext({ tenant: first.tenant, requestId: first.envelope.messageId, em }, () =>
      TransactionContext.create(em, async () => {
        if (consumer.batchHandler) await consumer.batchHandler(unit.map(messageOf), { em });
        else await consumer.handler(messageOf(first), { em, prepared: first.prepared });
        await em.flush();
      }),
    );
  }

  /** Writes the retry or the dead letter in the batch's transaction. */
  private async fail(tx: EntityManager, consumer: RegisteredConsumer, envelope: Envelope, error: unknown): Promise<DeliveryOutcome> {
    const reason = error instanceof Error ? (error.stack ?? error.message) : String(error);
    if (envelope.attempt < consumer.retry.attempts) {
      const delayMs = backoffMs(consumer.retry, envelope.attempt);
      this.logger.warn('message handler failed; will retry', {
        consumer: consumer.name,
        topic: envelope.topic,
        message_id: envelope.messageId,
        attempt: envelope.attempt,
        retry_in_ms: delayMs,
        error: error instanceof Error ? error.message : String(error),
      });
      await this.outbox.insert(tx, {
        messageId: envelope.messageId,
        topic: envelope.topic,
        payload: envelope.payload,
        headers: envelope.headers,
        tenantUuid: envelope.tenantUuid,
        consumer: consumer.name,
        attempt: envelope.attempt + 1,
        delayMs,
      });
      return 'retry';
    }
    this.logger.error('message dead-lettered after its last attempt', {
      consumer: consumer.name,
      topic: envelope.topic,
      message_id: envelope.messageId,
      attempts: envelope.attempt,
      error: error instanceof Error ? error.message : String(error),
    });
    await tx
      .getConnection()
      .execute(
        `insert into bus_dead_letters (id, message_id, consumer, topic, payload, headers, tenant_uuid, attempts, error, created_at) ` +
          `values (gen_random_uuid(), ?, ?, ?, ?::jsonb, ?::jsonb, ?, ?, ?, clock_timestamp()) ` +
          `on conflict (consumer, message_id) do update set attempts = excluded.attempts, error = excluded.error, created_at = excluded.created_at`,
        [envelope.messageId, consumer.name, envelope.topic, JSON.stringify(envelope.payload ?? null), JSON.stringify(envelope.headers), envelope.tenantUuid, envelope.attempt, reason],
        'run',
        tx.getTransactionContext(),
      );
    return 'dead';
  }
}

/**
 * What runs under one savepoint: each message alone, or, for a batch consumer, each
 * tenant's messages together (the handler runs as one tenant), in arrival order.
 */
function unitsOf(consumer: RegisteredConsumer, items: Item[]): Item[][] {
  if (!consumer.batchHandler) return items.map((item) => [item]);
  const byTenant = new Map<string | undefined, Item[]>();
  for (const item of items) {
    const unit = byTenant.get(item.tenant?.uuid);
    if (unit) unit.push(item);
    else byTenant.set(item.tenant?.uuid, [item]);
  }
  return [...byTenant.values()];
}

/** The message a prepare or a handler sees. */
function messageOf({ envelope, tenant }: Item): BusMessage {
  return {
    id: envelope.messageId,
    topic: envelope.topic,
    payload: envelope.payload,
    headers: envelope.headers,
    tenant,
    attempt: envelope.attempt,
  };
}
