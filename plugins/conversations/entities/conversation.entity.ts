import { Entity, Index, Property } from '@mikro-orm/decorators/legacy';
import type { Opt } from '@mikro-orm/core';
import { TenantScopedEntity } from '../../../core';
import type { Channel, ConversationStatus } from '../channels';

/**
 * One exchange between an agent and a contact on one channel: a call from start to
 * end, or a chat thread until it is closed. Its messages are grouped into sessions.
 * `agentUuid` and `contactUuid` are plain columns: those entities belong to other plugins.
 */
@Entity({ tableName: 'conversations' })
@Index({ name: 'conversations_tenant_uuid_started_at_index', properties: ['tenantUuid', 'startedAt', 'uuid'] })
@Index({ name: 'conversations_tenant_uuid_agent_uuid_index', properties: ['tenantUuid', 'agentUuid'] })
export class Conversation extends TenantScopedEntity {
  @Property({ type: 'uuid' })
  agentUuid!: string;

  @Property({ type: 'uuid', nullable: true })
  contactUuid: string | null = null;

  @Property({ type: 'text' })
  channel!: Channel;

  /** How the channel is shown to people, e.g. `WhatsApp +34 600 000 000`; copied onto each message. */
  @Property({ type: 'text', nullable: true })
  channelLabel: string | null = null;

  @Property({ type: 'text', default: 'open' })
  status: ConversationStatus & Opt = 'open';

  @Property({ type: 'datetime' })
  startedAt: Date & Opt = new Date();

  @Property({ type: 'datetime', nullable: true })
  endedAt: Date | null = null;
}
