import { Entity, Index, Property, Unique } from '@mikro-orm/decorators/legacy';
import { TenantScopedChildEntity } from '../../../core';
import { LISTING_CONTACTS_LISTING_KEY } from './membership-keys';

/** A contact on a listing. */
@Entity({ tableName: 'listing_contacts', triggers: LISTING_CONTACTS_LISTING_KEY.childTriggers })
// Forgetting a deleted contact finds its memberships in every pool and listing.
@Index({ name: 'listing_contacts_contact_uuid_index', properties: ['contactUuid'] })
@Unique({ name: 'listing_contacts_listing_uuid_contact_uuid_unique', properties: ['listingUuid', 'contactUuid'] })
export class ListingContact extends TenantScopedChildEntity {
  /** Its listing: a foreign key checked once per statement, with `on delete cascade` (the outreach migration's `statementForeignKey`). */
  @Property({ type: 'uuid' })
  listingUuid!: string;

  @Property({ type: 'uuid' })
  contactUuid!: string;
}
