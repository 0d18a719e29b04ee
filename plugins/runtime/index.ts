import { configRef, coreServices, createServiceFactory, createServiceRef, definePlugin } from '../../core';
import { agentDirectoryRef, agentWebhookEvents } from '../agents';
import { contactDirectoryRef } from '../contacts';
import { conversationWriterRef } from '../conversations';
import { contactMemoryRef } from '../memorize';
import { knowledgeSearchRef, tableRecordsRef } from '../tables';
import { registerChatRoute } from './chat/chat-route';
import { chatTurnsRef, createChatTurns } from './chat/chat-turns';
import { Turn } from './chat/turn';
import { TurnLeases } from './chat/turn-lease';
import * as entities from './entities';
import { Migration0001Runtime } from './migrations/0001-runtime';
import { runtimeConfig } from './runtime-config';
import { intentCalledEvent } from './topics';

// The public API of the runtime plugin: what other plugins (channel adapters, calls) may import.
export { RUNTIME_TOPICS, type IntentCalledEvent } from './topics';
export type { ChatTurnJson, ChatRequestJson } from './chat/chat-schemas';
export { chatTurnsRef, type ChatTurns } from './chat/chat-turns';

/** The runtime's own Turn, shared by its route and ChatTurns (not exported: other plugins use chatTurnsRef). */
const turnRef = createServiceRef<Turn>('runtime.turn');

/**
 * The conversation runtime: agents that talk. One turn reads the agent's configuration,
 * builds its prompt, calls the model with the agent's tools, checks the guard rules
 * beside it, and records everything on the conversation (docs/agent-prompt.md).
 */
export default definePlugin({
  entities: Object.values(entities),
  migrations: [{ name: '0001-runtime', class: Migration0001Runtime }],
  config: runtimeConfig,
  contributes: [agentWebhookEvents.add(intentCalledEvent)],
  services: [
    // One Turn per kernel: the chat route and other plugins' turns (channels, web chat) share its leases.
    createServiceFactory({
      service: turnRef,
      deps: {
        bus: coreServices.bus,
        config: configRef(runtimeConfig),
        llm: coreServices.llm,
        egress: coreServices.egress,
        logger: coreServices.logger,
        agents: agentDirectoryRef,
        conversations: conversationWriterRef,
        contacts: contactDirectoryRef,
        knowledge: knowledgeSearchRef,
        records: tableRecordsRef,
        memory: contactMemoryRef,
      },
      factory: ({ config, ...deps }) => {
        const settings = config.all();
        return new Turn({ ...deps, settings, leases: new TurnLeases(settings) });
      },
    }),
    createServiceFactory({ service: chatTurnsRef, deps: { orm: coreServices.orm, turn: turnRef }, factory: ({ orm, turn }) => createChatTurns(orm, turn) }),
  ],
  deps: { http: coreServices.http, turn: turnRef },
  init({ http, turn }) {
    registerChatRoute(http, turn);
  },
});
