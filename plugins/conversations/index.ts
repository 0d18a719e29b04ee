import { coreServices, createServiceFactory, definePlugin } from '../../core';
import { agentDirectoryRef, agentWebhookEvents } from '../agents';
import { contactCheck } from './contact-check';
import { createConversationReader, conversationReaderRef } from './conversation-reader';
import { registerConversations } from './conversations';
import { conversationsConfig, type ConversationsSettings } from './conversations-config';
import * as entities from './entities';
import { registerMessageExport } from './export';
import { Migration0001Conversations } from './migrations/0001-conversations';
import { sessionizationProvider, type SessionizationProvider } from './sessionization-policy';
import { conversationStatusEvent } from './topics';

// The public API of the conversations plugin: what other plugins may import.
export { conversationReaderRef, type ConversationReader } from './conversation-reader';
export { contactCheck, type ContactCheck } from './contact-check';
export { sessionizationProvider, SESSION_MODES, type SessionMode, type Sessionization, type SessionizationProvider } from './sessionization-policy';
export { CONVERSATION_TOPICS, type ConversationEvent, type SessionClosedEvent } from './topics';
export { CHANNELS, VOICE_CHANNELS, isVoiceChannel, type Channel, type Sender, type MessageType } from './channels';
export { ChannelSchema, type ConversationJson, type MessageJson, type SessionJson, type SessionWithMessagesJson } from './views';

const settingsOf = (config: { get<T>(key: string): T }): ConversationsSettings =>
  Object.fromEntries(Object.keys(conversationsConfig).map((key) => [key, config.get(key)])) as ConversationsSettings;

/**
 * Conversations: every channel's exchanges with contacts, their messages, and the
 * sessions they are cut into (the unit the evaluation plugin judges), plus the
 * workspace's message export.
 */
export default definePlugin({
  id: 'conversations',
  dependsOn: ['agents'],
  entities: Object.values(entities),
  migrations: [{ name: '0001-conversations', class: Migration0001Conversations }],
  config: conversationsConfig,
  provides: [sessionizationProvider, contactCheck],
  contributes: [agentWebhookEvents.add(conversationStatusEvent)],
  services: [
    createServiceFactory({
      service: conversationReaderRef,
      deps: { orm: coreServices.orm },
      factory: ({ orm }) => createConversationReader(orm),
    }),
  ],
  deps: { http: coreServices.http, bus: coreServices.bus, config: coreServices.config, agents: agentDirectoryRef },
  init({ http, bus, config, agents }, { extensions }) {
    const settings = settingsOf(config);
    const fallback: SessionizationProvider = {
      forAgent: async () => ({ mode: 'sliding_timeout', timeoutMinutes: settings.defaultSessionTimeoutMinutes }),
    };
    const sessionization = extensions.get(sessionizationProvider) ?? fallback;
    registerMessageExport(http, settings);
    // Conversations of a deleted agent stay: they are history, which exports and evaluations refer to.
    registerConversations({ http, bus, agents, sessionization, contacts: extensions.get(contactCheck) });
  },
});
