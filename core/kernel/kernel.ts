import 'reflect-metadata';
import fs from 'node:fs';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { container as rootContainer, type DependencyContainer } from 'tsyringe';
import type { MikroORM } from '@mikro-orm/postgresql';
import type winston from 'winston';
import { loadConfig, type LoadedConfig } from '../config/load-config';
import { currentContext, currentTenant, runInContext } from '../context/request-context';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../data/embedded-postgres';
import { createOrm } from '../data/orm';
import { migrateWithLock } from '../data/migrate';
import { PgListener } from '../data/pg-listener';
import { Authenticator } from '../http/authenticate';
import { createExpressApp } from '../http/express-app';
import { HttpServer } from '../http/http-server';
import { IdempotencyPruner, IdempotencyStore } from '../http/idempotency-store';
import { Readiness } from '../http/readiness';
import { RouteRegistry } from '../http/route-registry';
import { createRootLogger, type Logger } from '../logging/logger';
import type { PluginMigration } from '../plugin/define-plugin';
import { collectExtensions } from '../plugin/extension-registry';
import { installedPlugins, loadPlugins, type LoadedPlugin, type PluginSource } from '../plugin/plugin-source';
import { isServiceRef, type ServiceFactory, type ServiceRef } from '../plugin/service-ref';
import { coreServices, isConfigRef, type ProcessRole } from '../services/core-services';
import { adminRoutes } from '../tenancy/admin-routes';
import { Bus } from '../bus/bus';
import { coreEntities } from './core-entities';
import { deadLetterRoutes } from '../bus/dead-letter-routes';
import { handlerConnectionsFor } from '../bus/handler-connections';
import { createSecrets } from '../secrets/create-secrets';
import { createEgress, type Egress } from '../egress';
import { createLlmService, createOpenAiCompatibleProvider, llmProviders, LlmUsage, type KernelLlmService } from '../llm';
import { Metrics, MetricsServer } from '../metrics';
import type { Secrets } from '../secrets/secrets';
import { ApiToken } from '../tenancy/api-token.entity';
import { AUTH_CHANNEL, TenantDirectory } from '../tenancy/tenant-directory';
import { Tenant } from '../tenancy/tenant.entity';
import { TenantDeletion } from '../tenancy/tenant-deletion.entity';
import { TenantDeletionJob } from '../tenancy/tenant-deletion';
import { TenantLifecycle } from '../tenancy/tenant-lifecycle';
import { IdempotencyKey } from '../http/idempotency-key.entity';
import { coreMigrations } from '../migrations';
import { RateBucketRow, TenantQuotaRow } from '../limits/limits.entities';
import { quotaDefaultsOf } from '../limits/limits-config';
import { createQuotaService } from '../limits/quota-service';
import { registerQuotaDefaults } from '../limits/quotas';
import { BucketPruner, RateBuckets } from '../limits/rate-buckets';
import { RateLimiter } from '../limits/rate-limiter';
import { RequestLimits } from '../limits/request-limits';
import { ModelTokenQuota } from '../limits/model-token-quota';
import { BootError } from '../errors/boot-error';

export const ROOT_DIR = path.resolve(__dirname, '..', '..');

export interface KernelOptions {
  role: ProcessRole;
  /** The plugins to load; by default those in `plugins/`, PLUGINS_PATH and PLUGINS_PACKAGES. */
  plugins?: PluginSource[];
  env?: NodeJS.ProcessEnv;
  /** Config values that win over every other source. */
  config?: Record<string, unknown>;
  configDir?: string;
  /** Apply pending migrations during boot; defaults to MIGRATE_ON_START (so `tenant create` works on a fresh install). */
  migrate?: boolean;
  logTransports?: winston.transport[];
}

type StopHook = { pluginId: string; hook: () => void | Promise<void> };

/** What boot assembles before the plugins initialise. */
interface KernelParts {
  config: LoadedConfig;
  logger: Logger;
  plugins: LoadedPlugin[];
  orm: MikroORM;
  tenants: TenantDirectory;
  notifications: PgListener;
  bus: Bus;
  secrets: Secrets;
  egress: Egress;
  llm: KernelLlmService;
  metrics: Metrics;
  container: DependencyContainer;
  database: EmbeddedDatabase | undefined;
}

