import type convict from 'convict';

/** A convict schema object: what the core and each plugin's `config` slice are written in. */
export type ConvictSchema = convict.Schema<any>;

/**
 * The kernel's own settings. Each has an environment variable, so a container is
 * configured without files; `config/default.json`, `config/$NODE_ENV.json` and
 * `CONFIG_FILE` can set them too (environment variables win).
 */
export const coreConfigSchema = {
  port: { doc: 'HTTP port', format: 'port', default: 8080, env: 'PORT' },
  host: { doc: 'Address the HTTP server binds to', format: String, default: '0.0.0.0', env: 'HOST' },
  baseDomain: {
    doc: 'Tenants are addressed as {slug}.{BASE_DOMAIN}',
    format: String,
    default: 'localhost',
    env: 'BASE_DOMAIN',
  },
  trustProxy: {
    doc: 'Honour X-Forwarded-Host/-For from a reverse proxy',
    format: Boolean,
    default: false,
    env: 'TRUST_PROXY',
  },
  adminToken: {
    doc: 'Bearer token of the admin API (/admin/v1); the admin API is off while empty',
    format: String,
    default: '',
    env: 'ADMIN_TOKEN',
    sensitive: true,
  },
  databaseUrl: {
    doc: 'PostgreSQL connection URL; empty starts an embedded PostgreSQL in DATA_DIR',
    format: String,
    default: '',
    env: 'DATABASE_URL',
    sensitive: true,
  },
  databasePoolMax: { doc: 'Connections in the database pool', format: 'nat', default: 10, env: 'DATABASE_POOL_MAX' },
  dataDir: {
    doc: 'Folder for local state (the embedded database, generated keys)',
    format: String,
    default: './data',
    env: 'DATA_DIR',
  },
  embeddedPostgresPort: {
    doc: 'Port of the embedded PostgreSQL (loopback only)',
    format: 'port',
    default: 54329,
    env: 'EMBEDDED_POSTGRES_PORT',
  },
  amqpUrl: {
    doc: 'RabbitMQ URL; empty delivers bus messages in-process',
    format: String,
    default: '',
    env: 'AMQP_URL',
    sensitive: true,
  },
  migrateOnStart: {
    doc: 'Apply pending migrations when the server starts',
    format: Boolean,
    default: true,
    env: 'MIGRATE_ON_START',
  },
  pluginsPath: {
    doc: 'Extra folders whose sub-folders are plugins (comma-separated)',
    format: Array,
    default: [] as string[],
    env: 'PLUGINS_PATH',
  },
  disabledPlugins: {
    doc: 'Plugin ids not to load (comma-separated)',
    format: Array,
    default: [] as string[],
    env: 'DISABLED_PLUGINS',
  },
  logLevel: {
    doc: 'Least severe level logged',
    format: ['error', 'warn', 'info', 'http', 'verbose', 'debug', 'silly'],
    default: 'info',
    env: 'LOG_LEVEL',
  },
  logFormat: { doc: 'json (one object a line) or pretty', format: ['json', 'pretty'], default: 'json', env: 'LOG_FORMAT' },
  bodyLimit: { doc: 'Largest JSON request body', format: String, default: '1mb', env: 'HTTP_BODY_LIMIT' },
  shutdownTimeoutMs: {
    doc: 'How long shutdown waits for in-flight requests',
    format: 'nat',
    default: 10000,
    env: 'SHUTDOWN_TIMEOUT_MS',
  },
  authCacheTtlMs: {
    doc: 'How long a looked-up token is trusted before it is read again (revocations in the same process apply at once)',
    format: 'nat',
    default: 5000,
    env: 'AUTH_CACHE_TTL_MS',
  },
} satisfies ConvictSchema;

export interface CoreConfig {
  port: number;
  host: string;
  baseDomain: string;
  trustProxy: boolean;
  adminToken: string;
  databaseUrl: string;
  databasePoolMax: number;
  dataDir: string;
  embeddedPostgresPort: number;
  amqpUrl: string;
  migrateOnStart: boolean;
  pluginsPath: string[];
  disabledPlugins: string[];
  logLevel: string;
  logFormat: 'json' | 'pretty';
  bodyLimit: string;
  shutdownTimeoutMs: number;
  authCacheTtlMs: number;
}
