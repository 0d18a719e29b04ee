import { coreServices, definePlugin } from '../../core';
import { agentDirectoryRef, agentSettingsSlots } from '../agents';
import { MemorizeSettings } from './memorize-settings.entity';
import { memorizeOverrides } from './memorize-overrides';
import { Migration0001Memorize } from './migrations/0001-memorize';
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
  contributes: [agentSettingsSlots.add({ key: 'memorize', schema: MemorizeSettingsSchema, load: memorizeOverrides.loadEffective })],
  deps: { http: coreServices.http, bus: coreServices.bus, agents: agentDirectoryRef },
  init({ http, bus, agents }) {
    memorizeOverrides.registerRoutes(http, agents);
    memorizeOverrides.forgetDeletedAgents(bus);
  },
});
