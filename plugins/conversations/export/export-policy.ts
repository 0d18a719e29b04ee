import type { EntityManager } from '@mikro-orm/postgresql';
import { newUuid } from '../../../core';
import { MessageExportSetting, type ExportPolicy } from '../entities/message-export-setting.entity';

/** The workspace's export policy as the API returns it: `updated_at` is null until it is first saved. */
export interface ExportPolicyJson {
  policy: ExportPolicy;
  updated_at: string | null;
}

/** A tenant without a saved policy exports everything. */
export const DEFAULT_POLICY: ExportPolicy = 'enabled';

/** The current tenant's policy (the tenant filter scopes the read). */
export async function readPolicy(em: EntityManager): Promise<ExportPolicyJson> {
  const row = await em.findOne(MessageExportSetting, {});
  return row ? { policy: row.policy, updated_at: row.updatedAt.toISOString() } : { policy: DEFAULT_POLICY, updated_at: null };
}

/**
 * Saves the tenant's policy: one upsert on the tenant's unique row, so two first
 * saves at once cannot both insert. Raw SQL bypasses the tenant filter: the tenant is given.
 */
export async function savePolicy(em: EntityManager, tenantUuid: string, policy: ExportPolicy): Promise<ExportPolicyJson> {
  const now = new Date();
  await em
    .getConnection()
    .execute(
      `insert into "message_export_settings" ("uuid", "tenant_uuid", "created_at", "updated_at", "policy") values (?, ?, ?, ?, ?) ` +
        `on conflict ("tenant_uuid") do update set "policy" = excluded."policy", "updated_at" = excluded."updated_at"`,
      [newUuid(), tenantUuid, now, now, policy],
      'run',
      em.getTransactionContext(),
    );
  return { policy, updated_at: now.toISOString() };
}
