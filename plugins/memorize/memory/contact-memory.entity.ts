import { Entity, Index, Property, Unique } from '@mikro-orm/decorators/legacy';
import type { Opt } from '@mikro-orm/core';
import { TenantScopedEntity } from '../../../core';

/**
 * What an agent remembers about a contact from one closed session: the model's summary
 * and the memorize `fields` it extracted. One per session; read into the contact's later
 * prompts until `expires_at` (the agent's `retention_days` after it was made).
 */
@Entity({ tableName: 'contact_memories' })
@Unique({ name: 'contact_memories_session_uuid_unique', properties: ['sessionUuid'] })
@Index({ name: 'contact_memories_contact_agent_index', properties: ['contactUuid', 'agentUuid', 'createdAt'] })
export class ContactMemory extends TenantScopedEntity {
  @Property({ type: 'uuid' })
  agentUuid!: string;

  @Property({ type: 'uuid' })
  contactUuid!: string;

  @Property({ type: 'uuid' })
  sessionUuid!: string;

  @Property({ type: 'uuid' })
  conversationUuid!: string;

  @Property({ type: 'text' })
  summary!: string;

  @Property({ type: 'json' })
  fields: Record<string, unknown> & Opt = {};

  @Property({ type: 'timestamptz' })
  @Index({ name: 'contact_memories_expires_at_index' })
  expiresAt!: Date;
}
