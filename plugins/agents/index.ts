import { BootError, coreServices, createServiceFactory, definePlugin, type ExtensionRegistry } from '../../core';
import { agentDirectoryRef, createAgentDirectory } from './agent-directory';
import { ownWebhookEvents } from './agent-events';
import { AgentReader } from './agent-reader';
import { AgentService } from './agent-service';
import { agentWriterRef, createAgentWriter } from './agent-writer';
import { OWN_SETTINGS_KEYS, agentSettingsSlots } from './agent-settings-slots';
import * as entities from './entities';
import { Migration0001Agents } from './migrations/0001-agents';
import { registerAgentRoutes } from './routes/agent-routes';
import { registerIntentRoutes } from './routes/intent-routes';
import { registerPhoneAndChannelRoutes } from './routes/phone-channel-routes';
import { registerProcedureRoutes } from './routes/procedure-routes';
import { registerRuleRoutes } from './routes/rule-routes';
import { registerTextListRoutes } from './routes/text-list-routes';
import { registerWebhookRoutes } from './routes/webhook-routes';
import { agentSchema } from './schemas/agent';
import { intentAuthToken, webhookSecret } from './secret-columns';
import { agentWebhookEvents } from './webhook-events';

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
export { isLanguageCode, languages, type Language } from './languages/language-catalog';

/** The settings slots other plugins added; they may not take the agent's own members. */
function slotsOf(extensions: ExtensionRegistry) {
  const slots = extensions.items(agentSettingsSlots);
  const taken = slots.find((slot) => (OWN_SETTINGS_KEYS as readonly string[]).includes(slot.key));
  if (taken) throw new BootError(`agent settings slot "${taken.key}" is owned by the agents plugin itself`);
  return slots;
}

export default definePlugin({
  id: 'agents',
  entities: Object.values(entities),
  migrations: [{ name: '0001-agents', class: Migration0001Agents }],
  provides: [agentSettingsSlots, agentWebhookEvents],
  contributes: ownWebhookEvents.map((event) => agentWebhookEvents.add(event)),
  services: [
    createServiceFactory({
      service: agentDirectoryRef,
      deps: { orm: coreServices.orm, tenant: coreServices.tenant, secrets: coreServices.secrets },
      factory: ({ orm, tenant, secrets }, { extensions }) => createAgentDirectory(orm, tenant, secrets, new AgentReader(slotsOf(extensions))),
    }),
    createServiceFactory({
      service: agentWriterRef,
      deps: { orm: coreServices.orm, tenant: coreServices.tenant, bus: coreServices.bus, secrets: coreServices.secrets },
      factory: ({ orm, tenant, bus, secrets }, { extensions }) => {
        const events = new Set(extensions.items(agentWebhookEvents).map((event) => event.name));
        return createAgentWriter(orm, tenant, new AgentService(new AgentReader(slotsOf(extensions)), bus, secrets, events));
      },
    }),
  ],
  deps: { http: coreServices.http, bus: coreServices.bus, secrets: coreServices.secrets, quotas: coreServices.quotas },
  init({ http, bus, secrets, quotas }, { extensions }) {
    secrets.declareColumn(webhookSecret);
    secrets.declareColumn(intentAuthToken);
    const slots = slotsOf(extensions);
    const slotSchemas = Object.fromEntries(slots.map((slot) => [slot.key, slot.schema]));
    const events = extensions.items(agentWebhookEvents);
    const service = new AgentService(new AgentReader(slots), bus, secrets, new Set(events.map((event) => event.name)));
    const agent = agentSchema(slotSchemas);
    registerAgentRoutes(http, service, agent, slotSchemas, events, quotas);
    registerTextListRoutes(http, service, agent);
    registerProcedureRoutes(http, service, agent);
    registerIntentRoutes(http, service, agent);
    registerWebhookRoutes(http, service, agent);
    registerRuleRoutes(http, service, agent);
    registerPhoneAndChannelRoutes(http, service, agent);
  },
});