/**
 * The lifecycle: discover -> order -> register -> validate config -> ORM ->
 * migrate -> init plugins -> start -> stop in reverse. Plugins reach the kernel only
 * through the services in their `deps` and the extension points they provide or
 * contribute to.
 */
export class Kernel {
  readonly registry = new RouteRegistry();
  readonly readiness = new Readiness();
  private server?: HttpServer;
  private address?: AddressInfo;
  private readonly startHooks: StopHook[] = [];
  private readonly stopHooks: StopHook[] = [];
  private stopping?: Promise<void>;

  readonly config: LoadedConfig;
  readonly logger: Logger;
  readonly plugins: LoadedPlugin[];
  readonly orm: MikroORM;
  readonly tenants: TenantDirectory;
  /** The process's one LISTEN connection (the relay's wake-ups, the auth cache's revocations). */
  private readonly notifications: PgListener;
  private stopAuthListening?: () => Promise<void>;
  readonly bus: Bus;
  readonly secrets: Secrets;
  readonly egress: Egress;
  readonly llm: KernelLlmService;
  /** This kernel's Prometheus registry (core/metrics); served when METRICS_PORT or METRICS_TOKEN is set. */
  readonly metrics: Metrics;
  private metricsServer?: MetricsServer;
  private metricsAddress?: AddressInfo;
  /** Deletes expired Idempotency-Key rows hourly, in the processes that serve HTTP. */
  private idempotencyPruner?: IdempotencyPruner;
  /** Deletes idle rate-limit buckets hourly, in the processes that serve HTTP. */
  private bucketPruner?: BucketPruner;
  readonly container: DependencyContainer;
  private readonly database: EmbeddedDatabase | undefined;

  private constructor(
    readonly options: KernelOptions,
    parts: KernelParts,
  ) {
    this.config = parts.config;
    this.logger = parts.logger;
    this.plugins = parts.plugins;
    this.orm = parts.orm;
    this.tenants = parts.tenants;
    this.notifications = parts.notifications;
    this.bus = parts.bus;
    this.secrets = parts.secrets;
    this.egress = parts.egress;
    this.llm = parts.llm;
    this.metrics = parts.metrics;
    this.container = parts.container;
    this.database = parts.database;
  }

