import type { EntityManager } from '@mikro-orm/postgresql';
import { createServiceRef, type OrmService, type TenantRef } from '../../core';

/** An agent channel as a provider's webhook reaches it: by its uuid, with no tenant. */
export interface RoutedAgentChannel {
  tenant: TenantRef;
  agent_uuid: string;
  channel_uuid: string;
  type: string;
  name: string;
  is_active: boolean;
  /** Whether its agent is `active` (only active agents answer). */
  agent_active: boolean;
  config: Record<string, unknown>;
}

/** A channel of the current tenant that names a connection in `config.connection_uuid`. */
export interface ConnectionUser {
  channel_uuid: string;
  agent_uuid: string;
  name: string;
  type: string;
}

/**
 * For the channels plugin: reads of agent channels it cannot make through the agent API.
 * `find` is not scoped to a tenant (a provider's hook names only the channel; its uuid is
 * unique across tenants) and finds nothing of a tenant that is not active.
 */
export interface AgentChannels {
  find(channelUuid: string): Promise<RoutedAgentChannel | null>;
  /** The channels of the current tenant whose `config.connection_uuid` is `connectionUuid` (what must go before the connection can). */
  usingConnection(em: EntityManager, connectionUuid: string): Promise<ConnectionUser[]>;
  /** The agent of the current tenant owning this number with `capabilities.call`, active (an incoming call is theirs); null when none. */
  callOwner(em: EntityManager, number: string): Promise<string | null>;
}

export const agentChannelsRef = createServiceRef<AgentChannels>('agents.agentChannels');

const FIND =
  'select c.uuid as channel_uuid, c.agent_uuid, c.type, c.name, c.is_active, c.config, a.status as agent_status, t.uuid as tenant_uuid, t.slug, t.name as tenant_name ' +
  'from agent_channels c join agents a on a.uuid = c.agent_uuid join tenants t on t.uuid = c.tenant_uuid ' +
  "where c.uuid = ? and t.status = 'active'";

// The tenant filter of the ORM does not reach raw SQL: the current tenant is an explicit condition.
const USING =
  "select c.uuid as channel_uuid, c.agent_uuid, c.name, c.type from agent_channels c where c.tenant_uuid = ? and c.config->>'connection_uuid' = ? order by c.uuid";

const CALL_OWNER =
  "select agent_uuid from agent_phone_numbers where tenant_uuid = ? and number = ? and status = 'active' and (capabilities->>'call')::boolean is true limit 1";

export function createAgentChannels(orm: OrmService, currentTenant: () => TenantRef): AgentChannels {
  return {
    async find(channelUuid) {
      const [row]: Array<Record<string, any>> = await orm.em.getConnection().execute(FIND, [channelUuid], 'all');
      if (!row) return null;
      return {
        tenant: { uuid: row.tenant_uuid, slug: row.slug, name: row.tenant_name },
        agent_uuid: row.agent_uuid,
        channel_uuid: row.channel_uuid,
        type: row.type,
        name: row.name,
        is_active: row.is_active,
        agent_active: row.agent_status === 'active',
        config: row.config ?? {},
      };
    },
    async usingConnection(em, connectionUuid) {
      return em.getConnection().execute(USING, [currentTenant().uuid, connectionUuid], 'all', em.getTransactionContext());
    },
    async callOwner(em, number) {
      const [row]: Array<{ agent_uuid: string }> = await em.getConnection().execute(CALL_OWNER, [currentTenant().uuid, number], 'all', em.getTransactionContext());
      return row?.agent_uuid ?? null;
    },
  };
}
