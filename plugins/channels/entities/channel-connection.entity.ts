import type { Opt } from '@mikro-orm/core';
import { Entity, Property } from '@mikro-orm/decorators/legacy';
import { TenantScopedEntity } from '../../../core';

/** A tenant's account at a messaging provider; `credentials` is sealed by the secrets service and never returned. */
@Entity({ tableName: 'channel_connections' })
export class ChannelConnection extends TenantScopedEntity {
  @Property({ type: 'text' })
  provider!: string;

  @Property({ type: 'text' })
  label!: string;

  /** JSON of the credentials, sealed. */
  @Property({ type: 'text' })
  credentials!: string;

  /** Non-secret settings of the connection, as the client gave them. */
  @Property({ type: 'json' })
  config: Record<string, unknown> & Opt = {};
}
