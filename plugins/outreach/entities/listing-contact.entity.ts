import { Entity, Index, ManyToOne, Property, Unique } from '@mikro-orm/decorators/legacy';
import { TenantScopedChildEntity } from '../../../core';
import { Listing } from './listing.entity';

/** A contact on a listing. */
@Entity({ tableName: 'listing_contacts' })
// Forgetting a deleted contact finds its memberships in every pool and listing.
@Index({ name: 'listing_contacts_contact_uuid_index', properties: ['contactUuid'] })
@Unique({ name: 'listing_contacts_listing_uuid_contact_uuid_unique', properties: ['listingUuid', 'contactUuid'] })
export class ListingContact extends TenantScopedChildEntity {
  @ManyToOne(() => Listing, { mapToPk: true, fieldName: 'listing_uuid', deleteRule: 'cascade' })
  listingUuid!: string;

  @Property({ type: 'uuid' })
  contactUuid!: string;
}
