import { Counter, type Registry } from 'prom-client';
import type { TokenUsage } from '../llm/llm-types';

/** What the LLM service reports for each model call. */
export interface LlmMetrics {
  call(entry: { tenant: string | undefined; model: string | null; status: 'ok' | 'error'; usage: TokenUsage | undefined }): void;
}

/**
 * Calls and tokens by tenant slug and model. A label per tenant makes one series per
 * tenant and model: fine for tens or hundreds of tenants; past that, drop the label
 * in Prometheus (metric_relabel_configs) and read per-tenant cost from `llm_usage`.
 */
export function createLlmMetrics(registry: Registry): LlmMetrics {
  const calls = new Counter({
    name: 'switchboard_llm_calls_total',
    help: 'Model calls by tenant slug (`none` outside a tenant), model and status',
    labelNames: ['tenant', 'model', 'status'],
    registers: [registry],
  });
  const tokens = new Counter({
    name: 'switchboard_llm_tokens_total',
    help: 'Tokens the provider reported, by tenant slug, model and kind (prompt, completion)',
    labelNames: ['tenant', 'model', 'kind'],
    registers: [registry],
  });
  return {
    call({ tenant, model, status, usage }) {
      const labels = { tenant: tenant ?? 'none', model: model ?? 'unknown' };
      calls.inc({ ...labels, status });
      if (usage?.promptTokens) tokens.inc({ ...labels, kind: 'prompt' }, usage.promptTokens);
      if (usage?.completionTokens) tokens.inc({ ...labels, kind: 'completion' }, usage.completionTokens);
    },
  };
}
