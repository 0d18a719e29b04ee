import type { BusService, Egress, HttpService, LifecycleService, Logger, MetricsService, OrmService, PluginConfig, QuotaService, SecretsService, TenantService } from '../../core';
import type { AgentDirectory } from '../agents';
import type { flowsConfig } from './flows-config';
import type { FlowCatalog } from './app/flow-catalog';
import type { TokenKeeper } from './connections/connection-http';
import type { ConfigReader } from './connections/oauth-client';

/** What the flows plugin's parts (builder, catalog, engine) are built from: its deps plus the app catalog. */
export interface FlowsRuntime {
  http: HttpService;
  bus: BusService;
  orm: OrmService;
  secrets: SecretsService;
  egress: Egress;
  logger: Logger;
  lifecycle: LifecycleService;
  config: PluginConfig<typeof flowsConfig>;
  tenants: TenantService;
  metrics: MetricsService;
  /** Tenant quotas: flows, and flow executions running at once. */
  quotas: QuotaService;
  agents: AgentDirectory;
  catalog: FlowCatalog;
  /** An app's own config (its `deps.config`): its OAuth client, its `{configKey}` URLs. */
  appConfig(appUid: string): ConfigReader;
  /** OAuth connections' tokens, refreshed and sealed. */
  tokens: TokenKeeper;
}
