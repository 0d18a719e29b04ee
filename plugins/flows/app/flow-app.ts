import type { EntityManager } from '@mikro-orm/postgresql';
import type { BusService, Egress, Logger, Static, TSchema, TenantRef } from '../../../core';

/**
 * The flow-app API: what a plugin declares to add an app to the flow studio. An app
 * is data (its auth, triggers, actions and option lists), each input described by one
 * schema that drives validation, the step's `draft`/`ready` status, the catalog and
 * the OpenAPI document. Add an app with `flowApps.add(defineFlowApp({...}))` in the
 * plugin's `contributes`.
 */

/** `builtin` apps run inside Switchboard and take no connection; `connect` apps call an outside service through a connection. */
export type FlowAppCategory = 'builtin' | 'connect';

/** A connection as an app's code sees it: credentials decrypted, for the call only. */
export interface FlowConnectionValue<C = Record<string, unknown>> {
  uuid: string;
  label: string;
  credentials: C;
}

/** How a `connect` app authenticates: the schema of the credentials a connection stores (encrypted at rest, never returned). */
export interface FlowAppAuth<S extends TSchema = TSchema> {
  schema: S;
  /** Shown to users when they create a connection. */
  description?: string;
}

/** What every piece of app code is given. */
export interface FlowAppContext {
  tenant: TenantRef;
  /** The current transaction. */
  em: EntityManager;
  /** The one HTTP client for outbound calls (SSRF-guarded, with timeouts and size caps). */
  egress: Egress;
  logger: Logger;
}

export interface FlowStepRef {
  flowUuid: string;
  stepUuid: string;
  /** The deployed version the step belongs to; null while testing a draft step. */
  versionUuid: string | null;
}

export interface ActionContext<I = unknown, C = Record<string, unknown>> extends FlowAppContext {
  /** The step's config with its `{{stepN.path}}` references rendered, validated against the action's input schema. */
  input: I;
  connection: FlowConnectionValue<C> | null;
  /** The step's `agent_uuid`, for actions of agent apps. */
  agentUuid: string | null;
  step: FlowStepRef;
  /** The execution; null while testing one step. */
  executionUuid: string | null;
  /**
   * Stable across every retry and resume of this step in this execution: send it with
   * outbound calls (an `Idempotency-Key` header, say) so a repeated call has no second effect.
   */
  idempotencyKey: string;
  /** Branching actions: the branch (one of the action's `branches`) whose children run next. */
  branch(key: string): void;
  /** Suspends the execution until `until`; it resumes with the next step through a delayed bus message, not a sleeping worker. */
  pause(options: { until: Date }): void;
}

export interface FlowActionDefinition<S extends TSchema = TSchema> {
  key: string;
  name: string;
  description: string;
  /** The step's `config`: a step is `ready` once its config validates against it. */
  input: S;
  /** What the action's output looks like, for the catalog and for references while building. */
  outputSample: unknown;
  /** A branching action (`if_condition`): the branch keys its children hang under, in display order. */
  branches?: readonly string[];
  /**
   * No effect outside the execution (logic steps). The engine may run several pure steps
   * in one transaction and, after a crash, run one again, since doing so changes nothing.
   */
  pure?: boolean;
  /** Returns the step's output (any JSON value). Throw to fail the step. */
  run(context: ActionContext<Static<S>>): unknown | Promise<unknown>;
}

/** What a trigger's lifecycle hooks are given: the deployed trigger step. */
export interface TriggerLifecycleContext<I = unknown> extends FlowAppContext {
  input: I;
  step: FlowStepRef & { versionUuid: string };
  agentUuid: string | null;
  bus: BusService;
}

export interface FlowTriggerDefinition<S extends TSchema = TSchema> {
  key: string;
  name: string;
  description: string;
  input: S;
  outputSample: unknown;
  /**
   * A trigger fired by calls to its own URL. The flows plugin gives the step a secret
   * token when it is created; these config members are derived from the step's hook URL
   * (`{tenant base url}/api/v1/hooks/{token}`), shown in `config` and read-only there.
   */
  hook?: { config(hookUrl: string): Record<string, unknown> };
  /** Runs in the deploying transaction (a schedule publishes its first tick here). */
  onDeploy?(context: TriggerLifecycleContext<Static<S>>): void | Promise<void>;
  /** Runs in the undeploying transaction. */
  onUndeploy?(context: TriggerLifecycleContext<Static<S>>): void | Promise<void>;
}

export interface FlowOption {
  label: string;
  value: string;
}

/**
 * What an option list answers: a page of options, or a state saying why it cannot
 * list yet (a connection that cannot reach its service, say). A state is not an error:
 * the user sees the message and can fix the cause.
 */
export type OptionsResult =
  | { options: FlowOption[]; nextCursor?: string | null }
  | { state: 'unavailable'; message: string };

export interface OptionsLoadContext<P = Record<string, unknown>, C = Record<string, unknown>> extends FlowAppContext {
  connection: FlowConnectionValue<C> | null;
  params: P;
  /** What the user typed; only passed to a `searchable` provider. */
  search: string | null;
  /** The `nextCursor` of the previous page; only passed to a `searchable` provider. */
  cursor: string | null;
}

export interface OptionsProviderDefinition<P extends TSchema = TSchema> {
  kind: string;
  description?: string;
  /** Schema of `params` (an object); a missing required member is a 422. */
  params: P;
  /**
   * A searchable provider searches and pages upstream itself (n8n's listSearch). Otherwise
   * `load` returns the whole list and the server filters it by `search` and pages it.
   */
  searchable?: boolean;
  /**
   * A page of options, or a state when the list cannot load yet. A ValidationError
   * thrown here (a cursor it never returned: `{cursor: [...]}`) is the caller's 422;
   * anything else thrown is a 502 naming the app.
   */
  load(context: OptionsLoadContext<Static<P>>): OptionsResult | Promise<OptionsResult>;
}

export interface FlowAppDefinition {
  /** Unique, `a-z0-9_`: how steps and connections name the app. */
  uid: string;
  name: string;
  description: string;
  /** A URL or a data: URI. */
  icon: string;
  category: FlowAppCategory;
  /** Required for `connect` apps, absent for `builtin` ones. */
  auth?: FlowAppAuth;
  /** Actions of this app need the step's `agent_uuid` (rule 6 of step creation). */
  requiresAgent?: boolean;
  triggers?: FlowTriggerDefinition<any>[];
  actions?: FlowActionDefinition<any>[];
  options?: OptionsProviderDefinition<any>[];
}

/** Triggers, actions or option lists a plugin adds to an app another plugin defines. */
export interface FlowAppExtension {
  /** The extended app's uid. */
  app: string;
  /** Who adds them, for boot errors (the contributing plugin's id). */
  by: string;
  triggers?: FlowTriggerDefinition<any>[];
  actions?: FlowActionDefinition<any>[];
  options?: OptionsProviderDefinition<any>[];
}

/** Identity helpers that keep each input's type tied to its schema. */
export const defineFlowApp = (app: FlowAppDefinition): FlowAppDefinition => app;
export const defineFlowAppExtension = (extension: FlowAppExtension): FlowAppExtension => extension;
export const defineAction = <S extends TSchema>(action: FlowActionDefinition<S>): FlowActionDefinition<S> => action;
export const defineTrigger = <S extends TSchema>(trigger: FlowTriggerDefinition<S>): FlowTriggerDefinition<S> => trigger;
export const defineOptions = <P extends TSchema>(provider: OptionsProviderDefinition<P>): OptionsProviderDefinition<P> => provider;
