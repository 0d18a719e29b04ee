import { BootError, coreServices, createServiceFactory, definePlugin, type ExtensionRegistry } from '../../core';
import { agentDirectoryRef, createAgentDirectory } from './agent-directory';
import { ownWebhookEvents } from './agent-events';
import { AgentReader, agentReaderRef } from './agent-reader';
import { AgentService, agentServiceRef } from './agent-service';
import { agentWriterRef, createAgentWriter } from './agent-writer';
import { OWN_SETTINGS_KEYS, agentSettingsSlots } from './agent-settings-slots';
import * as entities from './entities';
import { Migration0001Agents } from './migrations/0001-agents';
import { Migration0002ChannelPublicKey } from './migrations/0002-channel-public-key';
import { agentRoutes } from './routes/agent-routes';
import { intentRoutes } from './routes/intent-routes';
import { phoneAndChannelRoutes } from './routes/phone-channel-routes';
import { procedureRoutes } from './routes/procedure-routes';
import { ruleRoutes } from './routes/rule-routes';
import { textListRoutes } from './routes/text-list-routes';
import { trunkRoutes } from './routes/trunk-routes';
import { webhookRoutes } from './routes/webhook-routes';
import { agentSchema } from './schemas/agent';
import { intentAuthToken, webhookSecret } from './secret-columns';
import { agentWebhookEvents } from './webhook-events';
import { agentChannelsRef, createAgentChannels } from './agent-channels';
import { agentChannelChecks } from './channel-checks';
import { agentMemberChecks } from './member-checks';
import { createWebChatChannels, webChatChannelsRef } from './web-chat-channels';

// The public API of the agents plugin: what other plugins may import.
export { agentDirectoryRef, type AgentDirectory, type IntentWebhookTarget, type WebhookSubscriber } from './agent-directory';
export { agentSettingsSlots, type AgentSettingsSlot } from './agent-settings-slots';
export { defineAgentOverrideSettings, type AgentOverrideSettings } from './agent-overrides/define-agent-override-settings';
export type { AgentOverrideSettingsDefinition, OverrideOrigin, OverrideRow, OverrideSource } from './agent-overrides/override-settings';
export type { EffectiveOverride } from './agent-overrides/override-store';
export { agentWriterRef, AgentChanges, type AgentWriter, type AgentWriteResult, type AgentWriteOptions } from './agent-writer';
export { agentWebhookEvents, type AgentWebhookEvent } from './webhook-events';
export { AGENT_TOPICS, type AgentChangedEvent, type AgentDeletedEvent } from './agent-events';
export type { AgentJson } from './agent-reader';
export { RESERVED_TOOL_NAMES } from './routes/intent-routes';
export type { AgentView, IntentJson, RoutingRuleJson, GuardRuleJson } from './agent-view';
export type { AgentStatus } from './agent-status';
export { webChatChannelsRef, type WebChatChannels, type WebChatChannel } from './web-chat-channels';
export { agentChannelsRef, type AgentChannels, type RoutedAgentChannel, type ConnectionUser } from './agent-channels';
export { agentChannelChecks, type AgentChannelCheck } from './channel-checks';
export { agentMemberChecks, type AgentMemberCheck } from './member-checks';
export type { Appointments as AgentAppointments, ScheduleAssignment } from './schemas/appointments';
export { isLanguageCode, languages, type Language } from './languages/language-catalog';

/** The settings slots other plugins added; they may not take the agent's own members. */
function slotsOf(extensions: ExtensionRegistry) {
  const slots = extensions.items(agentSettingsSlots);
  const taken = slots.find((slot) => (OWN_SETTINGS_KEYS as readonly string[]).includes(slot.key));
  if (taken) throw new BootError(`agent settings slot "${taken.key}" is owned by the agents plugin itself`);
  return slots;
}

export default definePlugin({
  entities: Object.values(entities),
  migrations: [
    { name: '0001-agents', class: Migration0001Agents },
    { name: '0002-channel-public-key', class: Migration0002ChannelPublicKey },
  ],
  provides: [agentSettingsSlots, agentWebhookEvents, agentChannelChecks, agentMemberChecks],
  contributes: ownWebhookEvents.map((event) => agentWebhookEvents.add(event)),
  // One reader and one AgentService per kernel: init's routes and the services below share them.
  services: [
    createServiceFactory({
      service: agentReaderRef,
      deps: {},
      factory: (_, { extensions }) => new AgentReader(slotsOf(extensions)),
    }),
    createServiceFactory({
      service: agentServiceRef,
      deps: { bus: coreServices.bus, secrets: coreServices.secrets, reader: agentReaderRef },
      factory: ({ bus, secrets, reader }, { extensions }) =>
        new AgentService(reader, bus, secrets, new Set(extensions.items(agentWebhookEvents).map((event) => event.name)), extensions.items(agentMemberChecks)),
    }),
    createServiceFactory({
      service: agentDirectoryRef,
      deps: { orm: coreServices.orm, tenant: coreServices.tenant, secrets: coreServices.secrets, reader: agentReaderRef },
      factory: ({ orm, tenant, secrets, reader }) => createAgentDirectory(orm, tenant, secrets, reader),
    }),
    createServiceFactory({ service: webChatChannelsRef, deps: { orm: coreServices.orm }, factory: ({ orm }) => createWebChatChannels(orm) }),
    createServiceFactory({ service: agentChannelsRef, deps: { orm: coreServices.orm, tenants: coreServices.tenant }, factory: ({ orm, tenants }) => createAgentChannels(orm, () => tenants.require()) }),
    createServiceFactory({
      service: agentWriterRef,
      deps: { orm: coreServices.orm, tenant: coreServices.tenant, service: agentServiceRef },
      factory: ({ orm, tenant, service }) => createAgentWriter(orm, tenant, service),
    }),
  ],
  deps: { http: coreServices.http, secrets: coreServices.secrets, quotas: coreServices.quotas, service: agentServiceRef },
  init({ http, secrets, quotas, service }, { extensions }) {
    secrets.declareColumn(webhookSecret);
    secrets.declareColumn(intentAuthToken);
    const slots = slotsOf(extensions);
    const slotSchemas = Object.fromEntries(slots.map((slot) => [slot.key, slot.schema]));
    const events = extensions.items(agentWebhookEvents);
    const agent = agentSchema(slotSchemas);
    const routes = [
      ...agentRoutes({ service, agent, slots: slotSchemas, events, quotas }),
      ...textListRoutes(service, agent),
      ...procedureRoutes(service, agent),
      ...intentRoutes(service, agent),
      ...webhookRoutes(service, agent),
      ...ruleRoutes(service, agent),
      ...phoneAndChannelRoutes(service, agent, extensions.items(agentChannelChecks)),
      ...trunkRoutes(service),
    ];
    for (const route of routes) http.route(route);
  },
});
