import { coreServices, createServiceFactory, definePlugin } from '../../core';
import { agentDirectoryRef, agentSettingsSlots } from '../agents';
import { contactDirectoryRef } from '../contacts';
import { conversationReaderRef } from '../conversations';
import { MemorizeSettings } from './memorize-settings.entity';
import { memorizeOverrides } from './memorize-overrides';
import { ContactMemory, contactMemoryRef, createContactMemoryReader, forgetDeletedContacts, memoryRoutes, scheduleMemoryExpiry, summarizeClosedSessions } from './memory';
import { Migration0001Memorize } from './migrations/0001-memorize';
import { Migration0002ContactMemories } from './migrations/0002-contact-memories';
import { MemorizeSettingsSchema } from './schemas';

export { MemorizeSettingsSchema, type MemorizeSettingsJson } from './schemas';
export { contactMemoryRef, type ContactMemoryReader, type MemoryItem } from './memory';

/**
 * Memorize: what an agent remembers about its contacts. Its settings (one tenant-wide
 * default and per-agent overrides, shown as `settings.memorize` on every agent) decide
 * whether a closed session is summarized into the contact's memory, which the runtime
 * reads into the contact's later prompts.
 */
export default definePlugin({
  entities: [MemorizeSettings, ContactMemory],
  migrations: [
    { name: '0001-memorize', class: Migration0001Memorize },
    { name: '0002-contact-memories', class: Migration0002ContactMemories },
  ],
  contributes: [agentSettingsSlots.add({ key: 'memorize', schema: MemorizeSettingsSchema, load: memorizeOverrides.loadEffective })],
  services: [
    createServiceFactory({
      service: contactMemoryRef,
      deps: { orm: coreServices.orm },
      factory: ({ orm }) => createContactMemoryReader(orm, async (em, agentUuid) => (await memorizeOverrides.effective(em, agentUuid)).values.enabled),
    }),
  ],
  deps: {
    http: coreServices.http,
    bus: coreServices.bus,
    llm: coreServices.llm,
    orm: coreServices.orm,
    lifecycle: coreServices.lifecycle,
    logger: coreServices.logger,
    agents: agentDirectoryRef,
    contacts: contactDirectoryRef,
    conversations: conversationReaderRef,
  },
  init({ http, bus, llm, orm, lifecycle, logger, agents, contacts, conversations }) {
    for (const route of memorizeOverrides.routes(agents)) http.route(route);
    memorizeOverrides.forgetDeletedAgents(bus);
    summarizeClosedSessions(bus, llm, conversations);
    forgetDeletedContacts(bus);
    scheduleMemoryExpiry(lifecycle, orm, logger);
    for (const route of memoryRoutes(contacts)) http.route(route);
  },
});
