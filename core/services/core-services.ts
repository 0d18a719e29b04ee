import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { TenantRef } from '../context/request-context';
import type { CoreConfig } from '../config/config-schema';
import type { Logger } from '../logging/logger';
import type { RouteDefinition } from '../http/route';
import type { ReadinessCheck } from '../http/readiness';
import { createServiceRef, type ServiceRef } from '../plugin/service-ref';
import type { ConfigValues, ConvictSchema } from '../config/convict-schema';
import type { BusService } from '../bus/bus-types';
import type { SecretsService } from '../secrets/secrets';
import type { Egress } from '../egress';
import type { LlmService } from '../llm/llm-types';
import type { MetricsService } from '../metrics/metrics-service';
import type { QuotaService } from '../limits/quota-service';

export interface HttpService {
  /** Adds a route to the registry; its schemas drive validation and the OpenAPI document. */
  route<R extends RouteDefinition<any, any, any>>(route: R): void;
}

export interface OrmService {
  /** The EntityManager of the current request or message (a fork, in its transaction). */
  readonly em: EntityManager;
  /** A fresh EntityManager for work outside a request (schedulers, consumers). */
  fork(): EntityManager;
  readonly orm: MikroORM;
}

/** A plugin's config slice with the types its schema gives (`ConfigValues`). */
export interface TypedPluginConfig<V> {
  /** One setting: `get('retrySchedule')` is a string; a key the schema lacks does not compile. */
  get<K extends keyof V & string>(key: K): V[K];
  /** Every setting of the slice, as validated at boot (a copy). */
  all(): V;
}

/** The slice read by string keys, for a plugin whose deps name `coreServices.config` rather than `configRef(schema)`. */
export interface UntypedPluginConfig {
  get<T = unknown>(key: string): T;
  all(): Record<string, unknown>;
}

/** `PluginConfig<typeof schema>`: the typed reading of that slice; without a schema, the untyped one. */
export type PluginConfig<S extends ConvictSchema | undefined = undefined> = S extends ConvictSchema ? TypedPluginConfig<ConfigValues<S>> : UntypedPluginConfig;

/** A `config` dep typed by the plugin's own schema; the kernel checks at boot that it is the plugin's `config`. */
export interface PluginConfigRef<S extends ConvictSchema> extends ServiceRef<PluginConfig<S>> {
  readonly schema: S;
}

export interface TenantService {
  current(): TenantRef | undefined;
  /** The current tenant; throws outside a tenant's work. */
  require(): TenantRef;
  /** Runs `fn` as work of `tenant` (what bus consumers do for a message's tenant). */
  run<T>(tenant: TenantRef, fn: () => T): T;
}

export type ProcessRole = 'start' | 'serve' | 'worker' | 'cli';

export interface LifecycleService {
  /** What this process runs: `serve` (HTTP), `worker` (background work), `start` (both), `cli`. */
  readonly role: ProcessRole;
  /** Runs after every plugin is initialised, before HTTP listens (not in `cli`). */
  onStart(hook: () => void | Promise<void>): void;
  /** Runs on shutdown, in reverse plugin order, after in-flight requests drained. */
  onStop(hook: () => void | Promise<void>): void;
}

export interface ReadinessService {
  /** Adds a dependency that `/readyz` reports on. */
  add(check: ReadinessCheck): void;
}

/** The services every plugin may name in its `deps`. */
export const coreServices = {
  http: createServiceRef<HttpService>('core.http'),
  orm: createServiceRef<OrmService>('core.orm'),
  /** This plugin's config slice by string keys; `configRef(schema)` is the typed one. */
  config: createServiceRef<UntypedPluginConfig>('core.config'),
  rootConfig: createServiceRef<Readonly<CoreConfig>>('core.rootConfig'),
  logger: createServiceRef<Logger>('core.logger'),
  tenant: createServiceRef<TenantService>('core.tenant'),
  lifecycle: createServiceRef<LifecycleService>('core.lifecycle'),
  readiness: createServiceRef<ReadinessService>('core.readiness'),
  bus: createServiceRef<BusService>('core.bus'),
  secrets: createServiceRef<SecretsService>('core.secrets'),
  egress: createServiceRef<Egress>('core.egress'),
  llm: createServiceRef<LlmService>('core.llm'),
  /** Counters, gauges and histograms served at `/metrics`, named `switchboard_<plugin>_...`. */
  metrics: createServiceRef<MetricsService>('core.metrics'),
  /** Tenant quotas (agents, flows, table rows, ...): `check` at the moment of creation, in the request's transaction. */
  quotas: createServiceRef<QuotaService>('core.quotas'),
};

/**
 * The plugin's own config slice, typed by its schema: name it in `deps` as
 * `config: configRef(notesConfig)`, with `config: notesConfig` in the definition.
 */
export function configRef<S extends ConvictSchema>(schema: S): PluginConfigRef<S> {
  return Object.freeze({ ...createServiceRef<PluginConfig<S>>(coreServices.config.id), schema });
}

/** A ref made by `configRef`: what the kernel compares with the plugin's `config`. */
export function isConfigRef(ref: ServiceRef<unknown>): ref is PluginConfigRef<ConvictSchema> {
  return ref.id === coreServices.config.id && 'schema' in ref;
}
