import type { MikroORM } from '@mikro-orm/postgresql';
import { BootError } from '../errors/boot-error';
import type { Logger } from '../logging/logger';
import type { RegisteredConsumer } from './bus-types';

/** Renamed consumers: each earlier name with the consumer that carries it on. */
export function renamesOf(consumers: readonly RegisteredConsumer[]): Array<{ former: string; consumer: string }> {
  const live = new Set(consumers.map((consumer) => consumer.name));
  const renames: Array<{ former: string; consumer: string }> = [];
  const claimed = new Map<string, string>();
  for (const consumer of consumers) {
    for (const former of consumer.formerly ?? []) {
      if (live.has(former)) throw new BootError(`consumer "${consumer.name}" names "${former}" as a former name, but a consumer of that name is registered`);
      const other = claimed.get(former);
      if (other !== undefined) throw new BootError(`consumers "${other}" and "${consumer.name}" both name "${former}" as a former name`);
      claimed.set(former, consumer.name);
      renames.push({ former, consumer: consumer.name });
    }
  }
  return renames;
}

/**
 * What a former consumer left in the database becomes its successor's, before any
 * message is relayed: retries and replays addressed to the former name (outbox rows
 * with `consumer` set), and the inbox records of what it handled, so a message it
 * handled is not handled again under the new name. Idempotent: a second start finds
 * nothing to move.
 */
export async function carryOverRenamedConsumers(orm: MikroORM, consumers: readonly RegisteredConsumer[], logger: Logger): Promise<void> {
  const renames = renamesOf(consumers);
  if (renames.length === 0) return;
  const connection = orm.em.getConnection();
  for (const { former, consumer } of renames) {
    const moved = await orm.em.fork().transactional(async (em) => {
      const trx = em.getTransactionContext();
      const retries: Array<{ n: number }> = await connection.execute(
        `with moved as (update bus_outbox set consumer = ? where consumer = ? returning 1) select count(*)::int as n from moved`,
        [consumer, former],
        'all',
        trx,
      );
      const handled: Array<{ n: number }> = await connection.execute(
        `with moved as (insert into bus_inbox (consumer, message_id, handled_at) select ?, message_id, handled_at from bus_inbox where consumer = ? on conflict do nothing returning 1) ` +
          `select count(*)::int as n from moved`,
        [consumer, former],
        'all',
        trx,
      );
      await connection.execute(`delete from bus_inbox where consumer = ?`, [former], 'run', trx);
      return { retries: retries[0].n, handled: handled[0].n };
    });
    if (moved.retries > 0 || moved.handled > 0) logger.info('carried over a renamed consumer', { former, consumer, retries: moved.retries, inbox: moved.handled });
  }
}
