import { Entity, Property } from '@mikro-orm/decorators/legacy';
import type { Opt } from '@mikro-orm/core';
import { AgentChild } from './agent-child';

/** An example exchange: what a contact says, the intent it shows, the answer to give. */
@Entity({ tableName: 'agent_training_rows' })
export class AgentTrainingRow extends AgentChild {
  @Property({ type: 'text' }) content: string & Opt = '';
  @Property({ type: 'text' }) intent: string & Opt = '';
  @Property({ type: 'text' }) response: string & Opt = '';
}
