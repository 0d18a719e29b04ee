import { setTimeout as sleep } from 'node:timers/promises';
import { EgressNetworkError, EgressTimeoutError, type Egress, type EgressResponse } from '../egress';
import type { Logger } from '../logging/logger';
import type { LlmConfig } from './llm-config';
import { LlmError, LlmNotConfiguredError, LlmRequestError, LlmResponseError, LlmUnavailableError } from './llm-errors';
import { backoffMs, isRetryableStatus, retryAfterMs } from './llm-retry';
import type { ChatRequest, ChatResult, LlmProvider } from './llm-types';
import { errorMessageOf, fromWireResponse, toWireRequest } from './openai-wire-format';
import { ChatStreamReader } from './openai-stream';

export const OPENAI_COMPATIBLE_PROVIDER_ID = 'openai-compatible';

/** A streamed call's whole may last this many LLM_TIMEOUT_MS (each silence between chunks at most one). */
const STREAM_TOTAL_TIMEOUTS = 10;

export interface OpenAiCompatibleProviderOptions {
  config: LlmConfig;
  /** Every call goes through egress, so the address policy applies to model servers too. */
  egress: Egress;
  logger: Logger;
  /** First retry's backoff when the server gave no Retry-After; later ones double it. Default 500 ms. */
  retryBackoffMs?: number;
  /**
   * The longest Retry-After waited for. A server asking for more is reported
   * unavailable at once (with `retryAfterMs`), so a request is not held for minutes
   * and a bus consumer can come back when the server said. Default 30 s.
   */
  maxRetryAfterMs?: number;
}

/** The built-in provider: the OpenAI chat completions API at LLM_BASE_URL (or a request's own `baseUrl`). */
export function createOpenAiCompatibleProvider(options: OpenAiCompatibleProviderOptions): LlmProvider {
  return new OpenAiCompatibleProvider(options);
}

interface Target {
  url: URL;
  apiKey: string;
}

class OpenAiCompatibleProvider implements LlmProvider {
  readonly id = OPENAI_COMPATIBLE_PROVIDER_ID;
  private readonly retryBackoffMs: number;
  private readonly maxRetryAfterMs: number;

  constructor(private readonly options: OpenAiCompatibleProviderOptions) {
    this.retryBackoffMs = options.retryBackoffMs ?? 500;
    this.maxRetryAfterMs = options.maxRetryAfterMs ?? 30_000;
  }

  async chat(request: ChatRequest): Promise<ChatResult> {
    const { config } = this.options;
    const model = request.model || config.llmModel;
    try {
      const target = this.targetOf(request);
      if (!model) throw new LlmNotConfiguredError('LLM_MODEL');
      return await this.send(target, toWireRequest(request, model), model, request);
    } catch (error) {
      // The service records the model of a failed call with its usage.
      if (error instanceof LlmError) error.model ??= model || undefined;
      throw error;
    }
  }

  /**
   * The endpoint and key. LLM_API_KEY goes only to LLM_BASE_URL's origin: a request's
   * `baseUrl` may come from an agent's settings, that is from a tenant, and the
   * operator's key must not be handed to a server the tenant chose.
   */
  private targetOf(request: ChatRequest): Target {
    const { llmBaseUrl, llmApiKey } = this.options.config;
    const base = request.baseUrl || llmBaseUrl;
    if (!base) throw new LlmNotConfiguredError('LLM_BASE_URL');
    const url = parseBaseUrl(base);
    const configured = llmBaseUrl ? parseBaseUrl(llmBaseUrl) : undefined;
    const sameServer = !request.baseUrl || configured?.origin === url.origin;
    // The path is appended, so a base with a query (some gateways want `?api-version=`) keeps it.
    url.pathname = `${url.pathname.replace(/\/+$/, '')}/chat/completions`;
    return { url, apiKey: request.apiKey ?? (sameServer ? llmApiKey : '') };
  }

