import { ManyToOne } from '@mikro-orm/decorators/legacy';
import { TenantScopedEntity } from '../../../core';
import { Agent } from './agent.entity';

/** A row of one of an agent's lists; it goes when its agent goes. */
export abstract class AgentChild extends TenantScopedEntity {
  @ManyToOne(() => Agent, { mapToPk: true, fieldName: 'agent_uuid', deleteRule: 'cascade', index: true })
  agentUuid!: string;
}
