import { Entity, Property } from '@mikro-orm/decorators/legacy';
import type { Opt } from '@mikro-orm/core';
import { AgentChild } from './agent-child';

export interface ProcedureStep {
  order: number;
  description: string;
  intent_uuid: string | null;
}

/** A procedure's steps have no identity of their own: they are replaced together. */
@Entity({ tableName: 'agent_procedures' })
export class AgentProcedure extends AgentChild {
  @Property({ type: 'string', length: 200 }) name!: string;
  @Property({ type: 'text' }) description: string & Opt = '';
  @Property({ type: 'json' }) steps: ProcedureStep[] & Opt = [];
}
