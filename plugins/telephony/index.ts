import { configRef, coreServices, createServiceFactory, definePlugin } from '../../core';
import { agentDirectoryRef } from '../agents';
import { releaseDeletedAgents } from './agent-links';
import { connectorRoutes } from './connectors/connector-routes';
import * as entities from './entities';
import { Migration0001Telephony } from './migrations/0001-telephony';
import { createPbxDirectory, pbxDirectoryRef } from './pbx-directory';
import { connectorPassword, trunkPassword } from './secret-columns';
import { telephonyConfig } from './telephony-config';
import { trunkRoutes } from './trunks/trunk-routes';

// The public API of the telephony plugin: what the calls plugin reads to hand a call to a PBX extension.
export { pbxDirectoryRef, type PbxDirectory, type PbxExtension } from './pbx-directory';

/** Telephony configuration: PBX extension connectors and SIP trunk connections, each bound to an agent. */
export default definePlugin({
  entities: Object.values(entities),
  migrations: [{ name: '0001-telephony', class: Migration0001Telephony }],
  config: telephonyConfig,
  services: [
    createServiceFactory({
      service: pbxDirectoryRef,
      deps: { orm: coreServices.orm, tenants: coreServices.tenant },
      factory: ({ orm, tenants }) => createPbxDirectory(orm, tenants),
    }),
  ],
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
