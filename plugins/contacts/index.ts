import { configRef, coreServices, createServiceFactory, definePlugin } from '../../core';
import { contactCheck, conversationReaderRef } from '../conversations';
import { registerAnalyzers } from './analyzers';
import { contactDirectoryRef } from './contact-directory';
import { registerContacts, createContactDirectory } from './contacts';
import { contactsConfig } from './contacts-config';
import * as entities from './entities';
import { Contact } from './entities';
import { Migration0001Contacts } from './migrations/0001-contacts';

// The public API of the contacts plugin: what other plugins may import.
export { contactDirectoryRef, type ContactDirectory, type ContactJson, type ContactItem, type UpsertOutcome } from './contact-directory';
export { CONTACT_TOPICS, type ContactDeletedEvent } from './contacts/contact-topics';

/**
 * Contacts: the people agents talk to, their custom fields and settings, and the
 * contact analyzers that suggest field updates (approvals) from each closed session.
 */
export default definePlugin({
  entities: Object.values(entities),
  migrations: [{ name: '0001-contacts', class: Migration0001Contacts }],
  config: contactsConfig,
  // The conversations plugin checks a conversation's `contact_uuid` through this (it cannot depend on this plugin).
  contributes: [contactCheck.add({ exists: async (em, contactUuid) => (await em.count(Contact, { uuid: contactUuid })) > 0 })],
  services: [
    createServiceFactory({
      service: contactDirectoryRef,
      deps: { orm: coreServices.orm, tenants: coreServices.tenant, config: configRef(contactsConfig) },
      factory: ({ orm, tenants, config }) => createContactDirectory(orm, tenants, config.all()),
    }),
  ],
  deps: {
    http: coreServices.http,
    bus: coreServices.bus,
    llm: coreServices.llm,
    logger: coreServices.logger,
    config: configRef(contactsConfig),
    conversations: conversationReaderRef,
  },
  init({ http, bus, llm, logger, config, conversations }) {
    const settings = config.all();
    registerContacts(http, bus, settings);
    registerAnalyzers({ http, bus, llm, logger, conversations, settings });
  },
});
