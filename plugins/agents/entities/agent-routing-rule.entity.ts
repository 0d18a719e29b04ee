import { Entity, ManyToOne, Property } from '@mikro-orm/decorators/legacy';
import type { Opt } from '@mikro-orm/core';
import { AgentChild } from './agent-child';
import { Agent } from './agent.entity';

/** Voice-activated IVR: where the customer asks to go. Lower `priority` is evaluated first. */
@Entity({ tableName: 'agent_routing_rules' })
export class AgentRoutingRule extends AgentChild {
  @Property({ type: 'string', length: 32 }) detectionMode: string & Opt = 'intent';
  @Property({ type: 'text' }) triggerKeyword: string & Opt = '';
  @Property({ type: 'text' }) departmentName: string & Opt = '';
  @Property({ type: 'json' }) phrases: string[] & Opt = [];
  @Property({ type: 'text' }) aiPrompt: string & Opt = '';
  @Property({ type: 'text' }) voiceResponse: string & Opt = '';
  @Property({ type: 'text' }) voiceOnError: string & Opt = '';
  @Property({ type: 'text' }) voiceOnSuccess: string & Opt = '';
  @Property({ type: 'string', length: 32 }) destinationType: string & Opt = '';
  @Property({ type: 'text' }) destination: string & Opt = '';
  /** Restrict: an agent that others route to cannot be deleted until they stop. */
  @ManyToOne(() => Agent, { mapToPk: true, fieldName: 'destination_agent_uuid', nullable: true, deleteRule: 'restrict', index: true })
  destinationAgentUuid: string | null = null;
  @Property({ type: 'string', length: 32 }) transferType: string & Opt = 'transfer_call';
  @Property({ type: 'json' }) transferConfig: Record<string, unknown> & Opt = {};
  @Property({ type: 'integer' }) priority!: number;
  @Property({ type: 'boolean' }) isActive: boolean & Opt = true;
}
