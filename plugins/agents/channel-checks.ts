import type { EntityManager } from '@mikro-orm/postgresql';
import { createExtensionPoint } from '../../core';

/**
 * Checks another plugin makes of an agent channel's `config` when it is written (the
 * channels plugin: `config.connection_uuid` names a connection of the tenant whose
 * provider carries the channel's type). A check reads in the request's transaction and
 * adds problems at `config.<member>` paths; any problem answers 422, nothing written.
 */
export interface AgentChannelCheck {
  /** The channel types it checks. */
  types: readonly string[];
  check(em: EntityManager, channel: { type: string; config: Record<string, unknown> }, problems: { add(path: string, message: string): void }): void | Promise<void>;
}

export const agentChannelChecks = createExtensionPoint<AgentChannelCheck>({ id: 'agents.channelChecks' });
