import { scheduleHousekeeping, type BusService, type LifecycleService, type Logger, type OrmService } from '../../../core';
import { CONTACT_TOPICS, type ContactDeletedEvent } from '../../contacts';
import { ContactMemory } from './contact-memory.entity';

/** How often a background process deletes expired memories. */
export const EXPIRY_INTERVAL_MS = 60 * 60_000;
const EXPIRY_BATCH = 1000;

/** A deleted contact's memories go with it (the table holds its uuid without a foreign key: contacts are another plugin's). */
export function forgetDeletedContacts(bus: BusService): void {
  bus.consume<ContactDeletedEvent>({ name: 'forget-deleted-contact', topics: [CONTACT_TOPICS.deleted] }, async (message, { em }) => {
    await em.nativeDelete(ContactMemory, { contactUuid: message.payload.contact_uuid });
  });
}

/**
 * Deletes memories past their `expires_at`, in every tenant, a batch per statement; the
 * recall never reads them anyway, so this only frees the rows. Runs when a background
 * process starts, then every EXPIRY_INTERVAL_MS.
 */
export async function deleteExpiredMemories(orm: OrmService, now = new Date()): Promise<number> {
  const connection = orm.fork().getConnection();
  let total = 0;
  for (;;) {
    const result = await connection.execute(
      `delete from contact_memories where uuid in (select uuid from contact_memories where expires_at <= ? limit ? for update skip locked)`,
      [now, EXPIRY_BATCH],
      'run',
    );
    const deleted = (result as { affectedRows?: number }).affectedRows ?? 0;
    total += deleted;
    if (deleted < EXPIRY_BATCH) return total;
  }
}

/** Deletes expired memories in the processes that do background work, at their start and then every EXPIRY_INTERVAL_MS. */
export function scheduleMemoryExpiry(lifecycle: LifecycleService, orm: OrmService, logger: Logger): void {
  scheduleHousekeeping(lifecycle, logger, {
    what: 'deleting expired contact memories',
    everyMs: EXPIRY_INTERVAL_MS,
    run: async () => {
      const deleted = await deleteExpiredMemories(orm);
      if (deleted > 0) logger.info('deleted expired contact memories', { deleted });
    },
  });
}
