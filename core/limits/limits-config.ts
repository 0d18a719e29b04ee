import convict from 'convict';
import type { EffectiveQuotas } from './quotas';

// Rates may be fractional (0.5: one request every 2 s); convict's `Number` would take `abc` as NaN and -1 as a rate.
convict.addFormat({
  name: 'rate',
  validate: (value: unknown) => {
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) throw new Error('must be a number of requests per second, 0 or more');
  },
  coerce: (value: unknown) => Number(value),
});

const rps = (doc: string, env: string) => ({ doc: `${doc}; 0 turns this limit off`, format: 'rate', default: 0, env });
const burst = (doc: string, env: string) => ({ doc: `${doc}; 0: the rate (at least 1)`, format: 'nat', default: 0, env });
const quota = (doc: string, env: string) => ({ doc: `${doc}; 0 is unlimited (tenants may be given their own, PATCH /admin/v1/tenants/{slug})`, format: 'nat', default: 0, env });

/** Rate limits (core/limits/rate-limiter.ts) and the default tenant quotas (core/limits/quotas.ts). */
export const limitsConfigSchema = {
  rateLimitTokenRps: rps('Requests per second one API token may make', 'RATE_LIMIT_TOKEN_RPS'),
  rateLimitTokenBurst: burst('Requests one API token may make in a burst', 'RATE_LIMIT_TOKEN_BURST'),
  rateLimitTenantRps: rps("Requests per second to one tenant's API, all its tokens together", 'RATE_LIMIT_TENANT_RPS'),
  rateLimitTenantBurst: burst("Requests to one tenant's API in a burst", 'RATE_LIMIT_TENANT_BURST'),
  rateLimitHookIpRps: rps('Requests per second one client IP may make to unauthenticated (tenant-host and public) routes', 'RATE_LIMIT_HOOK_IP_RPS'),
  rateLimitHookIpBurst: burst('Requests one client IP may make to unauthenticated routes in a burst', 'RATE_LIMIT_HOOK_IP_BURST'),
  rateLimitHookRps: rps('Requests per second to one unauthenticated hook (route and path parameters, e.g. one webhook URL), all clients together', 'RATE_LIMIT_HOOK_RPS'),
  rateLimitHookBurst: burst('Requests to one unauthenticated hook in a burst', 'RATE_LIMIT_HOOK_BURST'),
  rateLimitMaxKeys: { doc: 'Rate-limit keys (tokens, tenants, IPs, hooks) one process tracks in memory; the least recently used go first', format: 'nat', default: 10000, env: 'RATE_LIMIT_MAX_KEYS' },
  quotaAgents: quota('Agents a tenant may have', 'QUOTA_AGENTS'),
  quotaFlows: quota('Flows a tenant may have', 'QUOTA_FLOWS'),
  quotaTableRows: quota("Rows across all of a tenant's tables", 'QUOTA_TABLE_ROWS'),
  quotaConcurrentFlowExecutions: quota('Flow executions of a tenant running at once (more wait their turn)', 'QUOTA_CONCURRENT_FLOW_EXECUTIONS'),
  quotaModelTokensPerDay: quota('Model tokens (prompt + completion) a tenant may use per UTC day', 'QUOTA_MODEL_TOKENS_PER_DAY'),
};

export interface LimitsConfig {
  rateLimitTokenRps: number;
  rateLimitTokenBurst: number;
  rateLimitTenantRps: number;
  rateLimitTenantBurst: number;
  rateLimitHookIpRps: number;
  rateLimitHookIpBurst: number;
  rateLimitHookRps: number;
  rateLimitHookBurst: number;
  rateLimitMaxKeys: number;
  quotaAgents: number;
  quotaFlows: number;
  quotaTableRows: number;
  quotaConcurrentFlowExecutions: number;
  quotaModelTokensPerDay: number;
}

export function quotaDefaultsOf(config: LimitsConfig): EffectiveQuotas {
  return {
    agents: config.quotaAgents,
    flows: config.quotaFlows,
    table_rows: config.quotaTableRows,
    concurrent_flow_executions: config.quotaConcurrentFlowExecutions,
    model_tokens_per_day: config.quotaModelTokensPerDay,
  };
}
