import type { EntityManager } from '@mikro-orm/postgresql';
import { createExtensionPoint, type TSchema } from '../../core';

/**
 * A member of `agent.settings` that another plugin owns (the memorize plugin adds
 * `memorize`, the evaluation plugin `evaluation`). The agents plugin shows the
 * effective value in every agent it returns; the owning plugin has its own routes to
 * change it, so the member is read-only on the agent.
 */
export interface AgentSettingsSlot {
  /** The member of `agent.settings`, e.g. `memorize`. */
  key: string;
  /** Schema of the value, for the response and the OpenAPI document. */
  schema: TSchema;
  /**
   * The effective values for these agents of the current tenant, by agent uuid, in
   * a fixed number of queries however many agents are asked for (lists call it once
   * per page). An agent missing from the map gets `null`.
   */
  load(em: EntityManager, agentUuids: readonly string[]): Promise<ReadonlyMap<string, unknown>>;
}

export const agentSettingsSlots = createExtensionPoint<AgentSettingsSlot>({ id: 'agents.settingsSlots', keyOf: (slot) => slot.key });

/** Keys the agent itself owns: a slot cannot take them. */
export const OWN_SETTINGS_KEYS = ['voice', 'text'] as const;
