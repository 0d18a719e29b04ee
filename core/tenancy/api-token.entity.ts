import { Entity, ManyToOne, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import type { Opt } from '@mikro-orm/core';
import { newUuid } from '../data/uuid';
import { Tenant } from './tenant.entity';
import type { Scope } from '../http/route';

/**
 * A tenant's bearer token. Only the SHA-256 of the token is stored: tokens are
 * 256 random bits, so a slow hash adds nothing and would cost every request.
 */
@Entity({ tableName: 'api_tokens' })
export class ApiToken {
  @PrimaryKey({ type: 'uuid' })
  uuid: string & Opt = newUuid();

  @ManyToOne(() => Tenant, { mapToPk: true, fieldName: 'tenant_uuid', deleteRule: 'cascade' })
  tenantUuid!: string;

  @Property({ type: 'string', length: 255 })
  name!: string;

  @Property({ type: 'string', length: 64, unique: true })
  tokenHash!: string;

  @Property({ type: 'json' })
  scopes: Scope[] & Opt = ['read', 'write'];

  @Property({ type: 'datetime' })
  createdAt: Date & Opt = new Date();

  @Property({ type: 'datetime', nullable: true })
  revokedAt: (Date & Opt) | null = null;
}
