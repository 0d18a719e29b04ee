import type { Opt } from '@mikro-orm/core';
import { Entity, Property, Unique } from '@mikro-orm/decorators/legacy';
import { TenantScopedEntity } from '../../../core';

/** How many placeholders each component of a template has (`{header: 1, body: 2}`): what a send must fill. */
export type TemplateParameters = Record<string, number>;

/**
 * A chatapp message template of a business account (WABA), as the platform holds it.
 * Sync upserts by `platformId`; a template removed upstream keeps its row and last
 * status until it is deleted here.
 */
@Entity({ tableName: 'chatapp_templates' })
@Unique({ name: 'chatapp_templates_platform_unique', properties: ['tenantUuid', 'platformId'] })
export class ChatappTemplate extends TenantScopedEntity {
  /** The chatapp connection whose business account holds it (its token reads, sends and deletes it). */
  @Property({ type: 'uuid' })
  connectionUuid!: string;

  @Property({ type: 'text' })
  wabaId!: string;

  /** The platform's id of the template. */
  @Property({ type: 'text' })
  platformId!: string;

  @Property({ type: 'text' })
  name!: string;

  @Property({ type: 'text' })
  language!: string;

  @Property({ type: 'text' })
  category!: string;

  /** The platform's review status (`APPROVED`, `PENDING`, `REJECTED`, ...), as last seen. */
  @Property({ type: 'text' })
  status!: string;

  /** The platform's reason for its last status change (a rejection's), from its status webhook; null when it gave none. */
  @Property({ type: 'text', nullable: true })
  statusReason: (string & Opt) | null = null;

  /** The components as the platform describes them (`[{type: 'BODY', text: 'Hi {{1}}'}]`). */
  @Property({ type: 'json' })
  components: unknown[] & Opt = [];

  @Property({ type: 'json' })
  parameters: TemplateParameters & Opt = {};
}
