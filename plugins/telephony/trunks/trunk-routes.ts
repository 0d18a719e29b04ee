import type { EntityManager } from '@mikro-orm/postgresql';
import {
  ConflictError,
  DataEnvelope,
  NotFoundError,
  ResourceId,
  SuccessEnvelope,
  Type,
  defineRoute,
  deleteRoute,
  findByUuid,
  type AnyRoute,
  type SecretsService,
} from '../../../core';
import type { AgentDirectory } from '../../agents';
import { agentNames } from '../agent-links';
import { SipTrunkConnection } from '../entities';
import { Trunk, TrunkCreate, TrunkPatch, type TrunkJson } from './trunk-schemas';
import { applyTrunkWrite } from './trunk-write';

export interface TrunkRouteDeps {
  agents: AgentDirectory;
  secrets: SecretsService;
  /** Most trunks a tenant may keep: the contract's list is not paged, so it is bounded here. */
  maxPerTenant: number;
}

const PATH = '/api/v1/channels/sip-trunk/connections';
const TAGS = ['telephony'];
const Params = Type.Object({ uuid: ResourceId('telephony.sip_trunk_connection', 'The SIP trunk connection') });

/** What every route shows of a trunk: never its password, sealed or not. */
function trunkJson(row: SipTrunkConnection, names: Map<string, string>): TrunkJson {
  return {
    uuid: row.uuid,
    name: row.name,
    status: row.status,
    agent_uuid: row.agentUuid,
    agent_name: row.agentUuid ? (names.get(row.agentUuid) ?? null) : null,
    phone_number: row.phoneNumbers[0] ?? null,
    phone_numbers: row.phoneNumbers,
    gateway: row.gateway,
    secondary_gateway: row.secondaryGateway,
    port: row.port,
    transport: row.transport,
    auth: { username: row.authUsername, has_password: row.authPassword !== null },
    allowed_ips: row.allowedIps,
    codecs: row.codecs as TrunkJson['codecs'],
    normalizer: row.normalizer,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

/** SIP trunk connections: the list in the contract's `{items, count}` envelope; create, read, update, delete beside it. */
export function trunkRoutes({ agents, secrets, maxPerTenant }: TrunkRouteDeps): AnyRoute[] {
  const found = async (em: EntityManager, uuid: string) => {
    const row = await findByUuid(em, SipTrunkConnection, uuid);
    if (!row) throw new NotFoundError('SIP trunk connection not found');
    return row;
  };
  const one = async (row: SipTrunkConnection) => ({ data: trunkJson(row, await agentNames(agents, [row])) });
  const writeRules =
    'Every problem is a 422 at its path: `gateway` and `secondary_gateway` hostnames or IP addresses (no scheme, port or path), `port` 1 to 65535, ' +
    '`allowed_ips` addresses or CIDR blocks, numbers E.164, `agent_uuid` an agent of this tenant, and the numbers among that agent’s when it has any. ' +
    '`auth.password` is stored encrypted and never returned (`auth.has_password`); no response carries a secret.';

  return [
    defineRoute({
      method: 'GET',
      path: PATH,
      summary: 'List SIP trunk connections, newest first',
      description: `Every trunk of the tenant (at most the \`TELEPHONY_MAX_SIP_TRUNKS\` setting, ${maxPerTenant} here), and their \`count\`.`,
      tags: TAGS,
      response: SuccessEnvelope(Type.Object({ items: Type.Array(Trunk), count: Type.Integer() })),
      handler: async ({ em }) => {
        const rows = await em.find(SipTrunkConnection, {}, { orderBy: { uuid: 'desc' }, limit: maxPerTenant });
        const names = await agentNames(agents, rows);
        return { success: true, message: 'SIP trunk connections', data: { items: rows.map((row) => trunkJson(row, names)), count: rows.length } };
      },
    }),

    defineRoute({
      method: 'POST',
      path: PATH,
      summary: 'Create a SIP trunk connection',
      description:
        'A trunk at a carrier (Twilio Elastic SIP Trunking, Telnyx, an SBC) whose numbers an agent answers and calls from. Defaults: `status` `active` with an agent (else `inactive`), ' +
        `\`transport\` \`udp\`, \`port\` 5060 (5061 with \`tls\`), \`codecs\` PCMU, PCMA. A tenant past its trunk quota: 409. ${writeRules}`,
      tags: TAGS,
      body: TrunkCreate,
      status: 201,
      errors: [409],
      response: DataEnvelope(Trunk),
      handler: async ({ body, em, tenant }) => {
        if ((await em.count(SipTrunkConnection)) >= maxPerTenant) throw new ConflictError(`A tenant may keep at most ${maxPerTenant} SIP trunk connections`);
        const row = new SipTrunkConnection();
        await applyTrunkWrite(row, body, { agents, secrets, tenantUuid: tenant.uuid });
        em.persist(row);
        await em.flush();
        return one(row);
      },
    }),

    defineRoute({
      method: 'GET',
      path: `${PATH}/:uuid`,
      summary: 'Read a SIP trunk connection',
      description: 'Without its password, which no route returns.',
      tags: TAGS,
      params: Params,
      errors: [404],
      response: DataEnvelope(Trunk),
      handler: async ({ params, em }) => one(await found(em, params.uuid)),
    }),

    defineRoute({
      method: 'PATCH',
      path: `${PATH}/:uuid`,
      summary: 'Update a SIP trunk connection',
      description: `The members sent change; in \`auth\` and \`normalizer\` member by member, the rest keep their value. \`agent_uuid: null\` lets go of the agent and makes the trunk \`inactive\`. ${writeRules}`,
      tags: TAGS,
      params: Params,
      body: TrunkPatch,
      errors: [404],
      response: DataEnvelope(Trunk),
      handler: async ({ params, body, em, tenant }) => {
        const row = await found(em, params.uuid);
        await applyTrunkWrite(row, body, { agents, secrets, tenantUuid: tenant.uuid });
        await em.flush();
        return one(row);
      },
    }),

    deleteRoute({
      path: `${PATH}/:uuid`,
      summary: 'Delete a SIP trunk connection',
      tags: TAGS,
      params: Params,
      message: 'SIP trunk connection deleted',
      remove: async ({ params, em }) => em.remove(await found(em, params.uuid)),
    }),
  ];
}
