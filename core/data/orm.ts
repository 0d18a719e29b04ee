import { MikroORM, type Options } from '@mikro-orm/postgresql';
import { ReflectMetadataProvider } from '@mikro-orm/decorators/legacy';
import { Migrator } from '@mikro-orm/migrations';
import type { Logger } from '../logging/logger';
import type { PluginMigration } from '../plugin/define-plugin';
import { currentContext } from '../context/request-context';
import { isTenantScoped } from './tenant-scoped-entity';
import { tenantFilter, TenantStampSubscriber } from './tenant-filter';
import { usePreparedStatements } from './prepared-statements';
import { recordOrmPool, type PgPool } from './orm-pool';

export const MIGRATIONS_TABLE = 'switchboard_migrations';

export interface OrmOptions {
  clientUrl: string;
  entities: Function[];
  migrations: PluginMigration[];
  poolMax: number;
  /** Registered statements run as named prepared statements (see prepared-statements.ts); default true. */
  preparedStatements?: boolean;
  logger: Logger;
}

export function createOrm(options: OrmOptions): MikroORM {
  let pool: PgPool | undefined;
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
    pool: { min: 0, max: options.poolMax, idleTimeoutMillis: 30_000 },
    driverOptions: {
      connectionTimeoutMillis: 5_000,
      onPoolCreated: (created: PgPool) => {
        pool = created;
        if (options.preparedStatements !== false) created.on('connect', usePreparedStatements);
      },
    },
    filters: { tenant: tenantFilter(tenantScoped) },
    subscribers: [new TenantStampSubscriber()],
    discovery: { warnWhenNoEntities: false },
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
  return orm;
}
