import { Entity, Property, Unique } from '@mikro-orm/decorators/legacy';
import type { Opt } from '@mikro-orm/core';
import { AgentChild } from './agent-child';

/** Where the agent talks: a web chat widget, an SMS sender, a chatapp account, ... */
@Entity({ tableName: 'agent_channels' })
export class AgentChannel extends AgentChild {
  @Property({ type: 'string', length: 32 }) type!: string;
  @Property({ type: 'string', length: 200 }) name: string & Opt = '';
  @Property({ type: 'boolean' }) isActive: boolean & Opt = true;
  @Property({ type: 'json' }) config: Record<string, unknown> & Opt = {};
  /**
   * A `web_chat` channel's public key (`pk_...`): visitors' browsers name the channel
   * with it (the web-chat plugin), so it is unique across tenants. Made when the channel
   * first becomes `web_chat` and kept after, so a type changed back finds its embeds working.
   */
  @Unique({ name: 'agent_channels_public_key_unique' })
  @Property({ type: 'string', length: 64, nullable: true })
  publicKey: (string & Opt) | null = null;
}
