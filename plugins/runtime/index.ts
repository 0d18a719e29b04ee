import { BootError, ContributedDeps, configRef, coreServices, createServiceFactory, createServiceRef, definePlugin } from '../../core';
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
import { runtimeToolDepsRef, runtimeToolProviders, type RuntimeToolProvider } from './tools/tool-providers';
import { intentCalledEvent } from './topics';

// The public API of the runtime plugin: what other plugins (channel adapters, calls) may import.
export { RUNTIME_TOPICS, type IntentCalledEvent } from './topics';
export type { ChatTurnJson, ChatRequestJson } from './chat/chat-schemas';
export { chatTurnsRef, type ChatTurns, type TakeOptions } from './chat/chat-turns';
export { runtimeToolProviders, contributeRuntimeTools, type RuntimeToolProvider, type RuntimeTool, type RuntimeToolTurn } from './tools/tool-providers';

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
  provides: [runtimeToolProviders],
  contributes: [agentWebhookEvents.add(intentCalledEvent)],
  services: [
    createServiceFactory({ service: runtimeToolDepsRef, deps: {}, factory: () => new ContributedDeps<RuntimeToolProvider>((provider) => `runtime tool provider "${provider.id}"`, 'contributeRuntimeTools') }),
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
        toolDeps: runtimeToolDepsRef,
      },
      factory: ({ config, toolDeps, ...deps }, { extensions }) => {
        const settings = config.all();
        // A provider's deps are read per turn: its plugin hands them over in its init, after this one's.
        const toolProviders = extensions.items(runtimeToolProviders).map((provider) => ({ provider, deps: () => (provider.deps ? toolDeps.of(provider) : {}) }));
        return new Turn({ ...deps, settings, leases: new TurnLeases(settings), toolProviders });
      },
    }),
    createServiceFactory({ service: chatTurnsRef, deps: { orm: coreServices.orm, turn: turnRef }, factory: ({ orm, turn }) => createChatTurns(orm, turn) }),
  ],
  deps: { http: coreServices.http, lifecycle: coreServices.lifecycle, turn: turnRef, toolDeps: runtimeToolDepsRef },
  init({ http, lifecycle, turn, toolDeps }, { extensions }) {
    // After every plugin's init (the providers' plugins hand their deps over in theirs): a provider whose deps never came would fail its first turn.
    lifecycle.onStart(() => {
      const unprovided = toolDeps.missing(extensions.items(runtimeToolProviders));
      if (unprovided.length > 0) throw new BootError(`${unprovided.join(', ')}: deps named but never provided (contribute with contributeRuntimeTools(...))`);
    });
    registerChatRoute(http, turn);
  },
});
