import type { EntityManager } from '@mikro-orm/postgresql';
import { DataEnvelope, defineRoute, deleteRoute, listRoute, pageWindow, readRoute, type AnyRoute, type BusService } from '../../../core';
import type { ContactsSettings } from '../contacts-config';
import { Contact } from '../entities';
import { DuplicateContactError, assertIdentityFree, violatedIdentity } from './contact-identity';
import { applyChanges, checkContactInput } from './contact-input';
import { ContactCreateBody, ContactListQuery, ContactParams, ContactPatchBody } from './contact-schemas';
import { CONTACT_TOPICS, type ContactDeletedEvent } from './contact-topics';
import { ContactSchema, contactJson } from './contact-view';
import { countryCode } from './country-codes';
import { findContact } from './find-contact';
import { containsPattern } from './like-pattern';

const tags = ['contacts'];

const IDENTITY_RULES =
  'A contact needs a `phone_number` or an `email` (422 at `phone_number` otherwise): listings and tasks find contacts by them. ' +
  'Each is unique within the tenant: one another contact already has is a 409 naming that contact’s uuid. ';
const VALUE_RULES =
  '`phone_number` is stored as E.164 (see the member), `email` trimmed and lower-cased, `timezone` must be an IANA zone and `country_code` an ISO 3166-1 alpha-2 code (upper-cased). ' +
  'Empty strings read as null. `custom_fields` keys must be fields defined with `/api/v1/contact-fields` (422 at `custom_fields.<key>` otherwise), ' +
  'each value of its field’s type: `text` a string, `number` a JSON number, `date` ISO 8601 (stored as `YYYY-MM-DD` or UTC), `boolean`, `json` anything, `url` http(s).';

/** Flushes a new or changed contact; a unique violation (a concurrent write took the phone or email) is a 409, not a 500. */
async function flushContact(em: EntityManager): Promise<void> {
  try {
    await em.flush();
  } catch (error) {
    const member = violatedIdentity(error);
    if (member) throw new DuplicateContactError(member);
    throw error;
  }
}

/** Every word must appear in one of the searched members; a word's phone form drops the separators people type. */
function searchCondition(q: string): object[] {
  return q
    .trim()
    .split(/\s+/)
    .filter((word) => word !== '')
    .slice(0, 10)
    .map((word) => {
      const pattern = { $ilike: containsPattern(word) };
      const dialled = word.replace(/[().\-/]/g, '');
      return {
        $or: [
          { name: pattern },
          { surname: pattern },
          { email: pattern },
          { company: pattern },
          ...(dialled !== '' ? [{ phoneNumber: { $ilike: containsPattern(dialled) } }] : []),
        ],
      };
    });
}

/** The contact routes: create, list and search, read, update, delete. */
export const contactRoutes = (bus: BusService, settings: ContactsSettings): AnyRoute[] => [createContact(settings), listContacts, readContact, updateContact(settings), deleteContact(bus)];

const createContact = (settings: ContactsSettings) =>
  defineRoute({
    method: 'POST',
    path: '/api/v1/contacts',
    summary: 'Create a contact',
    description: IDENTITY_RULES + VALUE_RULES + ' `opted_out` defaults to false.',
    tags,
    body: ContactCreateBody,
    status: 201,
    errors: [409],
    response: DataEnvelope(ContactSchema),
    handler: async ({ body, em }) => {
      const changes = await checkContactInput(em, body, settings);
      const contact = em.create(Contact, {});
      applyChanges(contact, changes);
      await assertIdentityFree(em, contact);
      await flushContact(em);
      return { data: contactJson(contact) };
    },
  });

const listContacts = listRoute({
  path: '/api/v1/contacts',
  summary: 'List and search contacts, newest first',
  description:
    '`q` searches the name, surname, email, phone number and company (every word must appear somewhere; `%` and `_` match themselves). ' +
    'The filters `opted_out`, `lead_source`, `country_code` and `pipeline_stage` combine with it and with each other.',
  tags,
  query: ContactListQuery,
  item: ContactSchema,
  page: async ({ query, em }) => {
    const words = query.q ? searchCondition(query.q) : [];
    const where = {
      ...(words.length > 0 ? { $and: words } : {}),
      ...(query.opted_out !== undefined ? { optedOut: query.opted_out } : {}),
      ...(query.lead_source !== undefined ? { leadSource: query.lead_source } : {}),
      // An unknown code matches nobody rather than being an error: it is a filter, not a write.
      ...(query.country_code !== undefined ? { countryCode: countryCode(query.country_code) ?? query.country_code.toUpperCase() } : {}),
      ...(query.pipeline_stage !== undefined ? { pipelineStage: query.pipeline_stage } : {}),
    };
    const [contacts, total] = await em.findAndCount(Contact, where, { orderBy: { createdAt: 'desc', uuid: 'desc' }, ...pageWindow(query) });
    return [contacts.map(contactJson), total];
  },
});

const readContact = readRoute({
  path: '/api/v1/contacts/:uuid',
  summary: 'Read a contact',
  tags,
  params: ContactParams,
  resource: ContactSchema,
  read: async ({ params, em }) => contactJson(await findContact(em, params.uuid)),
});

const updateContact = (settings: ContactsSettings) =>
  defineRoute({
    method: 'PATCH',
    path: '/api/v1/contacts/:uuid',
    summary: 'Update a contact',
    description:
      'Members left out keep their value; `null` clears one. `custom_fields` merges: keys sent replace their value, `null` removes a key, others stay. ' +
      'Read-only members (`uuid`, `created_at`, `updated_at`) are ignored, so what was read can be sent back. ' +
      IDENTITY_RULES +
      VALUE_RULES,
    tags,
    params: ContactParams,
    body: ContactPatchBody,
    errors: [404, 409],
    response: DataEnvelope(ContactSchema),
    handler: async ({ params, body, em }) => {
      const contact = await findContact(em, params.uuid, { lock: true });
      const changes = await checkContactInput(em, body, settings, contact);
      await assertIdentityFree(
        em,
        {
          phoneNumber: changes.text.phone_number !== contact.phoneNumber ? changes.text.phone_number : undefined,
          email: changes.text.email !== contact.email ? changes.text.email : undefined,
        },
        contact.uuid,
      );
      applyChanges(contact, changes);
      await flushContact(em);
      return { data: contactJson(contact) };
    },
  });

const deleteContact = (bus: BusService) =>
  deleteRoute({
    path: '/api/v1/contacts/:uuid',
    summary: 'Delete a contact',
    description: 'Deletes the contact with its approvals, and publishes `contact.deleted` `{contact_uuid}` for plugins that keep its uuid.',
    tags,
    params: ContactParams,
    message: 'Contact deleted',
    remove: async ({ params, em }) => {
      const contact = await findContact(em, params.uuid, { lock: true });
      await em.nativeDelete(Contact, { uuid: contact.uuid });
      await bus.publish(CONTACT_TOPICS.deleted, { contact_uuid: contact.uuid } satisfies ContactDeletedEvent);
    },
  });
