import { RequestContext, type MikroORM } from '@mikro-orm/postgresql';
import { runInContext } from '../context/request-context';
import type { Logger } from '../logging/logger';
import type { TenantDirectory } from '../tenancy/tenant-directory';
import { backoffMs } from './backoff';
import type { BusMessage, Envelope, RegisteredConsumer } from './bus-types';
import type { OutboxStore } from './outbox-store';

export type DeliveryOutcome = 'handled' | 'duplicate' | 'retry' | 'dead';

/**
 * Runs one message through one consumer, exactly once in effect: the inbox record,
 * the handler's writes and its publishes commit in one transaction, so a redelivery
 * after a crash finds the record and does nothing. A failure becomes a retry (a
 * delayed outbox row for this consumer alone) or, after the last attempt, a dead letter.
 */
export class Delivery {
  constructor(
    private readonly orm: MikroORM,
    private readonly outbox: OutboxStore,
    private readonly tenants: TenantDirectory,
    private readonly logger: Logger,
  ) {}

  async deliver(consumer: RegisteredConsumer, envelope: Envelope): Promise<DeliveryOutcome> {
    try {
      const tenant = envelope.tenantUuid ? await this.tenants.findTenantByUuid(envelope.tenantUuid) : undefined;
      if (envelope.tenantUuid && !tenant) throw new Error(`tenant ${envelope.tenantUuid} no longer exists`);
      const message: BusMessage = {
        id: envelope.messageId,
        topic: envelope.topic,
        payload: envelope.payload,
        headers: envelope.headers,
        tenant: tenant ?? undefined,
        attempt: envelope.attempt,
      };
      return await runInContext({ tenant: tenant ?? undefined, requestId: envelope.messageId }, () => {
        const em = this.orm.em.fork();
        return RequestContext.create(em, () =>
          em.transactional(async (tx) => {
            const result: any = await tx
              .getConnection()
              .execute(
                'insert into bus_inbox (consumer, message_id, handled_at) values (?, ?, clock_timestamp()) on conflict do nothing',
                [consumer.name, envelope.messageId],
                'run',
                tx.getTransactionContext(),
              );
            if (result.affectedRows === 0) return 'duplicate' as const;
            await consumer.handler(message, { em: tx });
            return 'handled' as const;
          }),
        );
      });
    } catch (error) {
      return this.fail(consumer, envelope, error);
    }
  }

  private async fail(consumer: RegisteredConsumer, envelope: Envelope, error: unknown): Promise<DeliveryOutcome> {
    const reason = error instanceof Error ? (error.stack ?? error.message) : String(error);
    const em = this.orm.em.fork();
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
      await em.transactional((tx) =>
        this.outbox.insert(tx, {
          messageId: envelope.messageId,
          topic: envelope.topic,
          payload: envelope.payload,
          headers: envelope.headers,
          tenantUuid: envelope.tenantUuid,
          consumer: consumer.name,
          attempt: envelope.attempt + 1,
          delayMs,
        }),
      );
      return 'retry';
    }
    this.logger.error('message dead-lettered after its last attempt', {
      consumer: consumer.name,
      topic: envelope.topic,
      message_id: envelope.messageId,
      attempts: envelope.attempt,
      error: error instanceof Error ? error.message : String(error),
    });
    await em
      .getConnection()
      .execute(
        `insert into bus_dead_letters (id, message_id, consumer, topic, payload, headers, tenant_uuid, attempts, error, created_at) ` +
          `values (gen_random_uuid(), ?, ?, ?, ?::jsonb, ?::jsonb, ?, ?, ?, clock_timestamp()) ` +
          `on conflict (consumer, message_id) do update set attempts = excluded.attempts, error = excluded.error, created_at = excluded.created_at`,
        [envelope.messageId, consumer.name, envelope.topic, JSON.stringify(envelope.payload ?? null), JSON.stringify(envelope.headers), envelope.tenantUuid, envelope.attempt, reason],
      );
    return 'dead';
  }
}
