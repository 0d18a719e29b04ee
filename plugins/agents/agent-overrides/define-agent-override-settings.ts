import type { FilterQuery } from '@mikro-orm/core';
import type { AnyRoute, BusService } from '../../../core';
import { AGENT_TOPICS, type AgentDeletedEvent } from '../agent-events';
import type { AgentDirectory } from '../agent-directory';
import { overrideRoutes } from './override-routes';
import type { AgentOverrideSettingsDefinition, OverrideRow } from './override-settings';
import { createOverrideStore, type OverrideStore } from './override-store';

/** A plugin's "tenant-wide default + per-agent overrides" settings: its store, plus the routes to add in `init`. */
export interface AgentOverrideSettings<Row extends OverrideRow, Values, Json, Patch> extends OverrideStore<Row, Values, Json> {
  readonly definition: AgentOverrideSettingsDefinition<Row, Values, Json, Patch>;
  /** The five routes (see override-routes.ts); `agents` answers whether an agent is the tenant's. */
  routes(agents: AgentDirectory): AnyRoute[];
  /**
   * Deletes an agent's override when the agent is deleted (consumer `forget-deleted-agent`
   * of the calling plugin). The table has no foreign key to `agents`: those rows are the
   * agents plugin's internals, so the override goes on the bus event instead.
   */
  forgetDeletedAgents(bus: BusService): void;
}

/**
 * Settings with one tenant-wide default and per-agent overrides (memorize, evaluate),
 * described as data: the plugin gives its values, row, JSON and patch rules; the same
 * routes, messages and effective-settings loaders come out for every such plugin, so
 * that they cannot drift apart. Call it at module level; add its routes in `init`.
 */
export function defineAgentOverrideSettings<Row extends OverrideRow, Values, Json, Patch>(
  definition: AgentOverrideSettingsDefinition<Row, Values, Json, Patch>,
): AgentOverrideSettings<Row, Values, Json, Patch> {
  const store = createOverrideStore(definition);
  return {
    ...store,
    definition,
    routes: (agents) => overrideRoutes(agents, definition, store),
    forgetDeletedAgents: (bus) =>
      bus.consume<AgentDeletedEvent>({ name: 'forget-deleted-agent', topics: [AGENT_TOPICS.deleted] }, async (message, { em }) => {
        if (!message.tenant) return;
        await em.nativeDelete(definition.entity, { tenantUuid: message.tenant.uuid, agentUuid: message.payload.agent_uuid } as FilterQuery<Row>);
      }),
  };
}
