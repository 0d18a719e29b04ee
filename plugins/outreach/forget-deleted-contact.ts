import type { BusService } from '../../core';
import { CONTACT_TOPICS, type ContactDeletedEvent } from '../contacts';
import { ListingContact, PoolItem, Task } from './entities';
import { WAITING_STATUSES } from './entities/task.entity';

/**
 * Contacts belong to the contacts plugin, so outreach keeps their uuids in plain
 * columns. When one is deleted, its listing and pool memberships go and its waiting
 * tasks are cancelled (a task must not run for nobody); finished tasks stay as history.
 */
export function forgetDeletedContacts(bus: BusService): void {
  bus.consume<ContactDeletedEvent>({ name: 'forget-deleted-contact', topics: [CONTACT_TOPICS.deleted] }, async (message, { em }) => {
    if (!message.tenant) return;
    const contactUuid = message.payload.contact_uuid;
    const now = new Date();
    await em.nativeUpdate(
      Task,
      { contactUuid, status: { $in: [...WAITING_STATUSES] } },
      { status: 'cancelled', finishedAt: now, nextAttemptAt: null, lastError: 'the contact was deleted', updatedAt: now },
    );
    await em.nativeDelete(PoolItem, { contactUuid });
    await em.nativeDelete(ListingContact, { contactUuid });
  });
}
