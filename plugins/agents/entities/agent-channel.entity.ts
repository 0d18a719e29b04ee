import { Entity, Property } from '@mikro-orm/decorators/legacy';
import type { Opt } from '@mikro-orm/core';
import { AgentChild } from './agent-child';

/** Where the agent talks: a web chat widget, an SMS sender, a chatapp account, ... */
@Entity({ tableName: 'agent_channels' })
export class AgentChannel extends AgentChild {
  @Property({ type: 'string', length: 32 }) type!: string;
  @Property({ type: 'string', length: 200 }) name: string & Opt = '';
  @Property({ type: 'boolean' }) isActive: boolean & Opt = true;
  @Property({ type: 'json' }) config: Record<string, unknown> & Opt = {};
}
