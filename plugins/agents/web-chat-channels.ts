import { createServiceRef, type OrmService, type TenantRef } from '../../core';

/** A `web_chat` channel as a visitor's browser reaches it: by its public key, with no tenant. */
export interface WebChatChannel {
  tenant: TenantRef;
  agent_uuid: string;
  channel_uuid: string;
  /** The origins whose pages may talk to it (config.allowed_origins), as validated when written. */
  allowed_origins: string[];
  /** The channel's own switch. */
  is_active: boolean;
  /** Whether its agent is `active` (only active agents answer). */
  agent_active: boolean;
}

/**
 * For the web-chat plugin: the one read of agent channels that is not scoped to a tenant,
 * since the visitor brings none; the key is unique across tenants. The tenant must be
 * active: a suspended or departing tenant's widgets find nothing.
 */
export interface WebChatChannels {
  find(publicKey: string): Promise<WebChatChannel | null>;
}

export const webChatChannelsRef = createServiceRef<WebChatChannels>('agents.webChatChannels');

const FIND =
  'select c.uuid as channel_uuid, c.agent_uuid, c.is_active, c.config, a.status as agent_status, t.uuid as tenant_uuid, t.slug, t.name ' +
  'from agent_channels c join agents a on a.uuid = c.agent_uuid join tenants t on t.uuid = c.tenant_uuid ' +
  "where c.public_key = ? and c.type = 'web_chat' and t.status = 'active'";

export function createWebChatChannels(orm: OrmService): WebChatChannels {
  return {
    async find(publicKey) {
      const [row]: Array<Record<string, any>> = await orm.em.getConnection().execute(FIND, [publicKey], 'all', orm.em.getTransactionContext());
      if (!row) return null;
      const origins = row.config?.allowed_origins;
      return {
        tenant: { uuid: row.tenant_uuid, slug: row.slug, name: row.name },
        agent_uuid: row.agent_uuid,
        channel_uuid: row.channel_uuid,
        allowed_origins: Array.isArray(origins) ? origins.filter((origin): origin is string => typeof origin === 'string') : [],
        is_active: row.is_active,
        agent_active: row.agent_status === 'active',
      };
    },
  };
}
