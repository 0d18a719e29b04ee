import { coreServices, definePlugin } from '../../core';
import { AGENT_TOPICS, agentDirectoryRef, agentSettingsSlots, type AgentDeletedEvent } from '../agents';
import { MemorizeSettings } from './memorize-settings.entity';
import { loadEffective } from './memorize-store';
import { Migration0001Memorize } from './migrations/0001-memorize';
import { registerMemorizeRoutes } from './routes';
import { MemorizeSettingsSchema } from './schemas';

export { MemorizeSettingsSchema, type MemorizeSettingsJson } from './schemas';

/**
 * Memorize settings: what an agent remembers about its contacts. One tenant-wide
 * default and per-agent overrides; every agent shows its effective settings as
 * `settings.memorize`.
 */
export default definePlugin({
  id: 'memorize',
  dependsOn: ['agents'],
  entities: [MemorizeSettings],
  migrations: [{ name: '0001-memorize', class: Migration0001Memorize }],
  contributes: [agentSettingsSlots.add({ key: 'memorize', schema: MemorizeSettingsSchema, load: loadEffective })],
  deps: { http: coreServices.http, bus: coreServices.bus, agents: agentDirectoryRef },
  init({ http, bus, agents }) {
    registerMemorizeRoutes(http, agents);
    // No foreign key to `agents` (see the migration): an agent's override goes when the agent does.
    bus.consume<AgentDeletedEvent>({ name: 'forget-deleted-agent', topics: [AGENT_TOPICS.deleted] }, async (message, { em }) => {
      if (!message.tenant) return;
      await em.nativeDelete(MemorizeSettings, { tenantUuid: message.tenant.uuid, agentUuid: message.payload.agent_uuid });
    });
  },
});