  private async send(target: Target, body: Record<string, unknown>, model: string, request: ChatRequest): Promise<ChatResult> {
    const { config, egress, logger } = this.options;
    const headers: Record<string, string> = { accept: request.onDelta ? 'text/event-stream' : 'application/json' };
    if (target.apiKey) headers.authorization = `Bearer ${target.apiKey}`;
    const started = performance.now();
    // Only what identifies the call, never the key, prompts or answers (they may hold personal data).
    const facts = (attempts: number, status: number | undefined) => ({
      provider: this.id,
      host: target.url.host,
      model,
      ...(request.purpose ? { purpose: request.purpose } : {}),
      status,
      attempts,
      durationMs: Math.round(performance.now() - started),
    });

    for (let attempt = 1; ; attempt++) {
      let response: EgressResponse | undefined;
      let failure: EgressTimeoutError | EgressNetworkError | undefined;
      // A streamed answer is read as it comes (openai-stream.ts), afresh on each attempt.
      const stream = request.onDelta ? new ChatStreamReader(request.onDelta) : undefined;
      try {
        // Retries are decided here (egress would not repeat a POST on 5xx anyway); each attempt gets the whole timeout.
        response = await egress.request(target.url, {
          method: 'POST',
          headers,
          body,
          // A streamed answer may take longer than one attempt's timeout as long as it keeps coming:
          // LLM_TIMEOUT_MS bounds the silence between chunks, and ten times it the whole.
          timeoutMs: stream ? config.llmTimeoutMs * STREAM_TOTAL_TIMEOUTS : config.llmTimeoutMs,
          retries: 0,
          signal: request.signal,
          ...(stream ? { onChunk: (chunk: Buffer) => stream.push(chunk), idleTimeoutMs: config.llmTimeoutMs } : {}),
        });
      } catch (error) {
        if (request.signal?.aborted) throw error;
        if (error instanceof LlmError) {
          // The stream itself was broken (a chunk that is not JSON, an error event).
          logger.warn('llm call failed', { ...facts(attempt, undefined), error: error.name });
          throw error;
        }
        if ((error instanceof EgressTimeoutError || error instanceof EgressNetworkError) && stream?.delivered) {
          // Text already shown cannot be taken back: no second attempt that would say it again.
          logger.warn('llm call failed', { ...facts(attempt, undefined), error: 'LlmUnavailableError' });
          throw new LlmUnavailableError(`the LLM server at ${target.url.host} failed mid-stream: ${error.message}`, undefined, attempt, undefined, { cause: error });
        }
        if (error instanceof EgressTimeoutError || error instanceof EgressNetworkError) {
          failure = error;
        } else {
          // Refused by the address policy, an answer too large, a redirect loop: trying again cannot help.
          logger.warn('llm call failed', { ...facts(attempt, undefined), error: (error as Error).name });
          throw new LlmRequestError(`the LLM server at ${target.url.host} cannot be called: ${(error as Error).message}`, undefined, { cause: error });
        }
      }

      if (response && response.status >= 200 && response.status < 300) {
        let result: ChatResult;
        try {
          result = stream ? stream.finish(model) : fromWireResponse(parseJson(response), model);
        } catch (error) {
          logger.warn('llm call failed', { ...facts(attempt, response.status), error: (error as Error).name });
          throw error;
        }
        logger.debug('llm call', {
          ...facts(attempt, response.status),
          finishReason: result.finishReason,
          promptTokens: result.usage?.promptTokens,
          completionTokens: result.usage?.completionTokens,
          totalTokens: result.usage?.totalTokens,
        });
        return result;
      }

      const status = response?.status;
      const reason = response ? errorMessageOf(safeJson(response)) : undefined;
      if (response && !isRetryableStatus(response.status)) {
        logger.warn('llm call failed', { ...facts(attempt, status), error: 'LlmRequestError' });
        throw new LlmRequestError(`the LLM server refused the request (HTTP ${response.status})${reason ? `: ${reason}` : ''}`, response.status);
      }

      const askedWait = response ? retryAfterMs(response.headers) : undefined;
      if (attempt > config.llmMaxRetries || (askedWait !== undefined && askedWait > this.maxRetryAfterMs)) {
        logger.warn('llm call failed', { ...facts(attempt, status), error: 'LlmUnavailableError' });
        const what = failure ? failure.message : `answered HTTP ${status}${reason ? `: ${reason}` : ''}`;
        throw new LlmUnavailableError(`the LLM server at ${target.url.host} is unavailable after ${attempt} attempt(s): ${what}`, status, attempt, askedWait, {
          cause: failure,
        });
      }
      logger.debug('llm call retried', facts(attempt, status));
      try {
        await sleep(askedWait ?? backoffMs(attempt, this.retryBackoffMs), undefined, { signal: request.signal });
      } catch (error) {
        // As egress does: the caller's cancellation comes back as the caller's reason.
        throw request.signal?.aborted ? request.signal.reason : error;
      }
    }
  }
}

function parseBaseUrl(value: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new LlmRequestError('the LLM base URL is not a valid URL');
  }
  url.hash = '';
  return url;
}

function parseJson(response: EgressResponse): unknown {
  try {
    return response.json();
  } catch (error) {
    throw new LlmResponseError(`the LLM server answered HTTP ${response.status} with a body that is not JSON`, undefined, { cause: error });
  }
}

/** An error answer's body, which may be anything (an HTML page from a proxy, say). */
function safeJson(response: EgressResponse): unknown {
  try {
    return response.json();
  } catch {
    return undefined;
  }
}
