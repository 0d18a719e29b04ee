import { secretsConfigSchema, type SecretsConfig } from '../secrets/secrets-config';
import { egressConfigSchema, type EgressConfig } from '../egress/egress-config';
import { llmConfigSchema, type LlmConfig } from '../llm/llm-config';
import { metricsConfigSchema, type MetricsConfig } from '../metrics/metrics-config';
import { limitsConfigSchema, type LimitsConfig } from '../limits/limits-config';
import type { ConvictSchema } from './convict-schema';

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
  databasePoolMin: {
    doc:
      'Connections the pool keeps open once opened, however long idle (at most DATABASE_POOL_MAX); those above it close after 30 s idle. ' +
      'A new connection is a new PostgreSQL backend whose first statements are slow (cold caches, statements prepared again), so the first requests after a quiet spell pay it',
    format: 'nat',
    default: 10,
    env: 'DATABASE_POOL_MIN',
  },
  databasePreparedStatements: {
    doc: 'Run hot-path statements as named prepared statements (false behind a pooler in transaction mode that cannot keep them, such as PgBouncer before 1.21)',
    format: Boolean,
    default: true,
    env: 'DATABASE_PREPARED_STATEMENTS',
  },
  databaseRowLevelSecurity: {
    doc: 'Row-level security on tenant-scoped tables, a second wall behind the tenant filter (false turns the policies off; see "Row-level security")',
    format: Boolean,
    default: true,
    env: 'DATABASE_ROW_LEVEL_SECURITY',
  },
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
  pluginsPackages: {
    doc: 'Installed npm packages that are plugins (comma-separated names), found from the installation as require() finds them',
    format: Array,
    default: [] as string[],
    env: 'PLUGINS_PACKAGES',
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
  uploadLimit: { doc: 'Largest uploaded file (multipart routes such as table imports)', format: String, default: '50mb', env: 'HTTP_UPLOAD_LIMIT' },
  reservedSlugs: {
    doc: 'Tenant slugs nobody may create: names the infrastructure uses as hostnames (comma-separated)',
    format: Array,
    default: ['admin', 'api', 'app', 'www', 'mail', 'smtp', 'imap', 'pop', 'ftp', 'ns1', 'ns2', 'dns', 'mx', 'status', 'docs', 'static', 'cdn', 'assets', 'metrics', 'auth', 'login', 'dashboard', 'support', 'help', 'blog', 'dev', 'staging', 'test', 'localhost'],
    env: 'TENANT_RESERVED_SLUGS',
  },
  bodyMaxDepth: {
    doc: 'How deeply a request body or query may nest (objects and arrays); deeper is a 422',
    format: 'nat',
    default: 64,
    env: 'HTTP_BODY_MAX_DEPTH',
  },
  shutdownTimeoutMs: {
    doc: 'How long shutdown waits for in-flight requests',
    format: 'nat',
    default: 10000,
    env: 'SHUTDOWN_TIMEOUT_MS',
  },
  authCacheTtlMs: {
    doc: 'How long a looked-up token is trusted before it is read again (revocations reach every process at once through LISTEN/NOTIFY)',
    format: 'nat',
    default: 5000,
    env: 'AUTH_CACHE_TTL_MS',
  },
  busNamespace: {
    doc: 'Prefix of the RabbitMQ exchange and queues, so installations can share a broker',
    format: String,
    default: 'switchboard',
    env: 'BUS_NAMESPACE',
  },
  busRelayBatchSize: {
    doc: 'Outbox rows the relay claims at once (and the window of unconfirmed broker publishes)',
    format: 'nat',
    default: 500,
    env: 'BUS_RELAY_BATCH_SIZE',
  },
  busPollIntervalMs: {
    doc: 'How often the relay looks at the outbox when no commit or NOTIFY woke it (a safety net)',
    format: 'nat',
    default: 2000,
    env: 'BUS_POLL_INTERVAL_MS',
  },
  busLeaseSeconds: {
    doc: 'How long a claimed outbox row is reserved for one relay before another may take it',
    format: 'nat',
    default: 60,
    env: 'BUS_LEASE_SECONDS',
  },
  busMaxInFlight: {
    doc: 'Messages handed to in-process consumers at once (without a broker)',
    format: 'nat',
    default: 1000,
    env: 'BUS_MAX_IN_FLIGHT',
  },
  busInboxRetentionDays: {
    doc: 'Days a consumer remembers a handled message id (must outlast any redelivery)',
    format: 'nat',
    default: 7,
    env: 'BUS_INBOX_RETENTION_DAYS',
  },
  busHandlerConnections: {
    doc: "Database connections one process's bus handlers may hold at once (their transactions); 0: the pool's size less 2, so HTTP requests and the relay always find one",
    format: 'nat',
    default: 0,
    env: 'BUS_HANDLER_CONNECTIONS',
  },
  busDefaultAttempts: { doc: 'Deliveries of a failing message before it is dead-lettered', format: 'nat', default: 5, env: 'BUS_DEFAULT_ATTEMPTS' },
  busBackoffInitialMs: { doc: 'First retry delay; doubles on each attempt', format: 'nat', default: 1000, env: 'BUS_BACKOFF_INITIAL_MS' },
  busBackoffMaxMs: { doc: 'Longest retry delay', format: 'nat', default: 300000, env: 'BUS_BACKOFF_MAX_MS' },
  ...secretsConfigSchema,
  ...egressConfigSchema,
  ...llmConfigSchema,
  ...metricsConfigSchema,
  ...limitsConfigSchema,
} satisfies ConvictSchema;

export interface CoreConfig extends SecretsConfig, EgressConfig, LlmConfig, MetricsConfig, LimitsConfig {
  port: number;
  host: string;
  baseDomain: string;
  trustProxy: boolean;
  adminToken: string;
  databaseUrl: string;
  databasePoolMax: number;
  databasePoolMin: number;
  databasePreparedStatements: boolean;
  databaseRowLevelSecurity: boolean;
  dataDir: string;
  embeddedPostgresPort: number;
  amqpUrl: string;
  migrateOnStart: boolean;
  pluginsPath: string[];
  pluginsPackages: string[];
  disabledPlugins: string[];
  logLevel: string;
  logFormat: 'json' | 'pretty';
  bodyLimit: string;
  uploadLimit: string;
  bodyMaxDepth: number;
  reservedSlugs: string[];
  shutdownTimeoutMs: number;
  authCacheTtlMs: number;
  busNamespace: string;
  busRelayBatchSize: number;
  busPollIntervalMs: number;
  busLeaseSeconds: number;
  busMaxInFlight: number;
  busInboxRetentionDays: number;
  busHandlerConnections: number;
  busDefaultAttempts: number;
  busBackoffInitialMs: number;
  busBackoffMaxMs: number;
}
