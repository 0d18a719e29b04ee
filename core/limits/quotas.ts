import type { EntityManager } from '@mikro-orm/postgresql';
import { Type, type Static } from '@sinclair/typebox';
import { boundQuery } from '../data/bound-query';

/** What a tenant may hold or use; `0` in an effective value means unlimited. */
export const QUOTA_NAMES = ['agents', 'flows', 'table_rows', 'concurrent_flow_executions', 'model_tokens_per_day'] as const;
export type QuotaName = (typeof QUOTA_NAMES)[number];

const overrideValue = (description: string) =>
  Type.Optional(Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], { description: `${description}; 0 means unlimited, null goes back to the default` }));

/** A tenant's overrides as an admin sends them (`PATCH /admin/v1/tenants/{slug}` `{quotas}`). */
export const QuotaValuesSchema = Type.Object(
  {
    agents: overrideValue('Agents the tenant may have'),
    flows: overrideValue('Flows the tenant may have'),
    table_rows: overrideValue('Rows across all of the tenant’s tables'),
    concurrent_flow_executions: overrideValue('Flow executions running at once'),
    model_tokens_per_day: overrideValue('Model tokens (prompt + completion) per UTC day'),
  },
  { additionalProperties: false },
);
export type QuotaValues = Static<typeof QuotaValuesSchema>;

/** The limits in force for a tenant (its overrides over the defaults); 0 means unlimited. */
export const EffectiveQuotasSchema = Type.Object(
  Object.fromEntries(QUOTA_NAMES.map((name) => [name, Type.Integer({ minimum: 0, description: '0 means unlimited' })])) as Record<QuotaName, ReturnType<typeof Type.Integer>>,
);
export type EffectiveQuotas = Record<QuotaName, number>;

const UNLIMITED: EffectiveQuotas = { agents: 0, flows: 0, table_rows: 0, concurrent_flow_executions: 0, model_tokens_per_day: 0 };

/**
 * The QUOTA_* defaults of each kernel, found through the ORM configuration an EntityManager
 * carries: the helpers below take only an EntityManager, and two kernels in one process
 * (tests) keep their own defaults.
 */
const defaultsByOrm = new WeakMap<object, EffectiveQuotas>();

export function registerQuotaDefaults(em: Pick<EntityManager, 'config'>, defaults: EffectiveQuotas): void {
  defaultsByOrm.set(em.config, { ...defaults });
}

/** Bumped by each setTenantQuotas, so caches in this process (model-token-quota.ts) read overrides again at once. */
const versions = new WeakMap<object, number>();

export function quotaVersion(em: Pick<EntityManager, 'config'>): number {
  return versions.get(em.config) ?? 0;
}

export function quotaDefaults(em: Pick<EntityManager, 'config'>): EffectiveQuotas {
  return defaultsByOrm.get(em.config) ?? UNLIMITED;
}

/** The stored overrides of a tenant (only the members set). */
export async function tenantQuotaOverrides(em: EntityManager, tenantUuid: string): Promise<Partial<EffectiveQuotas>> {
  const [row] = await boundQuery<{ values: Partial<EffectiveQuotas> }>(em, 'select "values" from "tenant_quotas" where "tenant_uuid" = $1', [tenantUuid]);
  return row?.values ?? {};
}

/**
 * Merges `values` into a tenant's overrides: a number sets one, null removes it (back to the
 * default), a member left out is kept. `values` must have passed QuotaValuesSchema.
 */
export async function setTenantQuotas(em: EntityManager, tenantUuid: string, values: QuotaValues): Promise<void> {
  const set: Record<string, number> = {};
  const reset: string[] = [];
  for (const name of QUOTA_NAMES) {
    const value = values[name];
    if (value === null) reset.push(name);
    else if (value !== undefined) set[name] = value;
  }
  if (Object.keys(set).length === 0 && reset.length === 0) return;
  await boundQuery(
    em,
    `insert into "tenant_quotas" ("tenant_uuid", "values", "updated_at") values ($1, $2::jsonb - $3::text[], now())
     on conflict ("tenant_uuid") do update set "values" = ("tenant_quotas"."values" || excluded."values") - $3::text[], "updated_at" = now()`,
    [tenantUuid, JSON.stringify(set), reset],
  );
  versions.set(em.config, quotaVersion(em) + 1);
}

/** The limits in force for a tenant: its overrides over the QUOTA_* defaults (0 = unlimited). */
export async function tenantQuotasJson(em: EntityManager, tenantUuid: string): Promise<EffectiveQuotas> {
  return { ...quotaDefaults(em), ...(await tenantQuotaOverrides(em, tenantUuid)) };
}
