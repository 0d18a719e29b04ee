import { configRef, coreServices, createServiceFactory, definePlugin, type ExtensionRegistry } from '../../core';
import { agentDirectoryRef, agentWebhookEvents } from '../agents';
import { contactCheck } from './contact-check';
import { createConversationReader, conversationReaderRef } from './conversation-reader';
import { registerConversations } from './conversations';
import { conversationsConfig, type ConversationsSettings } from './conversations-config';
import * as entities from './entities';
import { registerMessageExport } from './export';
import { createConversationWriter, conversationWriterRef } from './conversations/conversation-writer';
import { Migration0001Conversations } from './migrations/0001-conversations';
import { Migration0002ConversationMessageOrder } from './migrations/0002-conversation-message-order';
import { Migration0003MessageDelivery } from './migrations/0003-message-delivery';
import { Migration0004HistoryIndex } from './migrations/0004-history-index';
import { sessionizationProvider, type SessionizationProvider } from './sessionization-policy';
import { conversationStatusEvent, messageCreatedEvent } from './topics';

// The public API of the conversations plugin: what other plugins may import.
export { conversationReaderRef, type ConversationReader } from './conversation-reader';
export { contactCheck, type ContactCheck } from './contact-check';
export { sessionizationProvider, SESSION_MODES, type SessionMode, type Sessionization, type SessionizationProvider } from './sessionization-policy';
export { conversationWriterRef, type ConversationWriter } from './conversations/conversation-writer';
export { CONVERSATION_TOPICS, type ConversationEvent, type ConversationStatusReason, type MessageCreatedEvent, type SessionClosedEvent } from './topics';
export {
  CHANNELS,
  VOICE_CHANNELS,
  MESSAGE_TYPES,
  CONVERSATION_STATUSES,
  DELIVERY_STATUSES,
  type DeliveryStatus,
  isVoiceChannel,
  type Channel,
  type Sender,
  type MessageType,
  type ConversationStatus,
} from './channels';
export { ChannelSchema, type ConversationJson, type MessageJson, type SessionJson, type SessionWithMessagesJson } from './views';

/** The evaluation plugin's sessionization when it is installed, else the configured default for every agent. */
function sessionizationOf(extensions: ExtensionRegistry, settings: ConversationsSettings): SessionizationProvider {
  const fallback: SessionizationProvider = {
    forAgent: async () => ({ mode: 'sliding_timeout', timeoutMinutes: settings.defaultSessionTimeoutMinutes }),
  };
  return extensions.get(sessionizationProvider) ?? fallback;
}

/**
 * Conversations: every channel's exchanges with contacts, their messages, and the
 * sessions they are cut into (the unit the evaluation plugin judges), plus the
 * workspace's message export.
 */
export default definePlugin({
  entities: Object.values(entities),
  migrations: [
    { name: '0001-conversations', class: Migration0001Conversations },
    { name: '0002-conversation-message-order', class: Migration0002ConversationMessageOrder },
    { name: '0003-message-delivery', class: Migration0003MessageDelivery },
    { name: '0004-history-index', class: Migration0004HistoryIndex },
  ],
  config: conversationsConfig,
  provides: [sessionizationProvider, contactCheck],
  contributes: [agentWebhookEvents.add(conversationStatusEvent), agentWebhookEvents.add(messageCreatedEvent)],
  services: [
    createServiceFactory({
      service: conversationReaderRef,
      deps: { orm: coreServices.orm },
      factory: ({ orm }) => createConversationReader(orm),
    }),
    createServiceFactory({
      service: conversationWriterRef,
      deps: { bus: coreServices.bus, tenants: coreServices.tenant, config: configRef(conversationsConfig), agents: agentDirectoryRef },
      factory: ({ bus, tenants, config, agents }, { extensions }) =>
        createConversationWriter({ bus, tenants, agents, sessionization: sessionizationOf(extensions, config.all()), contacts: extensions.get(contactCheck) }),
    }),
  ],
  deps: { http: coreServices.http, bus: coreServices.bus, tenants: coreServices.tenant, config: configRef(conversationsConfig), agents: agentDirectoryRef },
  init({ http, bus, tenants, config, agents }, { extensions }) {
    const settings = config.all();
    registerMessageExport(http, settings);
    const deps = { bus, tenants, agents, sessionization: sessionizationOf(extensions, settings), contacts: extensions.get(contactCheck) };
    // Conversations of a deleted agent stay: they are history, which exports and evaluations refer to.
    registerConversations({ http, ...deps, writer: createConversationWriter(deps) });
  },
});
