import { Entity, ManyToOne, Property } from '@mikro-orm/decorators/legacy';
import type { Opt } from '@mikro-orm/core';
import { AgentChild } from './agent-child';
import { Agent } from './agent.entity';

/** Fires on a sensitive situation, whatever the customer asked for: forward or end. */
@Entity({ tableName: 'agent_guard_rules' })
export class AgentGuardRule extends AgentChild {
  @Property({ type: 'text' }) name: string & Opt = '';
  @Property({ type: 'text' }) whenCondition!: string;
  @Property({ type: 'json' }) examplePhrases: string[] & Opt = [];
  @Property({ type: 'string', length: 32 }) thenAction!: 'forward' | 'end_conversation';
  @Property({ type: 'json' }) selectedChannels: string[] & Opt = [];
  @Property({ type: 'text' }) sayBeforeForwarding: string & Opt = '';
  @Property({ type: 'text' }) sayBeforeEnd: string & Opt = '';
  @Property({ type: 'string', length: 32 }) destinationType: string & Opt = '';
  @Property({ type: 'text' }) destination: string & Opt = '';
  /** Restrict: an agent that guards forward to cannot be deleted until they stop. */
  @ManyToOne(() => Agent, { mapToPk: true, fieldName: 'destination_agent_uuid', nullable: true, deleteRule: 'restrict', index: true })
  destinationAgentUuid: string | null = null;
  @Property({ type: 'boolean' }) isActive: boolean & Opt = true;
  @Property({ type: 'boolean' }) isDefault: boolean & Opt = false;
}
