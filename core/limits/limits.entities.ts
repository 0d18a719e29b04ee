import type { Opt } from '@mikro-orm/core';
import { Entity, ManyToOne, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import { Tenant } from '../tenancy/tenant.entity';

/**
 * A tenant's quota overrides (quotas.ts); members left out follow the QUOTA_* defaults.
 * Read and written with plain SQL; the entity is the schema description the migration must match.
 */
@Entity({ tableName: 'tenant_quotas' })
export class TenantQuotaRow {
  @ManyToOne(() => Tenant, { primary: true, mapToPk: true, fieldName: 'tenant_uuid', deleteRule: 'cascade' })
  tenantUuid!: string;

  @Property({ type: 'json' })
  values!: Record<string, number>;

  @Property({ type: 'datetime' })
  updatedAt: Date & Opt = new Date();
}

/**
 * One shared token bucket of the rate limiter (rate-buckets.ts). UNLOGGED in the migration:
 * buckets are cheap to lose in a crash (they refill), and skipping the WAL keeps leases cheap.
 */
@Entity({ tableName: 'rate_buckets' })
export class RateBucketRow {
  @PrimaryKey({ type: 'string', length: 255 })
  key!: string;

  @Property({ type: 'double' })
  tokens!: number;

  @Property({ type: 'datetime' })
  updatedAt!: Date;

  /** What the last lease took: RETURNING shows only new values, so the update keeps it for the caller to read. */
  @Property({ type: 'integer' })
  granted!: number;
}
