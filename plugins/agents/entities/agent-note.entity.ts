import { Entity, Property } from '@mikro-orm/decorators/legacy';
import { AgentChild } from './agent-child';

@Entity({ tableName: 'agent_notes' })
export class AgentNote extends AgentChild {
  @Property({ type: 'text' }) content!: string;
  @Property({ type: 'integer' }) order!: number;
}
