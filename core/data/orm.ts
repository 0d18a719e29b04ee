import { MikroORM, type Options } from '@mikro-orm/postgresql';
import type { MetadataStorage } from '@mikro-orm/core';
import { ReflectMetadataProvider } from '@mikro-orm/decorators/legacy';
import { Migrator } from '@mikro-orm/migrations';
import type { Logger } from '../logging/logger';
import type { PluginMigration } from '../plugin/define-plugin';
import { currentContext } from '../context/request-context';
import { isTenantScoped } from './tenant-scoped-entity';
import { tenantFilter, TenantStampSubscriber } from './tenant-filter';
import { usePreparedStatements } from './prepared-statements';
import { recordOrmPool, type PgPool } from './orm-pool';
import { declareTenantPolicies, recordRowLevelSecurity, useTenantSetting } from './row-level-security';

export const MIGRATIONS_TABLE = 'switchboard_migrations';

export interface OrmOptions {
  clientUrl: string;
  entities: Function[];
  migrations: PluginMigration[];
  poolMax: number;
  /** Connections kept open once opened (capped at poolMax); the others close after 30 s idle. Default 0. */
  poolMin?: number;
  /** Registered statements run as named prepared statements (see prepared-statements.ts); default true. */
  preparedStatements?: boolean;
  /** Keep `app.tenant_id` on every connection for the tables' tenant policies (row-level-security.ts); default true. */
  rowLevelSecurity?: boolean;
  logger: Logger;
}

export function createOrm(options: OrmOptions): MikroORM {
  let pool: PgPool | undefined;
  const rowLevelSecurity = options.rowLevelSecurity !== false;
  const tenantScoped = options.entities.filter(isTenantScoped).map((entity) => entity.name);
  const config: Options = {
    clientUrl: options.clientUrl,
    entities: options.entities,
    metadataProvider: ReflectMetadataProvider,
    extensions: [Migrator],
    // Plugin code must work on a request- or message-scoped fork, never the global EM.
    allowGlobalContext: false,
    // The fork of the current request or message (see WorkContext.em).
    context: () => currentContext()?.em,
    forceUtcTimezone: true,
    pool: { min: Math.min(options.poolMin ?? 0, options.poolMax), max: options.poolMax, idleTimeoutMillis: 30_000 },
    driverOptions: {
      connectionTimeoutMillis: 5_000,
      onPoolCreated: (created: PgPool) => {
        pool = created;
        if (options.preparedStatements !== false) created.on('connect', usePreparedStatements);
        // After usePreparedStatements, so that its wrapper is the outer one (it unwraps withCurrentTenant's texts).
        if (rowLevelSecurity) created.on('connect', useTenantSetting);
      },
    },
    filters: { tenant: tenantFilter(tenantScoped) },
    subscribers: [new TenantStampSubscriber()],
    // Relations here are keys (mapToPk), never two-sided: nothing to propagate from one
    // side to the other. MikroORM's propagation would still give every loaded entity
    // accessors of its own, one Object.defineProperty per property, and delete and re-add
    // each key to a relation, which turns the entity into a slow dictionary-mode object
    // (measured under callgrind: about 18,000 instructions of a one-entity read).
    propagationOnPrototype: false,
    discovery: {
      warnWhenNoEntities: false,
      afterDiscovered: (storage) => {
        withoutOneSidedTracking(storage);
        declareTenantPolicies(storage, rowLevelSecurity);
      },
    },
    migrations: {
      tableName: MIGRATIONS_TABLE,
      migrationsList: options.migrations.map((m) => ({ name: m.name, class: m.class as any })),
      transactional: true,
      allOrNothing: true,
      snapshot: false,
      silent: true,
    },
    logger: (message) => options.logger.debug(message, { component: 'orm' }),
  };
  const orm = new MikroORM(config);
  recordOrmPool(orm.config, () => pool);
  recordRowLevelSecurity(orm.config, rowLevelSecurity);
  lightenForks(orm);
  return orm;
}

/**
 * MikroORM re-adds every to-one relation of an entity it registers (`trackingProps`),
 * so that a two-sided relation's setter can keep the other side in step. A relation
 * kept as the other entity's key with no other side (mapToPk, every relation here) has
 * no such setter: re-adding it only costs the delete. Refuses a two-sided relation, so
 * that one being added later is noticed here rather than losing its propagation.
 */
function withoutOneSidedTracking(storage: MetadataStorage): void {
  for (const meta of storage.getAll().values()) {
    for (const prop of meta.trackingProps) {
      if ((prop.inversedBy || prop.mappedBy) && !prop.mapToPk) {
        throw new Error(`${meta.className}.${prop.name} is a two-sided relation: core/data/orm.ts turns propagation off (propagationOnPrototype)`);
      }
    }
    meta.trackingProps = [];
    // With nothing to track, all ensurePropagation would still do per registered entity
    // is define this flag on it (Object.defineProperties): the prototype answers it instead.
    if (meta.prototype) Object.defineProperty(meta.prototype, '__gettersDefined', { value: true, enumerable: false });
  }
}

/**
 * Two costs MikroORM's configuration adds to every `EntityManager.fork`, so to every
 * request and message; each was about 1 us of a request in a bench/api-read profile.
 *
 * - `fork` turns `allowGlobalContext` on in the shared configuration and back off, and
 *   every `Configuration.set` re-syncs the whole configuration: it writes
 *   MIKRO_ORM_COLORS into `process.env` (a call into libc's setenv) and resets the
 *   logger's debug mode. That one flag needs none of it: it is stored, and every other
 *   key still goes through `set`.
 * - A new EntityManager and its unit of work fetch their shared services (hydrator,
 *   comparator, ...) with `getCachedService`, which keys its cache by the class's
 *   `name` (a string read through a getter, with rest arguments): here the class itself
 *   is the key. MikroORM never resets that cache by itself; `resetServiceCache` resets
 *   both.
 */
function lightenForks(orm: MikroORM): void {
  const config = orm.config as unknown as {
    set(key: string, value: unknown): void;
    getCachedService(cls: Function, ...args: unknown[]): unknown;
    resetServiceCache(): void;
  };
  const options = orm.config.getAll();
  const set = config.set.bind(config);
  config.set = (key, value) => {
    if (key === 'allowGlobalContext') options.allowGlobalContext = value as boolean;
    else set(key, value);
  };
  const services = new Map<Function, unknown>();
  const getCachedService = config.getCachedService.bind(config);
  config.getCachedService = (cls, ...args) => {
    let service = services.get(cls);
    if (service === undefined) services.set(cls, (service = getCachedService(cls, ...args)));
    return service;
  };
  const resetServiceCache = config.resetServiceCache.bind(config);
  config.resetServiceCache = () => {
    services.clear();
    resetServiceCache();
  };
}
