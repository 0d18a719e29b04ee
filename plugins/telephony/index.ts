import { configRef, coreServices, definePlugin } from '../../core';
import { agentDirectoryRef } from '../agents';
import { releaseDeletedAgents } from './agent-links';
import { connectorRoutes } from './connectors/connector-routes';
import * as entities from './entities';
import { Migration0001Telephony } from './migrations/0001-telephony';
import { connectorPassword, trunkPassword } from './secret-columns';
import { telephonyConfig } from './telephony-config';
import { trunkRoutes } from './trunks/trunk-routes';

/** Telephony configuration: PBX extension connectors and SIP trunk connections, each bound to an agent. */
export default definePlugin({
  entities: Object.values(entities),
  migrations: [{ name: '0001-telephony', class: Migration0001Telephony }],
  config: telephonyConfig,
  deps: { http: coreServices.http, bus: coreServices.bus, secrets: coreServices.secrets, config: configRef(telephonyConfig), agents: agentDirectoryRef },
  init({ http, bus, secrets, config, agents }) {
    secrets.declareColumn(connectorPassword);
    secrets.declareColumn(trunkPassword);
    const settings = config.all();
    const routes = [
      ...connectorRoutes({ agents, secrets, sipConnectorServer: settings.sipConnectorServer || null }),
      ...trunkRoutes({ agents, secrets, maxPerTenant: settings.maxSipTrunksPerTenant }),
    ];
    for (const route of routes) http.route(route);
    releaseDeletedAgents(bus);
  },
});
