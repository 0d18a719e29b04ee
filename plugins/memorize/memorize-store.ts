import type { EntityManager } from '@mikro-orm/postgresql';
import { ValidationError, newUuid } from '../../core';
import { MemorizeSettings, type MemorizeField } from './memorize-settings.entity';
import type { MemorizeSettingsJson, MemorizeSettingsPatch } from './schemas';

export interface MemorizeValues {
  enabled: boolean;
  retention_days: number;
  fields: MemorizeField[];
  summary_prompt: string;
}

/** A tenant's default before it is first saved. */
export const BUILT_IN_DEFAULTS: Readonly<MemorizeValues> = Object.freeze({
  enabled: false,
  retention_days: 365,
  fields: [],
  summary_prompt:
    'Summarize what this conversation taught us about the contact: stable facts and preferences worth remembering for the next conversation, ' +
    'not the conversation itself. Leave out anything the contact asked to be forgotten.',
});

const valuesOf = (row: MemorizeSettings): MemorizeValues => ({
  enabled: row.enabled,
  retention_days: row.retentionDays,
  fields: row.fields.map((field) => ({ key: field.key, description: field.description })),
  summary_prompt: row.summaryPrompt,
});

/** The default as the API returns it: its row, or the built-in values when it was never saved. */
export function defaultJson(row: MemorizeSettings | null): MemorizeSettingsJson {
  const values = row ? valuesOf(row) : { ...BUILT_IN_DEFAULTS, fields: [] };
  return {
    agent_uuid: null,
    is_default: true,
    source: 'default',
    ...values,
    created_at: row ? row.createdAt.toISOString() : null,
    updated_at: row ? row.updatedAt.toISOString() : null,
  };
}

/** An agent's override as the API returns it. */
export function overrideJson(row: MemorizeSettings): MemorizeSettingsJson {
  return {
    agent_uuid: row.agentUuid,
    is_default: false,
    source: 'agent',
    ...valuesOf(row),
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

/** The default (`agentUuid` null) or an agent's override of the current tenant. */
export const findSettings = (em: EntityManager, agentUuid: string | null) => em.findOne(MemorizeSettings, { agentUuid });

/**
 * Inserts the row unless the tenant already has it (a concurrent request may have
 * made it: `on conflict do nothing` covers both unique indexes, the partial one of the
 * default included). Returns whether this call inserted it. Raw SQL bypasses the
 * tenant filter, so the tenant is given.
 */
export async function insertIfMissing(em: EntityManager, tenantUuid: string, agentUuid: string | null, values: MemorizeValues): Promise<boolean> {
  const now = new Date();
  const rows: unknown[] = await em
    .getConnection()
    .execute(
      `insert into "memorize_settings" ("uuid", "tenant_uuid", "created_at", "updated_at", "agent_uuid", "enabled", "retention_days", "fields", "summary_prompt") ` +
        `values (?, ?, ?, ?, ?, ?, ?, cast(? as jsonb), ?) on conflict do nothing returning "uuid"`,
      [newUuid(), tenantUuid, now, now, agentUuid, values.enabled, values.retention_days, JSON.stringify(values.fields), values.summary_prompt],
      'all',
      em.getTransactionContext(),
    );
  return rows.length > 0;
}

/** The checks the schema cannot make: field keys are unique within the list. */
export function checkPatch(patch: MemorizeSettingsPatch): void {
  if (!patch.fields) return;
  const errors: Record<string, string[]> = {};
  const firstIndex = new Map<string, number>();
  patch.fields.forEach((field, index) => {
    const first = firstIndex.get(field.key);
    if (first === undefined) firstIndex.set(field.key, index);
    else errors[`fields.${index}.key`] = [`duplicates fields.${first}.key ("${field.key}"); keys must be unique`];
  });
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
}

/** Applies the members present in the patch; absent ones keep their value. */
export function applyPatch(row: MemorizeSettings, patch: MemorizeSettingsPatch): void {
  if (patch.enabled !== undefined) row.enabled = patch.enabled;
  if (patch.retention_days !== undefined) row.retentionDays = patch.retention_days;
  if (patch.fields !== undefined) row.fields = patch.fields.map((field) => ({ key: field.key, description: field.description }));
  if (patch.summary_prompt !== undefined) row.summaryPrompt = patch.summary_prompt;
}

/**
 * The effective settings of these agents of the current tenant, by agent uuid: the
 * agent's override, else the default. One query whatever the number of agents (the
 * overrides of those agents and the default together); the tenant filter scopes it.
 */
export async function loadEffective(em: EntityManager, agentUuids: readonly string[]): Promise<Map<string, MemorizeSettingsJson>> {
  const effective = new Map<string, MemorizeSettingsJson>();
  if (agentUuids.length === 0) return effective;
  const rows = await em.find(MemorizeSettings, { $or: [{ agentUuid: { $in: [...agentUuids] } }, { agentUuid: null }] });
  const fallback = defaultJson(rows.find((row) => row.agentUuid === null) ?? null);
  const overrides = new Map(rows.filter((row) => row.agentUuid !== null).map((row) => [row.agentUuid!, row]));
  for (const uuid of agentUuids) {
    const override = overrides.get(uuid);
    effective.set(uuid, override ? overrideJson(override) : fallback);
  }
  return effective;
}