  static async boot(options: KernelOptions): Promise<Kernel> {
    const env = options.env ?? process.env;
    // Which plugins to load is itself configuration, so read the core settings first.
    const preliminary = loadConfig({ env, configDir: options.configDir, overrides: options.config, lenient: true });
    const sources = options.plugins ?? installedPlugins(ROOT_DIR, preliminary.core);
    const plugins = loadPlugins(sources, preliminary.core.disabledPlugins);

    const slices = Object.fromEntries(plugins.filter(({ plugin }) => plugin.config).map(({ plugin }) => [plugin.id, plugin.config!]));
    const config = loadConfig({ env, configDir: options.configDir, overrides: options.config, pluginSlices: slices });
    const logger = createRootLogger({ level: config.core.logLevel, format: config.core.logFormat, transports: options.logTransports });
    // The kernel owns the points of its own slots (the LLM provider); plugins own the rest.
    const extensions = collectExtensions(plugins, [llmProviders]);
    const serviceProviders = collectServiceProviders(plugins);
    checkDeps(plugins, serviceProviders);
    // A boot that fails before its embedded database runs leaves no DATA_DIR it made itself (the secrets key is made first).
    const madeDataDir = !config.core.databaseUrl && !fs.existsSync(path.resolve(config.core.dataDir));
    // Before the database starts, so a bad or missing key stops boot at once.
    const secrets = createSecrets(config.core, { dataDir: config.core.dataDir, embedded: !config.core.databaseUrl, logger });
    const egress = createEgress(config.core, logger.child({ service: 'egress' }));

    let database: EmbeddedDatabase | undefined;
    let clientUrl = config.core.databaseUrl;
    if (!clientUrl) {
      try {
        database = await startEmbeddedPostgres({ dataDir: config.core.dataDir, port: config.core.embeddedPostgresPort, logger });
      } catch (error) {
        if (madeDataDir) fs.rmSync(path.resolve(config.core.dataDir), { recursive: true, force: true });
        throw error;
      }
      clientUrl = database.url;
    }

    let orm: MikroORM | undefined;
    try {
      const migrations: PluginMigration[] = [
        ...coreMigrations.map((m) => ({ ...m, name: `core/${m.name}` })),
        ...plugins.flatMap(({ plugin }) => (plugin.migrations ?? []).map((m) => ({ ...m, name: `${plugin.id}/${m.name}` }))),
      ];
      orm = createOrm({
        clientUrl,
        entities: [...coreEntities, ...plugins.flatMap(({ plugin }) => plugin.entities ?? [])],
        migrations,
        poolMax: config.core.databasePoolMax,
        poolMin: config.core.databasePoolMin,
        preparedStatements: config.core.databasePreparedStatements,
        rowLevelSecurity: config.core.databaseRowLevelSecurity,
        logger,
      });
      await orm.connect();
      registerQuotaDefaults(orm.em, quotaDefaultsOf(config.core));
      // A CLI command serves no metrics, so it records none.
      const metrics = new Metrics(options.role === 'cli' ? { ...config.core, metricsPort: 0, metricsToken: '' } : config.core);
      metrics.watchDatabase(orm, config.core.databasePoolMax, logger.child({ component: 'metrics' }));
      const migrate = options.migrate ?? config.core.migrateOnStart;
      if (migrate) {
        const applied = await migrateWithLock(orm, clientUrl);
        if (applied.length > 0) logger.info('applied migrations', { migrations: applied });
      }

      const tenants = new TenantDirectory(orm, config.core.authCacheTtlMs, new Set(config.core.reservedSlugs));
      const notifications = new PgListener(clientUrl);
      const bus = new Bus(orm, tenants, logger, notifications, {
        amqpUrl: config.core.amqpUrl,
        namespace: config.core.busNamespace,
        relayBatchSize: config.core.busRelayBatchSize,
        pollIntervalMs: config.core.busPollIntervalMs,
        leaseSeconds: config.core.busLeaseSeconds,
        maxInFlight: config.core.busMaxInFlight,
        inboxRetentionDays: config.core.busInboxRetentionDays,
        handlerConnections: handlerConnectionsFor(config.core.databasePoolMax, config.core.busHandlerConnections),
        defaultAttempts: config.core.busDefaultAttempts,
        backoffInitialMs: config.core.busBackoffInitialMs,
        backoffMaxMs: config.core.busBackoffMaxMs,
      }, metrics.bus);
      const llmLogger = logger.child({ component: 'llm' });
      const llm = createLlmService({
        provider: extensions.get(llmProviders) ?? createOpenAiCompatibleProvider({ config: config.core, egress, logger: llmLogger }),
        orm,
        logger: llmLogger,
        metrics: metrics.llm,
        tokenQuota: new ModelTokenQuota(orm),
      });
      const container = rootContainer.createChildContainer();
      const kernel = new Kernel(options, { config, logger, plugins, orm, tenants, notifications, bus, secrets, egress, llm, metrics, container, database });
      kernel.readiness.add({ name: 'database', check: async () => void (await orm!.em.fork().getConnection().execute('select 1')) });
      if (config.core.amqpUrl) kernel.readiness.add({ name: 'broker', check: () => bus.checkBroker() });
      const lifecycle = new TenantLifecycle(orm, tenants, bus.outbox, logger.child({ component: 'tenancy' }));
      // Deleted tenants' data goes in the background, on whichever process consumes.
      new TenantDeletionJob(orm, logger.child({ component: 'tenancy' })).register(bus.serviceFor('core'));
      for (const route of [...adminRoutes(tenants, lifecycle), ...deadLetterRoutes(orm, bus.outbox)]) kernel.registry.add('core', route);
      await kernel.initPlugins(extensions, serviceProviders);
      return kernel;
    } catch (error) {
      await egress.close().catch(() => {});
      await orm?.close(true).catch(() => {});
      await database?.stop().catch(() => {});
      throw error;
    }
  }

