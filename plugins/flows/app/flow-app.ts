import type { EntityManager } from '@mikro-orm/postgresql';
import type { BusMessage, BusService, Egress, Logger, ServiceRef, Static, TSchema, TenantRef } from '../../../core';
import type { ConnectionHttp, CredentialsOf, FlowAppAuth } from './auth';

export type { ConnectionHttp } from './auth';

export type { FlowAppAuth } from './auth';

/**
 * The flow-app API: what a plugin declares to add an app to the flow studio. An app
 * is data (its auth, triggers, actions and option lists), each input described by one
 * schema that drives validation, the step's `draft`/`ready` status, the catalog and
 * the OpenAPI document. Add an app with `flowApps.add(defineFlowApp({...}))` in the
 * plugin's `contributes`, or spread `contributeFlowApp(app)` (app-deps.ts) into the plugin
 * when the app names `deps`.
 */

/** `builtin` apps run inside Switchboard and take no connection; `connect` apps call an outside service through a connection. */
export type FlowAppCategory = 'builtin' | 'connect';

/** A connection as an app's code sees it: credentials decrypted, for the call only. */
export interface FlowConnectionValue<C = Record<string, unknown>> {
  uuid: string;
  label: string;
  credentials: C;
}

/**
 * What app code that may call its vendor is given besides the plain egress client:
 * `http`, the egress client with the connection's credentials applied (an OAuth2 access
 * token kept fresh: refreshed before it expires and once on a 401). Check answers with
 * `expectOk` (vendor-error.ts) so a refusal reaches the user as a clear message.
 */
