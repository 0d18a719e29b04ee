import { HttpError } from '../http/http-errors';
import { LlmRequestError } from '../llm/llm-errors';
import type { QuotaName } from './quotas';

/** 429: the tenant already holds (or uses) all its quota allows. Not worth retrying until something is freed. */
export class QuotaExceededError extends HttpError {
  constructor(
    readonly quota: QuotaName,
    readonly limit: number,
  ) {
    super(429, `Quota exceeded: ${quota} (limit ${limit})`);
  }
}

/**
 * llm.chat refuses before calling the model: the tenant has used its model tokens of the
 * (UTC) day. An LlmRequestError, so callers treat it as a call not worth repeating soon.
 */
export class ModelTokenQuotaExceededError extends LlmRequestError {
  readonly quota = 'model_tokens_per_day';
  constructor(readonly limit: number) {
    super(`Quota exceeded: model_tokens_per_day (limit ${limit})`);
  }
}
