import { Entity, Property } from '@mikro-orm/decorators/legacy';
import type { Opt } from '@mikro-orm/core';
import { TenantScopedEntity } from 'switchboard/core';

@Entity({ tableName: 'example_notes' })
export class Note extends TenantScopedEntity {
  @Property({ type: 'string', length: 200 })
  title!: string;

  @Property({ type: 'text' })
  body: string & Opt = '';

  /** What the enrichers contributed, by their key. */
  @Property({ type: 'json' })
  extras: Record<string, unknown> & Opt = {};
}
