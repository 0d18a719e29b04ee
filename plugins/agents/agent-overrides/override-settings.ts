import type { EntityClass, RequiredEntityData } from '@mikro-orm/core';
import type { TSchema, TenantScopedEntity } from '../../../core';

/**
 * A row of an override table: the tenant's default (`agentUuid` null, at most one per
 * tenant) or one agent's override (at most one per agent). The table needs both unique
 * indexes (the default's one partial, `where agent_uuid is null`): a concurrent first
 * save or assign then loses its insert instead of making a second row.
 */
export type OverrideRow = TenantScopedEntity & { agentUuid: string | null };

/** Where settings come from: the tenant-wide default, or the agent's own override. */
export type OverrideSource = 'default' | 'agent';

/** The members every settings JSON of the pattern has besides its values. */
export interface OverrideOrigin {
  agent_uuid: string | null;
  is_default: boolean;
  source: OverrideSource;
  /** Null for a default that was never saved (the built-in values). */
  created_at: string | null;
  updated_at: string | null;
}

/**
 * What a plugin describes to get "a tenant-wide default + per-agent overrides" of its
 * settings (memorize, evaluate): its values and how they sit in its row, its JSON and
 * its patch rules. The routes, their messages and the loaders are the building
 * block's, so that every such plugin answers alike.
 */
export interface AgentOverrideSettingsDefinition<Row extends OverrideRow, Values, Json, Patch> {
  /** The URL segment: `/api/v1/<segment>/default`, `/api/v1/agents/:uuid/<segment>`. */
  segment: string;
  /** How messages and docs name the settings: `Default <noun> settings`, `Agent has no <noun> override`. */
  noun: string;
  /** The noun's article (`a memorize override`, `an evaluate override`): English cannot be computed. */
  article: 'a' | 'an';
  tags: string[];
  entity: EntityClass<Row>;
  /** The settings as every route returns them (the envelope's `data`). */
  schema: TSchema;
  /** The body of both PUTs, validated before `checkPatch`/`applyPatch` see it. */
  writeSchema: TSchema;
  /** The resource kind of an agent that has an override (`PUT /agents/{uuid}/<segment>`), for the cross-tenant sweep. */
  overrideKind: string;
  /** The default before it is first saved; a fresh object each call, as callers may keep it. */
  builtIn(): Values;
  valuesOf(row: Row): Values;
  /** The plugin's columns of a new row with these values (its properties, not `agentUuid`, tenant or timestamps). */
  columnsOf(values: Values): Partial<RequiredEntityData<Row>>;
  toJson(values: Values, origin: OverrideOrigin): Json;
  /** The checks the write schema cannot make; throws a `ValidationError`. Runs before anything is read. */
  checkPatch?(patch: Patch): void;
  /** Applies a validated partial update to the row; the caller flushes. */
  applyPatch(row: Row, patch: Patch): void;
  /** The plugin's own words in the OpenAPI document; the building block adds what is common. */
  descriptions: {
    /** What the built-in values are, shown in parentheses; none: nothing is said. */
    builtIn?: string;
    changeDefault: string;
    /** The 404 of an agent without an override is appended. */
    changeOverride: string;
    /** The idempotent answer for an agent that has one is appended. */
    assign: string;
  };
}