export interface VendorCallContext {
  http: ConnectionHttp;
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

/**
 * The services an app's code uses, by name, as in a plugin's `deps` (Backstage's
 * backend system): `{ records: tableRecordsRef }`. An app (or an app extension) names
 * them once in its own `deps`; the kernel resolves them for the plugin that contributes
 * it (`contributeFlowApp`, app-deps.ts), so that plugin's `dependsOn` decides what it may name.
 */
export type FlowAppDeps = Record<string, ServiceRef<unknown>>;

/** The services of a deps map, as app code receives them in `context.deps`. */
export type ResolvedFlowAppDeps<D extends FlowAppDeps> = { [K in keyof D]: D[K] extends ServiceRef<infer T> ? T : never };

/** `context.deps`, typed, for code that names its app's deps (`defineAction({ deps, ... })`); nothing for code that names none. */
export type DepsContext<D extends FlowAppDeps> = keyof D extends never ? unknown : { deps: ResolvedFlowAppDeps<D> };

export interface FlowStepRef {
  flowUuid: string;
  stepUuid: string;
  /** The deployed version the step belongs to; null while testing a draft step. */
  versionUuid: string | null;
}

export interface ActionContext<I = unknown, C = Record<string, unknown>> extends FlowAppContext, VendorCallContext {
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

/**
 * What a trigger or action says about its version. A breaking change (an input member
 * renamed or reshaped, a meaning changed) is a new definition with the same key and the
 * next `version`, listed beside the old one (`actions: [sendV1, sendV2]`): a step keeps
 * the version it was created or upgraded with, a deployed flow runs the versions it was
 * deployed with for as long as the app still lists them, and new steps take the newest.
 */
export interface DefinitionVersion {
  /** A whole number, 1 or more; 1 when absent. */
  version?: number;
  /**
   * Required from version 2: turns the config of a step of an older version (`fromVersion`)
   * into one this version takes, when a draft step is upgraded (`POST .../steps/{step}/upgrade`).
   * Upgrading runs the `migrate` of each newer version the app lists in turn, each given the
   * version its config is at. Strings may hold references (`{{#<step uuid>.path}}`): move them, never parse them.
   */
  migrate?(config: Record<string, unknown>, fromVersion: number): Record<string, unknown>;
}

export interface FlowActionDefinition<S extends TSchema = TSchema, A extends FlowAppAuth = FlowAppAuth, D extends FlowAppDeps = {}> extends DefinitionVersion {
  /** The app's `auth`, to type `context.connection.credentials` (a boot error when it is not the app's own). */
  auth?: A;
  /** The app's `deps` (or the extension's that adds it), to type `context.deps` (a boot error when they are not among them). */
  deps?: D;
  key: string;
  name: string;
  description: string;
  /** The step's `config`: a step is `ready` once its config validates against it. */
  input: S;
  /** What the action's output looks like, for the catalog and for references while building. */
  outputSample: unknown;
  /** A branching action (`if_condition`): the branch keys its children hang under, in display order (the same in every version). */
  branches?: readonly string[];
  /**
   * Calls another system (a vendor's API, any URL). The engine runs it with no database
   * transaction open (its `em` reads only), in a segment of its own whose result then
   * commits with the execution's progress, so a slow vendor holds no connection. The
   * default for `connect` apps; a builtin app that calls out says so.
   */
  external?: boolean;
  /**
   * No effect outside the execution (logic steps). The engine may run several pure steps
   * in one transaction and, after a crash, run one again, since doing so changes nothing.
   */
  pure?: boolean;
  /** Returns the step's output (any JSON value). Throw to fail the step. */
  run(context: ActionContext<Static<S>, CredentialsOf<A>> & DepsContext<D>): unknown | Promise<unknown>;
}

/** What a trigger's lifecycle hooks are given: the deployed trigger step. */
export interface TriggerLifecycleContext<I = unknown> extends FlowAppContext {
  input: I;
  step: FlowStepRef & { versionUuid: string };
  agentUuid: string | null;
  bus: BusService;
}

/** What an event trigger's `matches` is given: the live trigger step the event is matched against, in the event's transaction. */
export interface TriggerEventContext extends FlowAppContext {
  step: FlowStepRef & { versionUuid: string };
  agentUuid: string | null;
}

/**
 * A trigger started by a bus event. The flows plugin consumes `topic` (one consumer per
 * trigger, `fire-<app>-<trigger>`) and, for each live flow of the trigger, starts one
 * execution with the message's payload as the trigger's output when `matches` says so,
 * in the transaction that records the message as handled (one execution per event and
 * flow, whatever the bus retries). An event caused by the flow itself (the `caused-by`
 * header is `flowCause(flowUuid)`, which its writes pass on) is skipped before `matches` is asked.
 */
export interface FlowTriggerEvent<I = unknown, D extends FlowAppDeps = {}> {
  /** The bus topic whose messages may start the flow (`tables.record.created`). */
  topic: string;
  /**
   * Whether this event starts the flow whose deployed config is `config` (the step's
   * agent, if any, is `context.agentUuid`). Runs inside the event's transaction: read
   * (the deps, the database), never call another system.
   */
  matches(config: I, message: BusMessage<unknown>, context: TriggerEventContext & DepsContext<D>): boolean | Promise<boolean>;
  /**
   * Bus consumer names (`<plugin>.<consumer>`) that fired this trigger in earlier
   * releases: their queued messages and inbox records carry over on upgrade
   * (ConsumerOptions.formerly).
   */
  formerly?: string[];
}

/** What a poll's `run` is given: the deployed trigger step. No transaction is open (`em` reads), so `run` may call other systems. */
export interface TriggerPollContext<I = unknown, C = Record<string, unknown>> extends FlowAppContext, VendorCallContext {
  input: I;
  connection: FlowConnectionValue<C> | null;
  agentUuid: string | null;
  step: FlowStepRef & { versionUuid: string };
}

/** A poll's answer: one execution per event (each event is the trigger's output), and the cursor the next poll is given. */
export interface PollResult {
  events: unknown[];
  /** Any JSON value: where the next poll takes up (the newest item seen, a timestamp). */
  cursor: unknown;
}

/**
 * A trigger that asks another system for what is new (Activepieces' polling triggers).
 * Deploying publishes the first poll, due at once; each poll then runs `run` with the
 * cursor the previous one returned (null the first time: take a baseline, usually with
 * no events), starts one execution per event, stores the new cursor and publishes the
 * next poll `intervalSeconds` later, all in one transaction. The version undeployed or
 * replaced, its polls stop. A `run` that throws is logged and the next poll tries
 * again with the same cursor. At most 500 events a poll (more is a failed poll): page with the cursor.
 */
export interface FlowTriggerPoll<I = unknown, D extends FlowAppDeps = {}, C = Record<string, unknown>> {
  intervalSeconds: number;
  run(context: TriggerPollContext<I, C> & DepsContext<D>, cursor: unknown): PollResult | Promise<PollResult>;
}

/** A trigger's versions must fire the same way (hook, event topic or poll): a trigger that fires another way is another trigger. */
export interface FlowTriggerDefinition<S extends TSchema = TSchema, D extends FlowAppDeps = {}, A extends FlowAppAuth = FlowAppAuth> extends DefinitionVersion {
  /** The app's `auth`, to type a poll's `context.connection.credentials` (a boot error when it is not the app's own). */
  auth?: A;
  /** The app's `deps` (or the extension's that adds it), to type `context.deps` (a boot error when they are not among them). */
  deps?: D;
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
  /** A trigger started by a bus event (see FlowTriggerEvent). A trigger has at most one of `hook`, `event` and `poll`. */
  event?: FlowTriggerEvent<Static<S>, D>;
  /** A trigger that polls another system (see FlowTriggerPoll). */
  poll?: FlowTriggerPoll<Static<S>, D, CredentialsOf<A>>;
  /** Runs in the deploying transaction (a schedule publishes its first tick here). */
  onDeploy?(context: TriggerLifecycleContext<Static<S>> & DepsContext<D>): void | Promise<void>;
  /** Runs in the undeploying transaction. */
  onUndeploy?(context: TriggerLifecycleContext<Static<S>> & DepsContext<D>): void | Promise<void>;
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

export interface OptionsLoadContext<P = Record<string, unknown>, C = Record<string, unknown>> extends FlowAppContext, VendorCallContext {
  connection: FlowConnectionValue<C> | null;
  params: P;
  /** What the user typed; only passed to a `searchable` provider. */
  search: string | null;
  /** The `nextCursor` of the previous page; only passed to a `searchable` provider. */
  cursor: string | null;
}

export interface OptionsProviderDefinition<P extends TSchema = TSchema, A extends FlowAppAuth = FlowAppAuth, D extends FlowAppDeps = {}> {
  /** The app's `auth`, to type `context.connection.credentials` (a boot error when it is not the app's own). */
  auth?: A;
  /** The app's `deps` (or the extension's that adds it), to type `context.deps` (a boot error when they are not among them). */
  deps?: D;
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
  load(context: OptionsLoadContext<Static<P>, CredentialsOf<A>> & DepsContext<D>): OptionsResult | Promise<OptionsResult>;
}

export interface FlowAppDefinition<D extends FlowAppDeps = {}> {
  /** Unique, `a-z0-9_`: how steps and connections name the app. */
  uid: string;
  name: string;
  description: string;
  /** A URL or a data: URI. */
  icon: string;
  category: FlowAppCategory;
  /** The app's release (semver: `1.4.0`), shown in the catalog. Informational: steps keep each trigger's and action's own `version`. */
  version?: string;
  /** Required for `connect` apps, absent for `builtin` ones: `Auth.apiKey()`, `Auth.basic()`, `Auth.oauth2({...})` or `Auth.custom(schema)` (auth.ts). */
  auth?: FlowAppAuth;
  /** Actions of this app need the step's `agent_uuid` (rule 6 of step creation). */
  requiresAgent?: boolean;
  /** The services its actions, triggers and option lists use (FlowAppDeps); contribute the app with `contributeFlowApp` so they are resolved. */
  deps?: D;
  triggers?: FlowTriggerDefinition<any>[];
  actions?: FlowActionDefinition<any>[];
  options?: OptionsProviderDefinition<any>[];
}

/** Triggers, actions or option lists a plugin adds to an app another plugin defines. */
export interface FlowAppExtension<D extends FlowAppDeps = {}> {
  /** The extended app's uid. */
  app: string;
  /** Who adds them, for boot errors (the contributing plugin's id). */
  by: string;
  /** The services the added definitions use (not the extended app's: the extension's own, resolved for its plugin). */
  deps?: D;
  triggers?: FlowTriggerDefinition<any>[];
  actions?: FlowActionDefinition<any>[];
  options?: OptionsProviderDefinition<any>[];
}

/** Identity helpers that keep each input's type tied to its schema. */
export const defineFlowApp = <D extends FlowAppDeps = {}>(app: FlowAppDefinition<D>): FlowAppDefinition<D> => app;
export const defineFlowAppExtension = <D extends FlowAppDeps = {}>(extension: FlowAppExtension<D>): FlowAppExtension<D> => extension;
export const defineAction = <S extends TSchema, A extends FlowAppAuth = FlowAppAuth, D extends FlowAppDeps = {}>(action: FlowActionDefinition<S, A, D>): FlowActionDefinition<S, A, D> =>
  action;
export const defineTrigger = <S extends TSchema, D extends FlowAppDeps = {}, A extends FlowAppAuth = FlowAppAuth>(trigger: FlowTriggerDefinition<S, D, A>): FlowTriggerDefinition<S, D, A> =>
  trigger;
export const defineOptions = <P extends TSchema, A extends FlowAppAuth = FlowAppAuth, D extends FlowAppDeps = {}>(
  provider: OptionsProviderDefinition<P, A, D>,
): OptionsProviderDefinition<P, A, D> => provider;