  /** Runs start hooks, then listens for HTTP (roles `serve` and `start`). */
  async start(): Promise<void> {
    for (const { pluginId, hook } of this.startHooks) {
      this.logger.debug('starting plugin', { plugin: pluginId });
      await hook();
    }
    this.registry.seal();
    // Revocations made by other processes reach this one's auth cache at once.
    if (this.config.core.authCacheTtlMs > 0) {
      const tenants = this.tenants;
      this.stopAuthListening = await this.notifications.subscribe(AUTH_CHANNEL, (payload) => tenants.forget(payload), () => tenants.forget());
    }
    await this.bus.start(this.options.role);
    if (this.options.role === 'serve' || this.options.role === 'start') {
      const server = new HttpServer(
        createExpressApp({
          registry: this.registry,
          orm: this.orm,
          authenticator: new Authenticator(this.tenants, this.config.core),
          readiness: this.readiness,
          logger: this.logger,
          bodyLimit: this.config.core.bodyLimit,
          bodyMaxDepth: this.config.core.bodyMaxDepth,
          secrets: this.secrets,
          uploadLimit: this.config.core.uploadLimit,
          trustProxy: this.config.core.trustProxy,
          openApi: { baseDomain: this.config.core.baseDomain, port: this.config.core.port },
          isDraining: () => server.isDraining(),
          metrics: this.metrics,
          limits: new RequestLimits(
            new RateLimiter(new RateBuckets(() => this.orm.em.fork({ disableContextResolution: true })), this.config.core.rateLimitMaxKeys, this.logger.child({ component: 'rate-limits' })),
            this.config.core,
          ),
        }),
      );
      this.server = server;
      this.idempotencyPruner = new IdempotencyPruner(new IdempotencyStore(this.orm, this.secrets), this.logger.child({ component: 'idempotency' }));
      this.idempotencyPruner.start();
      this.bucketPruner = new BucketPruner(
        () => this.orm.em.fork({ disableContextResolution: true }),
        (error) => this.logger.warn('rate bucket pruning failed', { error: String(error) }),
      );
      this.bucketPruner.start();
      this.address = await server.listen(this.config.core.port, this.config.core.host);
      this.logger.info('Switchboard listening', { url: this.url, role: this.options.role });
    }
    // Every role but the CLI, so workers, which serve no HTTP, are scraped too.
    if (this.config.core.metricsPort > 0 && this.options.role !== 'cli') {
      this.metricsServer = new MetricsServer(this.metrics);
      this.metricsAddress = await this.metricsServer.listen(this.config.core.metricsPort, this.config.core.metricsHost);
      this.logger.info('metrics served', { url: `${this.metricsUrl}/metrics` });
    }
  }

  /** `http://<METRICS_HOST>:<METRICS_PORT>` of the separate metrics server, once listening. */
  get metricsUrl(): string {
    if (!this.metricsAddress) throw new Error('the metrics server is not listening');
    return urlOf(this.metricsAddress);
  }

  /** `http://127.0.0.1:<port>` once listening. */
  get url(): string {
    if (!this.address) throw new Error('the kernel is not listening');
    return urlOf(this.address);
  }

