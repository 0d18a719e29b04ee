import { ValidationError, type FieldErrors, type OrmService, type TenantService } from '../../../core';
import type { ContactDirectory, ContactItem, ContactJson, UpsertOutcome } from '../contact-directory';
import type { ContactsSettings } from '../contacts-config';
import { ContactBatch, CONCURRENT_WRITE } from './contact-batch';
import { DuplicateContactError } from './contact-identity';
import { contactsByUuid, type ContactRow } from './contact-rows';
import { contactJson } from './contact-view';
import { hasErrors, parseListingItem, type ParsedItem } from './listing-item';

const under = (prefix: string, errors: FieldErrors): FieldErrors =>
  Object.fromEntries(Object.entries(errors).map(([path, messages]) => [[prefix, path].filter((part) => part !== '').join('.'), messages]));

/** Where an item that lost a race for its phone number or email is told so. */
const concurrentWrite = (item: ParsedItem): FieldErrors => ({ [item.text.phone_number ? 'phone_number' : 'email']: [CONCURRENT_WRITE] });

/** The ContactDirectory other plugins use, in the current tenant and transaction (`orm.em`). */
export function createContactDirectory(orm: OrmService, tenants: TenantService, settings: ContactsSettings): ContactDirectory {
  // Raw statements name the tenant, as the ORM's filter would.
  const requireTenantUuid = () => tenants.require().uuid;
  return {
    async get(contactUuids) {
      const rows = await contactsByUuid(orm.em, requireTenantUuid(), contactUuids);
      return new Map(rows.map((row) => [row.uuid, contactJson(row)]));
    },

    async upsertMany(items) {
      const parsed = items.map((item) => parseListingItem(item, settings));
      const batch = new ContactBatch(orm.em, requireTenantUuid());
      await batch.load(
        parsed.filter((item) => !hasErrors(item)),
        { lock: true },
      );
      const outcomes: UpsertOutcome[] = parsed.map((item, index) => (hasErrors(item) ? { index, status: 'failed', errors: item.errors } : batch.apply(item, index)));
      const lost = await batch.write();
      if (lost.size === 0) return outcomes;
      return outcomes.map((outcome) =>
        outcome.status !== 'failed' && lost.has(outcome.contact_uuid) ? { index: outcome.index, status: 'failed', errors: concurrentWrite(parsed[outcome.index]) } : outcome,
      );
    },

    async findOrCreate(item: ContactItem, pathPrefix: string): Promise<{ contact: ContactJson; created: boolean }> {
      const parsed = parseListingItem(item, settings);
      if (hasErrors(parsed)) throw new ValidationError(under(pathPrefix, parsed.errors));
      const tenantUuid = requireTenantUuid();
      const batch = new ContactBatch(orm.em, tenantUuid);
      await batch.load([parsed], { lock: false });
      batch.checkCustomValues(parsed);
      if (hasErrors(parsed)) throw new ValidationError(under(pathPrefix, parsed.errors));
      const existing = batch.match(parsed);
      if (existing) return { contact: contactJson(existing), created: false };

      const outcome = batch.apply(parsed, 0);
      if (outcome.status === 'failed') throw new ValidationError(under(pathPrefix, outcome.errors));
      const lost = await batch.write();
      if (!lost.has(outcome.contact_uuid)) return { contact: contactJson(batch.contact(outcome.contact_uuid) as ContactRow), created: true };
      // A concurrent request created this contact between the read and the insert: it is the one to find.
      const again = new ContactBatch(orm.em, tenantUuid);
      await again.load([parsed], { lock: false });
      const found = again.match(parsed);
      if (found) return { contact: contactJson(found), created: false };
      throw new DuplicateContactError(parsed.text.phone_number ? 'phone_number' : 'email');
    },
  };
}
