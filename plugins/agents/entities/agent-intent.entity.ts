import { Entity, Property, Unique } from '@mikro-orm/decorators/legacy';
import type { Opt } from '@mikro-orm/core';
import { AgentChild } from './agent-child';

export interface IntentParameter {
  key: string;
  default: string;
  type: string;
  required: boolean;
}

/** A tool the agent can call; `key` is its tool name, unique within the agent. */
@Entity({ tableName: 'agent_intents' })
@Unique({ properties: ['agentUuid', 'key'] })
export class AgentIntent extends AgentChild {
  @Property({ type: 'string', length: 64 }) key!: string;
  @Property({ type: 'string', length: 200 }) name: string & Opt = '';
  @Property({ type: 'text' }) description: string & Opt = '';
  @Property({ type: 'text' }) recommendationActions: string & Opt = '';
  @Property({ type: 'double' }) confidenceThreshold: number & Opt = 0.5;
  @Property({ type: 'boolean' }) isSystem: boolean & Opt = false;
  @Property({ type: 'boolean' }) intentLlmHandleByResponse: boolean & Opt = false;
  @Property({ type: 'text', nullable: true }) webhookUrl: string | null = null;
  /** Sealed with the secrets service (see intentAuthToken); never serialized. */
  @Property({ type: 'text', nullable: true }) webhookAuthToken: string | null = null;
  @Property({ type: 'json' }) parameters: IntentParameter[] & Opt = [];
}
