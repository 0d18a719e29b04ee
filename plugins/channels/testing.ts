import { newUuid } from '../../core';
import type { ResourceFixtures } from '../../core/testing';

/** A row of the owner, written straight into the database, with the uuid it answers. */
async function inserted(kit: Parameters<ResourceFixtures[string]>[1], sql: string, values: (uuid: string) => unknown[]): Promise<string> {
  const uuid = newUuid();
  await kit.kernel.orm.em.fork().getConnection().execute(sql, values(uuid));
  return uuid;
}

/**
 * The owner's rows, written straight into the database: creating them over the API asks
 * the provider (a connection's credentials check, a template's submission), which the
 * sweep's kernel cannot reach. What they hold is never opened by the routes the sweep calls.
 */
export const fixtures: ResourceFixtures = {
  'channels.connection': async (owner, kit) => ({
    'channels.connection': await inserted(
      kit,
      `insert into channel_connections (uuid, tenant_uuid, created_at, updated_at, provider, label, credentials, config) values (?, ?, now(), now(), 'sweep', 'Sweep', 'sealed', '{}')`,
      (uuid) => [uuid, owner.tenant.uuid],
    ),
  }),
  'channels.chatapp_template': async (owner, kit) => ({
    'channels.chatapp_template': await inserted(
      kit,
      `insert into chatapp_templates (uuid, tenant_uuid, created_at, updated_at, connection_uuid, waba_id, platform_id, name, language, category, status, components, parameters) ` +
        `values (?, ?, now(), now(), ?, 'sweep-waba', ?, 'sweep', 'en_US', 'UTILITY', 'APPROVED', '[]', '{}')`,
      (uuid) => [uuid, owner.tenant.uuid, newUuid(), `sweep-${uuid}`],
    ),
  }),
};

/** Members the sweep cannot call with the owner's own id (so its refusal of another tenant's proves nothing there). */
export const unswept: Record<string, string> = {
  'POST /api/v1/chatapp/templates connection_uuid':
    'the owner’s own chatapp connection submits the template to the platform, which the sweep’s kernel cannot reach; another tenant’s is refused with 422 and no platform call in test/plugins/channels/templates',
  'POST /api/v1/channel-connections/:uuid/register-webhook channel_uuid':
    'the sweep’s connection has no driver that registers hooks (409 before any channel is read), and its channel does not use it; another tenant’s channel is refused with 422 and no provider call in test/e2e/channels/providers.test.ts (Telegram)',
};