  /**
   * Drains HTTP, runs stop hooks in reverse plugin order, closes the pool and the embedded
   * database. A step that fails does not skip the ones after it (the pool and the database
   * still close); the failures are reported together once every step has run.
   */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      const failures: unknown[] = [];
      const step = async (name: string, run: () => unknown): Promise<void> => {
        try {
          await run();
        } catch (error) {
          failures.push(new Error(`${name}: ${error instanceof Error ? error.message : String(error)}`, { cause: error }));
        }
      };
      await step('draining HTTP', () => this.server?.drain(this.config.core.shutdownTimeoutMs));
      await step('closing the metrics server', () => this.metricsServer?.close());
      this.idempotencyPruner?.stop();
      this.bucketPruner?.stop();
      await step('stopping the bus', () => this.bus.stop());
      await step('stopping the auth listener', () => this.stopAuthListening?.());
      await step('closing the LISTEN connection', () => this.notifications.close());
      for (const { pluginId, hook } of [...this.stopHooks].reverse()) {
        try {
          await hook();
        } catch (error) {
          this.logger.error('plugin stop hook failed', { plugin: pluginId, error: String(error) });
        }
      }
      // Plugins' stop hooks may still call out or record LLM usage, so these close after them.
      await step('recording LLM usage', () => this.llm.flushUsage());
      await step('closing outbound connections', () => this.egress.close());
      await step('closing the database pool', () => this.orm.close(true));
      await step('stopping the embedded database', () => this.database?.stop());
      await step('disposing services', () => this.container.dispose());
      if (failures.length === 1) throw failures[0];
      if (failures.length > 1) throw new AggregateError(failures, failures.map((failure) => (failure as Error).message).join('; '));
    })();
    return this.stopping;
  }

  private async initPlugins(extensions: ReturnType<typeof collectExtensions>, providers: Map<string, Provider>): Promise<void> {
    this.registerRootServices();
    const pluginContainers = new Map<string, DependencyContainer>();
    for (const { plugin } of this.plugins) {
      const scoped = this.container.createChildContainer();
      this.registerPluginServices(scoped, plugin.id);
      pluginContainers.set(plugin.id, scoped);
      const resolve = async (ref: ServiceRef<unknown>): Promise<unknown> => {
        const provider = providers.get(ref.id);
        if (!provider) return scoped.resolve(ref.id);
        if (!this.container.isRegistered(ref.id)) {
          const owner = pluginContainers.get(provider.pluginId)!;
          const deps = await resolveDeps(provider.factory.deps, (inner) => (providers.has(inner.id) ? resolve(inner) : Promise.resolve(owner.resolve(inner.id))));
          this.container.register(ref.id, { useValue: await provider.factory.factory(deps, { extensions }) });
        }
        return this.container.resolve(ref.id);
      };
      const deps = await resolveDeps(plugin.deps ?? {}, resolve);
      try {
        await plugin.init?.(deps as any, { pluginId: plugin.id, extensions });
      } catch (error) {
        if (error instanceof BootError) throw error;
        throw new BootError(`plugin "${plugin.id}" failed to initialise: ${(error as Error).stack ?? error}`);
      }
      this.logger.debug('plugin initialised', { plugin: plugin.id });
    }
  }

  private registerRootServices(): void {
    const orm = this.orm;
    this.container.register(coreServices.egress.id, { useValue: this.egress });
    this.container.register(coreServices.quotas.id, { useValue: createQuotaService() });
    this.container.register(coreServices.llm.id, { useValue: this.llm });
    this.container.register(coreServices.orm.id, {
      useValue: {
        get em() {
          return orm.em as any;
        },
        fork: () => orm.em.fork(),
        orm,
      },
    });
    this.container.register(coreServices.secrets.id, { useValue: this.secrets });
    this.container.register(coreServices.rootConfig.id, { useValue: Object.freeze({ ...this.config.core }) });
    this.container.register(coreServices.tenant.id, {
      useValue: {
        current: currentTenant,
        require: () => {
          const tenant = currentTenant();
          if (!tenant) throw new Error('no tenant in the current work context');
          return tenant;
        },
        // The rest of the context (request id, unit of work) carries on.
        run: (tenant, fn) => runInContext({ ...currentContext(), tenant }, fn),
      } satisfies import('../services/core-services').TenantService,
    });
    this.container.register(coreServices.readiness.id, { useValue: { add: (check) => this.readiness.add(check) } satisfies import('../services/core-services').ReadinessService });
  }

  private registerPluginServices(scoped: DependencyContainer, pluginId: string): void {
    scoped.register(coreServices.logger.id, { useValue: this.logger.child({ plugin: pluginId }) });
    scoped.register(coreServices.http.id, { useValue: { route: (route) => this.registry.add(pluginId, route) } satisfies import('../services/core-services').HttpService });
    scoped.register(coreServices.bus.id, { useValue: this.bus.serviceFor(pluginId) });
    scoped.register(coreServices.metrics.id, { useValue: this.metrics.serviceFor(pluginId) });
    const hasSlice = this.plugins.some(({ plugin }) => plugin.id === pluginId && plugin.config);
    scoped.register(coreServices.config.id, {
      useValue: {
        get: (key: string) => this.config.get(`${pluginId}.${key}`),
        all: () => (hasSlice ? this.config.get(pluginId) : {}),
      } satisfies import('../services/core-services').UntypedPluginConfig,
    });
    scoped.register(coreServices.lifecycle.id, {
      useValue: {
        role: this.options.role,
        onStart: (hook) => void this.startHooks.push({ pluginId, hook }),
        onStop: (hook) => void this.stopHooks.push({ pluginId, hook }),
      } satisfies import('../services/core-services').LifecycleService,
    });
  }
}

