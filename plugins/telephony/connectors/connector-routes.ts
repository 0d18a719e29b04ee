import type { EntityManager } from '@mikro-orm/postgresql';
import {
  DataEnvelope,
  ListEnvelope,
  NotFoundError,
  ResourceId,
  Type,
  defineRoute,
  deleteRoute,
  findByUuid,
  pageOf,
  pageWindow,
  type AnyRoute,
  type SecretsService,
} from '../../../core';
import type { AgentDirectory } from '../../agents';
import { agentNames } from '../agent-links';
import { PbxExtensionConnector } from '../entities';
import { Connector, ConnectorCreate, ConnectorPatch, ConnectorQuery, type ConnectorJson } from './connector-schemas';
import { applyConnectorWrite } from './connector-write';

export interface ConnectorRouteDeps {
  agents: AgentDirectory;
  secrets: SecretsService;
  /** `sip_connector_server` of every connector; null when the installation has not set it. */
  sipConnectorServer: string | null;
}

const PATH = '/api/v1/pbx_extension_connectors';
const TAGS = ['telephony'];
const Params = Type.Object({ uuid: ResourceId('telephony.pbx_extension_connector', 'The PBX extension connector') });

/** What every route shows of a connector: never its password, sealed or not. */
function connectorJson(row: PbxExtensionConnector, names: Map<string, string>, sipConnectorServer: string | null): ConnectorJson {
  return {
    pbx_extension_connector_uuid: row.uuid,
    name: row.name,
    status: row.status,
    phone_number: row.phoneNumber,
    agent_uuid: row.agentUuid,
    agent_name: row.agentUuid ? (names.get(row.agentUuid) ?? null) : null,
    sip_connector_server: sipConnectorServer,
    connection_type: row.connectionType,
    setup_mode: row.setupMode,
    pbx: { registrar_server: row.registrarServer, port: row.port, username_extension: row.usernameExtension },
    inbound: { allowed_ip: row.allowedIp },
    auth: { has_separate_credentials: row.separateCredentials, username: row.authUsername, has_password: row.authPassword !== null },
    normalizer: row.normalizer,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

/** `+14155550100`, `14155550100` and ` 14155550100` (a `+` a query string turned into a space) are one number. */
const e164 = (number: string) => `+${number.replace(/^[+ ]/, '')}`;

/** PBX extension connectors: CRUD, the list in the contract's paginated envelope. */
export function connectorRoutes({ agents, secrets, sipConnectorServer }: ConnectorRouteDeps): AnyRoute[] {
  const found = async (em: EntityManager, uuid: string) => {
    const row = await findByUuid(em, PbxExtensionConnector, uuid);
    if (!row) throw new NotFoundError('PBX extension connector not found');
    return row;
  };
  const one = async (row: PbxExtensionConnector) => ({ data: connectorJson(row, await agentNames(agents, [row]), sipConnectorServer) });
  const writeRules =
    'Every problem is a 422 at its path: `pbx.registrar_server` a hostname or IP address (no scheme, port or path), `pbx.port` 1 to 65535, ' +
    '`inbound.allowed_ip` addresses or CIDR blocks, `phone_number` E.164, `agent_uuid` an agent of this tenant, and `phone_number` one of that agent’s numbers when it has any. ' +
    '`auth.password` is stored encrypted and never returned (`auth.has_password`).';

  return [
    defineRoute({
      method: 'POST',
      path: PATH,
      summary: 'Create a PBX extension connector',
      description: `Binds an agent to an extension of the tenant’s PBX. Defaults: \`status\` \`active\` with an agent (else \`inactive\`), \`connection_type\` \`udp\`, \`setup_mode\` \`both\`, \`pbx.port\` 5060 (5061 with \`tls\`). ${writeRules}`,
      tags: TAGS,
      body: ConnectorCreate,
      status: 201,
      response: DataEnvelope(Connector),
      handler: async ({ body, em, tenant }) => {
        const row = new PbxExtensionConnector();
        await applyConnectorWrite(row, body, { agents, secrets, tenantUuid: tenant.uuid, isNew: true });
        em.persist(row);
        await em.flush();
        return one(row);
      },
    }),

    defineRoute({
      method: 'GET',
      path: PATH,
      summary: 'List PBX extension connectors, newest first',
      description: 'Filters combine: `agent_uuid`, `phone_number` (E.164, the `+` optional), `status`. `per_page` defaults to 20, at most 100.',
      tags: TAGS,
      query: ConnectorQuery,
      response: ListEnvelope(Connector),
      handler: async ({ query, em }) => {
        const where = {
          ...(query.agent_uuid ? { agentUuid: query.agent_uuid } : {}),
          ...(query.phone_number ? { phoneNumber: e164(query.phone_number) } : {}),
          ...(query.status ? { status: query.status } : {}),
        };
        const [rows, total] = await em.findAndCount(PbxExtensionConnector, where, { orderBy: { uuid: 'desc' }, ...pageWindow(query) });
        const names = await agentNames(agents, rows);
        return pageOf(
          rows.map((row) => connectorJson(row, names, sipConnectorServer)),
          total,
          query,
        );
      },
    }),

    defineRoute({
      method: 'GET',
      path: `${PATH}/:uuid`,
      summary: 'Read a PBX extension connector',
      description: 'Without its password, which no route returns.',
      tags: TAGS,
      params: Params,
      errors: [404],
      response: DataEnvelope(Connector),
      handler: async ({ params, em }) => one(await found(em, params.uuid)),
    }),

    defineRoute({
      method: 'PATCH',
      path: `${PATH}/:uuid`,
      summary: 'Update a PBX extension connector',
      description: `The members sent change; in \`pbx\`, \`inbound\`, \`auth\` and \`normalizer\` member by member, the rest keep their value. \`agent_uuid: null\` lets go of the agent and makes the connector \`inactive\`. ${writeRules}`,
      tags: TAGS,
      params: Params,
      body: ConnectorPatch,
      errors: [404],
      response: DataEnvelope(Connector),
      handler: async ({ params, body, em, tenant }) => {
        const row = await found(em, params.uuid);
        await applyConnectorWrite(row, body, { agents, secrets, tenantUuid: tenant.uuid, isNew: false });
        await em.flush();
        return one(row);
      },
    }),

    deleteRoute({
      path: `${PATH}/:uuid`,
      summary: 'Delete a PBX extension connector',
      tags: TAGS,
      params: Params,
      message: 'PBX extension connector deleted',
      remove: async ({ params, em }) => em.remove(await found(em, params.uuid)),
    }),
  ];
}
