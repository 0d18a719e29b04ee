import type { MikroORM } from '@mikro-orm/postgresql';
import { currentTenant } from '../context/request-context';
import type { Logger } from '../logging/logger';
import { LlmError } from './llm-errors';
import type { ChatRequest, ChatResult, JsonChatRequest, JsonChatResult, LlmProvider, LlmService } from './llm-types';
import { LlmUsageRecorder } from './llm-usage-recorder';
import type { LlmMetrics } from '../metrics/llm-metrics';
import { parseStructuredAnswer, validatorFor } from './structured-output';
import type { ModelTokenQuota } from '../limits/model-token-quota';

export interface LlmServiceOptions {
  /** The provider contributed to `core.llm-provider`, else the built-in OpenAI-compatible one. */
  provider: LlmProvider;
  orm: MikroORM;
  logger: Logger;
  /** Calls and tokens by tenant while /metrics is served. */
  metrics?: LlmMetrics;
  /** The tenants' `model_tokens_per_day` quota (core/limits), checked before each call. */
  tokenQuota?: ModelTokenQuota;
}

/** The service plugins get, plus what only the kernel calls. */
export interface KernelLlmService extends LlmService {
  readonly provider: LlmProvider;
  /** Waits for usage rows still being written (before the ORM closes, and in tests before reading them). */
  flushUsage(): Promise<void>;
}

export function createLlmService(options: LlmServiceOptions): KernelLlmService {
  const { provider } = options;
  const recorder = new LlmUsageRecorder(options.orm, options.logger);

  const chat = async (request: ChatRequest): Promise<ChatResult> => {
    // Read now: the work context is the caller's, whoever runs the provider's continuations.
    const tenant = currentTenant();
    const tenantUuid = tenant?.uuid ?? null;
    const purpose = request.purpose ?? null;
    // Before the model is called: a tenant over its day's tokens spends none more.
    if (tenantUuid && options.tokenQuota) await options.tokenQuota.check(tenantUuid);
    const started = performance.now();
    const durationMs = () => Math.round(performance.now() - started);
    let result: ChatResult;
    try {
      result = await provider.chat(request);
    } catch (error) {
      // A failed call is recorded too: it may have cost tokens, and failures per tenant and purpose are worth seeing.
      const model = (error instanceof LlmError ? error.model : undefined) ?? request.model ?? null;
      recorder.record({ tenantUuid, provider: provider.id, model, purpose, agentUuid: request.agentUuid, usage: undefined, durationMs: durationMs(), status: 'error' });
      options.metrics?.call({ tenant: tenant?.slug, model, status: 'error', usage: undefined });
      throw error;
    }
    recorder.record({ tenantUuid, provider: provider.id, model: result.model, purpose, agentUuid: request.agentUuid, usage: result.usage, durationMs: durationMs(), status: 'ok' });
    if (tenantUuid) options.tokenQuota?.record(tenantUuid, result.usage);
    options.metrics?.call({ tenant: tenant?.slug, model: result.model, status: 'ok', usage: result.usage });
    return result;
  };

  const jsonResult = async (request: JsonChatRequest): Promise<JsonChatResult<unknown>> => {
    const { schema, schemaName, strict, ...rest } = request;
    // Compiled before the call: a broken schema is the caller's bug, not worth a model call.
    const validate = validatorFor(schema);
    const result = await chat({
      ...rest,
      responseFormat: { type: 'json_schema', name: schemaName ?? 'response', schema: schema as Record<string, unknown>, ...(strict !== undefined ? { strict } : {}) },
    });
    return { value: parseStructuredAnswer(result, validate), result };
  };

  return {
    provider,
    chat,
    json: (async (request: JsonChatRequest) => (await jsonResult(request)).value) as LlmService['json'],
    jsonResult: jsonResult as LlmService['jsonResult'],
    flushUsage: () => recorder.flush(),
  };
}