/** How this machine reaches a server listening at `address` (a wildcard address through loopback). */
function urlOf(address: AddressInfo): string {
  const host = address.address === '0.0.0.0' || address.address === '::' ? '127.0.0.1' : address.address;
  return `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`;
}

interface Provider {
  pluginId: string;
  factory: ServiceFactory<unknown, any>;
}

const CORE_SERVICE_IDS = new Set(Object.values(coreServices).map((ref) => ref.id));

export function collectServiceProviders(plugins: LoadedPlugin[]): Map<string, Provider> {
  const providers = new Map<string, Provider>();
  for (const { plugin } of plugins) {
    for (const factory of plugin.services ?? []) {
      const id = factory.service.id;
      if (CORE_SERVICE_IDS.has(id)) throw new BootError(`plugin "${plugin.id}" may not replace core service "${id}"`);
      const existing = providers.get(id);
      if (existing) throw new BootError(`service "${id}" is provided by both "${existing.pluginId}" and "${plugin.id}"`);
      providers.set(id, { pluginId: plugin.id, factory });
    }
  }
  return providers;
}

/** Every dep must be a core service or a service of a plugin this one depends on. */
export function checkDeps(plugins: LoadedPlugin[], providers: Map<string, Provider>): void {
  for (const { plugin } of plugins) {
    const check = (deps: Record<string, unknown>, owner: string, allowed: string[]) => {
      for (const [name, ref] of Object.entries(deps)) {
        if (!isServiceRef(ref)) throw new BootError(`plugin "${owner}": deps.${name} is not a service ref`);
        // Its types are those of the schema it names, so that must be the slice the kernel hands over.
        if (isConfigRef(ref) && ref.schema !== plugin.config) {
          throw new BootError(`plugin "${owner}": deps.${name} is configRef() of another schema than the plugin's own \`config\``);
        }
        if (CORE_SERVICE_IDS.has(ref.id)) continue;
        const provider = providers.get(ref.id);
        if (!provider) throw new BootError(`plugin "${owner}" needs service "${ref.id}" (deps.${name}), which no loaded plugin provides`);
        if (provider.pluginId !== owner && !allowed.includes(provider.pluginId)) {
          throw new BootError(`plugin "${owner}" uses service "${ref.id}" of plugin "${provider.pluginId}" without listing it in dependsOn`);
        }
      }
    };
    check(plugin.deps ?? {}, plugin.id, plugin.dependsOn ?? []);
    for (const factory of plugin.services ?? []) check(factory.deps, plugin.id, plugin.dependsOn ?? []);
  }
}

async function resolveDeps(deps: Record<string, ServiceRef<unknown>>, resolve: (ref: ServiceRef<unknown>) => Promise<unknown>) {
  const out: Record<string, unknown> = {};
  for (const [name, ref] of Object.entries(deps)) out[name] = await resolve(ref);
  return out;
}
