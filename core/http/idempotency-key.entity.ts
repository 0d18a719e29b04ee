import type { Opt } from '@mikro-orm/core';
import { Entity, Index, ManyToOne, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import { Tenant } from '../tenancy/tenant.entity';

/**
 * One `Idempotency-Key` a caller sent with a POST, and the response to replay
 * (core/http/idempotency.ts). Read and written with plain SQL (idempotency-store.ts);
 * the entity is here so the schema has one description the migrations must match.
 */
@Entity({ tableName: 'idempotency_keys' })
@Index({ properties: ['expiresAt'] })
export class IdempotencyKey {
  /** Whose key it is: `admin`, `t:<tenant>:<token digest>` or `h:<tenant>:<hook path digest>`. */
  @PrimaryKey({ type: 'string', length: 128 })
  scope!: string;

  @PrimaryKey({ type: 'string', length: 255, fieldName: 'idempotency_key' })
  key!: string;

  /** So a deleted tenant takes its keys along. */
  @ManyToOne(() => Tenant, { mapToPk: true, fieldName: 'tenant_uuid', nullable: true, deleteRule: 'cascade' })
  tenantUuid: string | null = null;

  /** SHA-256 of method, path, query and body: the same key with another request is refused. */
  @Property({ type: 'string', length: 64 })
  requestHash!: string;

  /** `running` while a non-transactional route works under a lease; `done` once the response is stored. */
  @Property({ type: 'string', length: 16 })
  state!: string;

  /** Which claim holds a running row, so a late finisher never overwrites a newer claim. */
  @Property({ type: 'uuid', nullable: true })
  claim: string | null = null;

  @Property({ type: 'datetime', nullable: true })
  leaseUntil: Date | null = null;

  @Property({ type: 'integer', nullable: true })
  responseStatus: number | null = null;

  @Property({ type: 'json', nullable: true })
  responseHeaders: Record<string, string> | null = null;

  /** The response body as sent (JSON text), or null for a response without one. */
  @Property({ type: 'text', nullable: true })
  responseBody: string | null = null;

  @Property({ type: 'datetime' })
  createdAt: Date & Opt = new Date();

  /** When the retention job may delete it; an expired row no longer replays. */
  @Property({ type: 'datetime' })
  expiresAt!: Date;
}
