import { Entity, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import type { Opt } from '@mikro-orm/core';
import { newUuid } from '../data/uuid';

@Entity({ tableName: 'tenants' })
export class Tenant {
  @PrimaryKey({ type: 'uuid' })
  uuid: string & Opt = newUuid();

  @Property({ type: 'string', length: 63, unique: true })
  slug!: string;

  @Property({ type: 'string', length: 255 })
  name!: string;

  @Property({ type: 'datetime' })
  createdAt: Date & Opt = new Date();

  @Property({ type: 'datetime', onUpdate: () => new Date() })
  updatedAt: Date & Opt = new Date();
}
