import { statementForeignKey } from '../../../core';

/**
 * Pool items and listing contacts reach their pool or listing through a foreign key
 * checked once per statement, with `on delete cascade`: they are written a thousand at a
 * time, and a row-by-row key check cost more than the writing (`statementForeignKey`).
 * The entities declare these triggers; the outreach migration creates them.
 */
export const POOL_ITEMS_POOL_KEY = statementForeignKey({ table: 'pool_items', column: 'pool_uuid', parent: 'pools' });
export const LISTING_CONTACTS_LISTING_KEY = statementForeignKey({ table: 'listing_contacts', column: 'listing_uuid', parent: 'listings' });
