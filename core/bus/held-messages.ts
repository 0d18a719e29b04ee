import type { EntityManager } from '@mikro-orm/postgresql';
import type { Envelope } from './bus-types';
import { newMessageId } from './message-ids';

/**
 * How long a message of a suspended tenant is put back for before it is looked at
 * again. Reactivating the tenant releases its held messages at once
 * (releaseHeldMessages), so this only bounds how late a message is when that release
 * raced a process whose cache still said "suspended".
 */
export const HOLD_MS = 60_000;

/**
 * Puts messages of a suspended tenant back in the outbox for `consumer` alone, with
 * the same attempt (holding is not a failure: it neither uses up an attempt nor ends
 * in the dead letters), marked `held` so that reactivation can find them.
 */
export async function holdMessages(tx: EntityManager, consumer: string, envelopes: readonly Envelope[]): Promise<void> {
  for (const envelope of envelopes) {
    await tx
      .getConnection()
      .execute(
        'insert into bus_outbox (id, message_id, topic, payload, headers, tenant_uuid, dedupe_key, consumer, attempt, due_at, created_at, held) ' +
          `values (?, ?, ?, ?::jsonb, ?::jsonb, ?, null, ?, ?, clock_timestamp() + (? * interval '1 millisecond'), clock_timestamp(), true)`,
        [newMessageId(), envelope.messageId, envelope.topic, JSON.stringify(envelope.payload ?? null), JSON.stringify(envelope.headers), envelope.tenantUuid, consumer, envelope.attempt, HOLD_MS],
        'run',
        tx.getTransactionContext(),
      );
  }
}

/**
 * Makes the held messages of a tenant due now (in `em`'s transaction); returns how many.
 * Wake the relays once it has committed (OutboxStore.notifyRelays).
 */
export async function releaseHeldMessages(em: EntityManager, tenantUuid: string): Promise<number> {
  const result = await em
    .getConnection()
    .execute('update bus_outbox set due_at = clock_timestamp(), held = false where tenant_uuid = ? and held', [tenantUuid], 'run', em.getTransactionContext());
  return (result as { affectedRows?: number }).affectedRows ?? 0;
}
