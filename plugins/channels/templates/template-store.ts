import type { EntityManager } from '@mikro-orm/postgresql';
import { boundQuery, findByUuid, type SecretsService } from '../../../core';
import { openConnection } from '../connections/connection-store';
import { ChannelConnection, ChatappTemplate } from '../entities';
import type { GraphTemplate } from './template-graph';
import { parametersOf } from './template-parameters';

/** The credentials of a chatapp connection that template calls need. */
export interface ChatappAccount {
  connectionUuid: string;
  wabaId: string;
  phoneNumberId: string;
  accessToken: string;
}

function accountOf(secrets: SecretsService, row: ChannelConnection): ChatappAccount {
  const { credentials } = openConnection(secrets, row);
  return {
    connectionUuid: row.uuid,
    wabaId: String(credentials.business_account_id ?? ''),
    phoneNumberId: String(credentials.phone_number_id ?? ''),
    accessToken: String(credentials.access_token ?? ''),
  };
}

/** A chatapp connection of the current tenant (em's tenant filter), opened; null when it is not one. */
export async function chatappAccount(em: EntityManager, secrets: SecretsService, connectionUuid: string): Promise<ChatappAccount | null> {
  const row = await findByUuid(em, ChannelConnection, connectionUuid);
  return row && row.provider === 'chatapp' ? accountOf(secrets, row) : null;
}

/**
 * The chatapp connection of the current tenant whose business account is `wabaId`
 * (credentials are sealed, so each is opened; a tenant has few), the oldest first.
 */
export async function accountForWaba(em: EntityManager, secrets: SecretsService, wabaId: string): Promise<ChatappAccount | null> {
  const rows = await em.find(ChannelConnection, { provider: 'chatapp' }, { orderBy: { createdAt: 'asc', uuid: 'asc' } });
  for (const row of rows) {
    const account = accountOf(secrets, row);
    if (account.wabaId === wabaId) return account;
  }
  return null;
}

export const templateJson = (row: ChatappTemplate) => ({
  uuid: row.uuid,
  connection_uuid: row.connectionUuid,
  waba_id: row.wabaId,
  template_id: row.platformId,
  name: row.name,
  language: row.language,
  category: row.category,
  status: row.status,
  status_reason: row.statusReason,
  components: row.components,
  parameters: row.parameters,
  created_at: row.createdAt.toISOString(),
  updated_at: row.updatedAt.toISOString(),
});

/**
 * Inserts the templates, or updates the row with the same platform id; a row whose
 * values are unchanged is not touched (so a repeated sync changes nothing). Answers how
 * many templates the tenant has for the business account afterwards.
 */
export async function upsertTemplates(em: EntityManager, tenantUuid: string, account: ChatappAccount, templates: readonly GraphTemplate[]): Promise<number> {
  if (templates.length > 0) {
    const rows = templates.map((template) => ({ ...template, parameters: parametersOf(template.components) }));
    await boundQuery(
      em,
      'insert into chatapp_templates (uuid, tenant_uuid, created_at, updated_at, connection_uuid, waba_id, platform_id, name, language, category, status, components, parameters) ' +
        'select gen_random_uuid(), $1, now(), now(), $2, $3, t.id, t.name, t.language, t.category, t.status, t.components, t.parameters ' +
        'from jsonb_to_recordset($4::jsonb) as t(id text, name text, language text, category text, status text, components jsonb, parameters jsonb) ' +
        'on conflict (tenant_uuid, platform_id) do update set connection_uuid = excluded.connection_uuid, waba_id = excluded.waba_id, name = excluded.name, language = excluded.language, ' +
        'category = excluded.category, status = excluded.status, components = excluded.components, parameters = excluded.parameters, updated_at = now(), ' +
        // A status the sync changes drops the reason the status webhook gave for the old one.
        'status_reason = case when chatapp_templates.status is distinct from excluded.status then null else chatapp_templates.status_reason end ' +
        'where (chatapp_templates.connection_uuid, chatapp_templates.waba_id, chatapp_templates.name, chatapp_templates.language, chatapp_templates.category, chatapp_templates.status, chatapp_templates.components, chatapp_templates.parameters) ' +
        'is distinct from (excluded.connection_uuid, excluded.waba_id, excluded.name, excluded.language, excluded.category, excluded.status, excluded.components, excluded.parameters)',
      [tenantUuid, account.connectionUuid, account.wabaId, JSON.stringify(rows)],
    );
  }
  const [count] = await boundQuery<{ total: string }>(em, 'select count(*) as total from chatapp_templates where tenant_uuid = $1 and waba_id = $2', [tenantUuid, account.wabaId]);
  return Number(count?.total ?? 0);
}

/**
 * A template's status as the platform's status webhook tells it (`message_template_status_update`),
 * found by its platform id under the business account the webhook came from; a template
 * not stored here (created elsewhere and never synced) is left alone. Answers whether one changed.
 */
export async function applyTemplateStatus(em: EntityManager, tenantUuid: string, update: { wabaId: string; templateId: string; status: string; reason: string | null }): Promise<boolean> {
  const rows = await boundQuery<{ uuid: string }>(
    em,
    'update chatapp_templates set status = $4, status_reason = $5, updated_at = now() where tenant_uuid = $1 and waba_id = $2 and platform_id = $3 ' +
      'and (status, status_reason) is distinct from ($4, $5) returning uuid',
    [tenantUuid, update.wabaId, update.templateId, update.status, update.reason],
  );
  return rows.length > 0;
}
