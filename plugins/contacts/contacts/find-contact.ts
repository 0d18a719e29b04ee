import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { NotFoundError, findByUuid } from '../../../core';
import { Contact } from '../entities';

export const CONTACT_NOT_FOUND = 'Contact not found';

/** A contact of the current tenant, or 404. `lock` holds its row until the transaction ends, so concurrent patches of custom fields merge instead of losing one. */
export async function findContact(em: EntityManager, uuid: string, options: { lock?: boolean } = {}): Promise<Contact> {
  const contact = options.lock
    ? await em.findOne(Contact, { uuid }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true })
    : await findByUuid(em, Contact, uuid);
  if (!contact) throw new NotFoundError(CONTACT_NOT_FOUND);
  return contact;
}
