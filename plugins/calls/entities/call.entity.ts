import { Entity, Index, Property, Unique } from '@mikro-orm/decorators/legacy';
import type { Opt } from '@mikro-orm/core';
import { TenantScopedEntity } from '../../../core';

export const CALL_STATUSES = ['queued', 'ringing', 'in_progress', 'ended'] as const;
export type CallStatus = (typeof CALL_STATUSES)[number];

export const ENDED_REASONS = ['completed', 'no_answer', 'busy', 'failed', 'voicemail', 'hangup_by_agent', 'max_duration', 'silence_timeout', 'transferred'] as const;
export type EndedReason = (typeof ENDED_REASONS)[number];

/**
 * One voice call: a conversation on channel `voice`, carried by a telephony driver over
 * the connection of the agent's `phone` channel. `endingReason` is what the platform
 * asked for (a hangup, a transfer, a deadline) before the provider confirms the end: the
 * provider's last status then ends the call with it.
 */
@Entity({ tableName: 'calls' })
@Unique({ name: 'calls_conversation_unique', properties: ['conversationUuid'] })
@Unique({ name: 'calls_external_index', properties: ['connectionUuid', 'externalId'] })
@Index({ name: 'calls_list_index', expression: 'create index "calls_list_index" on "calls" ("tenant_uuid", "created_at" desc, "uuid" desc)' })
export class Call extends TenantScopedEntity {
  @Property({ type: 'uuid' })
  conversationUuid!: string;

  @Property({ type: 'uuid' })
  agentUuid!: string;

  @Property({ type: 'uuid', nullable: true })
  contactUuid: string | null = null;

  /** The agent `phone` channel whose connection carries the call (callbacks name it). */
  @Property({ type: 'uuid' })
  channelUuid!: string;

  @Property({ type: 'uuid' })
  connectionUuid!: string;

  @Property({ type: 'text' })
  provider!: string;

  @Property({ type: 'text' })
  direction!: 'inbound' | 'outbound';

  @Property({ type: 'text', fieldName: 'from_number' })
  from!: string;

  @Property({ type: 'text', fieldName: 'to_number' })
  to!: string;

  @Property({ type: 'text' })
  status: Opt<CallStatus> = 'queued';

  @Property({ type: 'text', nullable: true })
  endedReason: EndedReason | null = null;

  @Property({ type: 'text', nullable: true })
  endingReason: EndedReason | null = null;

  /**
   * While a transfer rings or is bridged (`endingReason: transferred`): what the agent says if
   * nobody takes the call (the rule's fallback line); null for the default line.
   */
  @Property({ type: 'text', nullable: true })
  transferFallback: string | null = null;

  /** The provider's id of the call (Twilio's CallSid), once it has one. */
  @Property({ type: 'text', nullable: true })
  externalId: string | null = null;

  @Property({ type: 'text', nullable: true })
  answeredBy: 'human' | 'machine' | 'unknown' | null = null;

  @Property({ type: 'boolean' })
  muted: boolean & Opt = false;

  @Property({ type: 'integer' })
  silencePrompts: number & Opt = 0;

  @Property({ type: 'text', nullable: true })
  errorMessage: string | null = null;

  @Property({ type: 'timestamptz', nullable: true })
  answeredAt: Date | null = null;

  @Property({ type: 'timestamptz', nullable: true })
  endedAt: Date | null = null;

  @Property({ type: 'integer', nullable: true })
  durationSeconds: number | null = null;

  /** Where the recording is stored (under DATA_DIR), once fetched. */
  @Property({ type: 'text', nullable: true })
  recordingPath: string | null = null;

  /** This server's public origin as the provider reaches it, for the callback URLs of work that has no request (a deadline). */
  @Property({ type: 'text' })
  callbackOrigin!: string;

  @Property({ type: 'jsonb' })
  metadata: Record<string, unknown> & Opt = {};
}
