import {
  EgressTimeoutError,
  LlmNotConfiguredError,
  LlmRequestError,
  LlmResponseError,
  LlmUnavailableError,
  type ChatMessage,
  type ChatResult,
  type LlmService,
} from '../../../core';
import type { AnalyzerResult } from '../entities';
import { SUCCESS_ANALYZER } from '../settings/evaluate-values';

/** What the model said about one session, before it is stored. */
export interface EvaluationOutcome {
  results: Record<string, AnalyzerResult>;
  success: boolean | null;
  successReason: string | null;
  summary: string | null;
  /** Failures not tied to one analyzer (the summary's). */
  errors: string[];
  llmCalls: number;
  tokens: number;
  /** Every call that failed: any of them makes the record `failed`. */
  failures: unknown[];
}

export const NO_SUCCESS_PROMPT = 'no prompt: success_evaluation_prompt.prompt is empty, so there is nothing to judge success by';

/**
 * Whether another delivery could succeed: the model was unavailable (5xx, 429,
 * timeouts, after the llm service's own retries), or something unforeseen. A refused
 * request, an unusable answer or a missing configuration would fail the same way again.
 */
export const isWorthRetrying = (error: unknown): boolean =>
  !(error instanceof LlmRequestError || error instanceof LlmResponseError || error instanceof LlmNotConfiguredError);

/**
 * A failure as the record shows it to the tenant: what went wrong, without the
 * operator's model server address (the llm service's own messages name it, and its
 * log lines keep it for the operator).
 */
export function describeFailure(error: unknown): string {
  if (error instanceof LlmUnavailableError) {
    const what = error.status !== undefined ? `answered HTTP ${error.status}` : error.cause instanceof EgressTimeoutError ? 'did not answer in time' : 'could not be reached';
    return `the model is unavailable: it ${what} (${error.attempts} attempt${error.attempts === 1 ? '' : 's'})`;
  }
  if (error instanceof LlmRequestError) return error.status !== undefined ? error.message : 'the model server cannot be called';
  // These name the problem (a setting, the schema rule broken), never the answer or the server.
  if (error instanceof LlmResponseError || error instanceof LlmNotConfiguredError) return error.message;
  return `unexpected error${error instanceof Error ? ` (${error.name})` : ''}`;
}

/** A label as stored: trimmed and lowercased, so that `Positive` and `positive ` count as one in the list filter and the analytics. */
export const normalizeLabel = (label: string): string => label.trim().toLowerCase();

export type Answer<T> = { ok: true; value: T; raw: string | null } | { ok: false; error: unknown; raw: string | null };

/**
 * Makes the model calls of one evaluation and keeps their account: calls made, tokens
 * reported, each analyzer's result, and every failure (kept, never thrown: whether a
 * failure is retried is decided once every call has answered).
 */
export class OutcomeRecorder {
  readonly outcome: EvaluationOutcome = {
    results: Object.create(null), // keyed by analyzer names, which users choose
    success: null,
    successReason: null,
    summary: null,
    errors: [],
    llmCalls: 0,
    tokens: 0,
    failures: [],
  };

  constructor(
    private readonly llm: LlmService,
    private readonly model: string | undefined,
  ) {}

  /** A structured-output call; the answer is validated against `schema` by the llm service. */
  async json<T>(purpose: string, schemaName: string, schema: Record<string, unknown>, messages: ChatMessage[]): Promise<Answer<T>> {
    // No `temperature`: some models refuse any but their default, which would fail every analyzer.
    return this.call(() => this.llm.jsonResult<T>({ messages, schema, schemaName, purpose, model: this.model }));
  }

  /** A plain-text call; an empty answer is an unusable one. */
  async text(purpose: string, messages: ChatMessage[]): Promise<Answer<string>> {
    return this.call(async () => {
      const result = await this.llm.chat({ messages, purpose, model: this.model });
      const value = result.content?.trim() ?? '';
      if (value === '') throw new LlmResponseError(`the model gave an empty answer (finish reason: ${result.finishReason})`, result.content);
      return { value, result };
    });
  }

  private async call<T>(ask: () => Promise<{ value: T; result: ChatResult }>): Promise<Answer<T>> {
    this.outcome.llmCalls++;
    try {
      const { value, result } = await ask();
      this.outcome.tokens += result.usage?.totalTokens ?? 0;
      return { ok: true, value, raw: result.content };
    } catch (error) {
      // The answer of a call that failed on its content is kept: it shows what the model said.
      return { ok: false, error, raw: error instanceof LlmResponseError ? (error.content ?? null) : null };
    }
  }

  label(name: string, label: string, raw: string | null): void {
    this.outcome.results[name] = { label: normalizeLabel(label), raw };
  }

  verdict(success: boolean, reason: string, raw: string | null): void {
    this.outcome.results[SUCCESS_ANALYZER] = { label: String(success), raw };
    this.outcome.success = success;
    this.outcome.successReason = reason.trim() || null;
  }

  /** The success analyzer is on but has no prompt: no call, no guess. */
  noSuccessPrompt(): void {
    this.outcome.results[SUCCESS_ANALYZER] = { label: null, raw: null, error: NO_SUCCESS_PROMPT };
    this.outcome.successReason = NO_SUCCESS_PROMPT;
  }

  analyzerFailed(name: string, error: unknown, raw: string | null): void {
    this.outcome.failures.push(error);
    this.outcome.results[name] = { label: null, raw, error: describeFailure(error) };
    if (name === SUCCESS_ANALYZER) this.outcome.successReason = `the success evaluation failed: ${describeFailure(error)}`;
  }

  summary(text: string): void {
    this.outcome.summary = text;
  }

  summaryFailed(error: unknown): void {
    this.outcome.failures.push(error);
    this.outcome.errors.push(`summary: ${describeFailure(error)}`);
  }
}
