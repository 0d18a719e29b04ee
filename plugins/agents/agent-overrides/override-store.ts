import type { FilterQuery, RequiredEntityData } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { newUuid } from '../../../core';
import type { AgentOverrideSettingsDefinition, OverrideRow, OverrideSource } from './override-settings';

/** Settings as they apply to one agent: its override, else the tenant's default, else the built-in values. */
export interface EffectiveOverride<Row, Values> {
  values: Values;
  source: OverrideSource;
  /** The row they come from; null for built-in values never saved. */
  row: Row | null;
}

/** Reads and writes of an override table, always in the current tenant (its filter, or the tenant given). */
export interface OverrideStore<Row extends OverrideRow, Values, Json> {
  /** The default (`agentUuid` null) or an agent's override. */
  find(em: EntityManager, agentUuid: string | null): Promise<Row | null>;
  /**
   * Inserts the row unless the tenant already has it (a concurrent request may have
   * made it: `on conflict do nothing` covers both unique indexes, the partial one of
   * the default included). Returns whether this call inserted it. An insert bypasses
   * the tenant filter, so the tenant is given.
   */
  insertIfMissing(em: EntityManager, tenantUuid: string, agentUuid: string | null, values: Values): Promise<boolean>;
  /** The default as the API returns it: its row, or the built-in values (null timestamps) when it was never saved. */
  defaultJson(row: Row | null): Json;
  /** An agent's override as the API returns it. */
  overrideJson(row: Row): Json;
  /** The settings that apply to one agent, in one query. */
  effective(em: EntityManager, agentUuid: string): Promise<EffectiveOverride<Row, Values>>;
  /**
   * The effective settings of these agents as the API returns them, by agent uuid
   * (an agents settings slot's `load`): one query whatever the number of agents.
   */
  loadEffective(em: EntityManager, agentUuids: readonly string[]): Promise<Map<string, Json>>;
}

export function createOverrideStore<Row extends OverrideRow, Values, Json, Patch>(
  definition: AgentOverrideSettingsDefinition<Row, Values, Json, Patch>,
): OverrideStore<Row, Values, Json> {
  const { entity, builtIn, valuesOf, toJson } = definition;

  const timestampsOf = (row: Row | null) => ({
    created_at: row ? row.createdAt.toISOString() : null,
    updated_at: row ? row.updatedAt.toISOString() : null,
  });
  const defaultJson = (row: Row | null) =>
    toJson(row ? valuesOf(row) : builtIn(), { agent_uuid: null, is_default: true, source: 'default', ...timestampsOf(row) });
  const overrideJson = (row: Row) => toJson(valuesOf(row), { agent_uuid: row.agentUuid, is_default: false, source: 'agent', ...timestampsOf(row) });

  /** The overrides of these agents and the default together, in one query; the tenant filter scopes it. */
  async function rowsFor(em: EntityManager, agentUuids: readonly string[]) {
    const where = { $or: [{ agentUuid: { $in: [...agentUuids] } }, { agentUuid: null }] } as FilterQuery<Row>;
    const rows = await em.find(entity, where);
    return {
      fallback: rows.find((row) => row.agentUuid === null) ?? null,
      overrides: new Map(rows.filter((row) => row.agentUuid !== null).map((row) => [row.agentUuid!, row])),
    };
  }

  return {
    find: (em, agentUuid) => em.findOne(entity, { agentUuid } as FilterQuery<Row>),

    async insertIfMissing(em, tenantUuid, agentUuid, values) {
      const now = new Date();
      const row = { uuid: newUuid(), tenantUuid, agentUuid, createdAt: now, updatedAt: now, ...definition.columnsOf(values) } as RequiredEntityData<Row>;
      const result = await em.createQueryBuilder(entity).insert(row).onConflict().ignore().execute('run');
      return result.affectedRows > 0;
    },

    defaultJson,
    overrideJson,

    async effective(em, agentUuid) {
      const { fallback, overrides } = await rowsFor(em, [agentUuid]);
      const override = overrides.get(agentUuid);
      if (override) return { values: valuesOf(override), source: 'agent', row: override };
      return { values: fallback ? valuesOf(fallback) : builtIn(), source: 'default', row: fallback };
    },

    async loadEffective(em, agentUuids) {
      const effective = new Map<string, Json>();
      if (agentUuids.length === 0) return effective;
      const { fallback, overrides } = await rowsFor(em, agentUuids);
      const fallbackJson = defaultJson(fallback);
      for (const uuid of agentUuids) {
        const override = overrides.get(uuid);
        effective.set(uuid, override ? overrideJson(override) : fallbackJson);
      }
      return effective;
    },
  };
}
