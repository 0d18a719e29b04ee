import { boundQuery, createServiceRef, preparedStatement, type OrmService, type SecretsService, type TenantService } from '../../core';
import type { AgentJson, AgentReader } from './agent-reader';
import { intentAuthToken, webhookSecret } from './secret-columns';

export interface IntentWebhookTarget {
  url: string;
  /** The intent's credential, decrypted for the call; null when it has none. */
  authToken: string | null;
}

export interface WebhookSubscriber {
  webhookUuid: string;
  url: string;
  /** The signing secret, decrypted; null when the webhook has none. */
  secret: string | null;
}

/**
 * The agents plugin's read API for other plugins, always for the current tenant
 * (the request's, or the bus message's) and inside the current transaction.
 */
export interface AgentDirectory {
  /** Whether the agent exists in the current tenant. */
  exists(agentUuid: string): Promise<boolean>;
  /** Names of these agents of the current tenant, by uuid, in one query; unknown ones are absent. */
  names(agentUuids: readonly string[]): Promise<Map<string, string>>;
  /** The agent's effective configuration, exactly as `GET /api/v1/agents/{uuid}` returns it. */
  get(agentUuid: string): Promise<AgentJson | null>;
  /** As `get` without the settings slots other plugins add (`settings.memorize`, ...): what the agent runtime reads each turn. */
  getWithoutSlots(agentUuid: string): Promise<AgentJson | null>;
  /** Where and with what credential an intent's webhook is called; null without a webhook. */
  intentWebhook(agentUuid: string, intentUuid: string): Promise<IntentWebhookTarget | null>;
  /** The agent's active webhooks subscribed to `event`, by uuid. */
  webhookSubscribers(agentUuid: string, event: string): Promise<WebhookSubscriber[]>;
  /** One of them (a delivery's webhook before each attempt); null once it is deleted, inactive or no longer subscribed. */
  webhookSubscriber(agentUuid: string, webhookUuid: string, event: string): Promise<WebhookSubscriber | null>;
  /** The agents of the current tenant whose `appointments.schedule_assignments` name this schedule (uuid and name, by name). */
  assigningSchedule(scheduleUuid: string): Promise<Array<{ uuid: string; name: string }>>;
}

/** Read on every intent tool call of a turn: prepared, and without the join MikroORM adds to filter the agent by tenant too. */
const INTENT_WEBHOOK = preparedStatement(
  'agents.intent-webhook',
  'select webhook_url, webhook_auth_token from agent_intents where tenant_uuid = $1 and uuid = $2 and agent_uuid = $3',
);

/**
 * An agent's webhooks subscribed to an event: read for every event published (fan-out)
 * and before every delivery attempt, so prepared, and without the join MikroORM adds to
 * filter the agent by tenant too. `$4` narrows to one webhook, or is null for all.
 */
const WEBHOOK_SUBSCRIBERS = preparedStatement(
  'agents.webhook-subscribers',
  'select uuid, url, secret from agent_webhooks where tenant_uuid = $1 and agent_uuid = $2 and is_active and events @> jsonb_build_array($3::text) ' +
    'and ($4::uuid is null or uuid = $4::uuid) order by uuid',
);

export const agentDirectoryRef = createServiceRef<AgentDirectory>('agents.directory');

export function createAgentDirectory(orm: OrmService, tenants: TenantService, secrets: SecretsService, reader: AgentReader): AgentDirectory {
  const subscribers = async (agentUuid: string, event: string, webhookUuid: string | null): Promise<WebhookSubscriber[]> => {
    const tenant = tenants.require();
    const hooks = await boundQuery<{ uuid: string; url: string; secret: string | null }>(orm.em, WEBHOOK_SUBSCRIBERS, [tenant.uuid, agentUuid, event, webhookUuid]);
    return hooks.map((hook) => ({ webhookUuid: hook.uuid, url: hook.url, secret: hook.secret ? secrets.decrypt(hook.secret, webhookSecret.context(tenant.uuid)) : null }));
  };
  return {
    async exists(agentUuid) {
      const tenant = tenants.require();
      const rows = await orm.em.getConnection().execute(`select 1 from agents where uuid = ? and tenant_uuid = ?`, [agentUuid, tenant.uuid], 'all', orm.em.getTransactionContext());
      return rows.length > 0;
    },
    async names(agentUuids) {
      if (agentUuids.length === 0) return new Map();
      const tenant = tenants.require();
      const unique = [...new Set(agentUuids)];
      const rows: Array<{ uuid: string; name: string }> = await orm.em
        .getConnection()
        .execute(`select uuid, name from agents where tenant_uuid = ? and uuid in (${unique.map(() => '?').join(', ')})`, [tenant.uuid, ...unique], 'all', orm.em.getTransactionContext());
      return new Map(rows.map((row) => [row.uuid, row.name]));
    },
    async assigningSchedule(scheduleUuid) {
      const tenant = tenants.require();
      const wanted = JSON.stringify([{ schedule_uuid: scheduleUuid }]);
      return orm.em
        .getConnection()
        .execute(
          `select uuid, name from agents where tenant_uuid = ? and appointments -> 'schedule_assignments' @> ?::jsonb order by name, uuid`,
          [tenant.uuid, wanted],
          'all',
          orm.em.getTransactionContext(),
        );
    },
    get: (agentUuid) => reader.one(orm.em, tenants.require().uuid, agentUuid),
    getWithoutSlots: (agentUuid) => reader.one(orm.em, tenants.require().uuid, agentUuid, { slots: false }),
    async intentWebhook(agentUuid, intentUuid) {
      const tenant = tenants.require();
      const [intent] = await boundQuery<{ webhook_url: string | null; webhook_auth_token: string | null }>(orm.em, INTENT_WEBHOOK, [tenant.uuid, intentUuid, agentUuid]);
      if (!intent?.webhook_url) return null;
      const authToken = intent.webhook_auth_token ? secrets.decrypt(intent.webhook_auth_token, intentAuthToken.context(tenant.uuid)) : null;
      return { url: intent.webhook_url, authToken };
    },
    webhookSubscribers: (agentUuid, event) => subscribers(agentUuid, event, null),
    webhookSubscriber: async (agentUuid, webhookUuid, event) => (await subscribers(agentUuid, event, webhookUuid))[0] ?? null,
  };
}
