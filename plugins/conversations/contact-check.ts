import type { EntityManager } from '@mikro-orm/postgresql';
import { createExtensionPoint } from '../../core';

/**
 * Whether a `contact_uuid` names a contact of the tenant. The contacts plugin depends
 * on this one (its analyzers read sessions), so it cannot be a dependency here: it
 * fills this point instead. Without it contacts are kept elsewhere (a deployment
 * without the contacts plugin), so there is nothing to check `contact_uuid` against.
 */
export interface ContactCheck {
  /** In the caller's transaction and tenant. */
  exists(em: EntityManager, contactUuid: string): Promise<boolean>;
}

export const contactCheck = createExtensionPoint<ContactCheck>({ id: 'conversations.contacts', single: true });
