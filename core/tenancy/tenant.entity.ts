import { Entity, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import type { Opt } from '@mikro-orm/core';
import { newUuid } from '../data/uuid';

/** `deleting`: a deletion job is removing its data; the tenant answers 404 and its slug stays taken until the job is done. */
export type TenantStatus = 'active' | 'suspended' | 'deleting';

@Entity({ tableName: 'tenants' })
export class Tenant {
  @PrimaryKey({ type: 'uuid' })
  uuid: string & Opt = newUuid();

  @Property({ type: 'string', length: 63, unique: true })
  slug!: string;

  @Property({ type: 'string', length: 255 })
  name!: string;

  @Property({ type: 'string', length: 16 })
  status: TenantStatus & Opt = 'active';

  @Property({ type: 'datetime' })
  createdAt: Date & Opt = new Date();

  @Property({ type: 'datetime', onUpdate: () => new Date() })
  updatedAt: Date & Opt = new Date();
}
