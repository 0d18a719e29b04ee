/**
 * What a model call can fail with. Callers branch on the class: an unavailable
 * server is worth trying again later (a bus consumer retries the message), a refused
 * request or a bad answer is not. Messages never carry our prompts, answers or keys
 * (an `LlmRequestError` quotes the server's reason, shortened, which speaks of the
 * request's form); `LlmResponseError.content` holds the answer for a caller that
 * wants to look at it.
 */
export class LlmError extends Error {
  override readonly name: string = 'LlmError';
  /** The model asked for, when known: recorded with the failed call's usage. */
  model?: string;
}

/** No server to call: LLM_BASE_URL (or the model, LLM_MODEL) is not set and the request named none. */
export class LlmNotConfiguredError extends LlmError {
  override readonly name = 'LlmNotConfiguredError';
  constructor(readonly setting: 'LLM_BASE_URL' | 'LLM_MODEL') {
    super(
      setting === 'LLM_BASE_URL'
        ? 'no LLM server is configured: set LLM_BASE_URL to an OpenAI-compatible API (e.g. https://api.openai.com/v1 or http://ollama:11434/v1)'
        : 'no model is configured: set LLM_MODEL or name the model in the request',
    );
  }
}

/**
 * The server refused the request (a 4xx other than 429: bad key, unknown model, a
 * schema it does not support), or it cannot be called at all (an address egress
 * refuses). Sending it again would fail the same way.
 */
export class LlmRequestError extends LlmError {
  override readonly name = 'LlmRequestError';
  constructor(
    message: string,
    /** The HTTP status; undefined when the call never reached the server. */
    readonly status?: number,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** The server stayed overloaded, failing or out of reach through every retry. */
export class LlmUnavailableError extends LlmError {
  override readonly name = 'LlmUnavailableError';
  constructor(
    message: string,
    /** The last answer's HTTP status; undefined after a timeout or a network failure. */
    readonly status: number | undefined,
    readonly attempts: number,
    /** How long the server asked us to wait (Retry-After), when it said. */
    readonly retryAfterMs?: number,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** The answer is unusable: not the API's shape, tool arguments that are not JSON, or structured output that does not conform. */
export class LlmResponseError extends LlmError {
  override readonly name = 'LlmResponseError';
  /**
   * The model's text, when the problem is in it. It may hold personal data, so it is
   * not enumerable: a logger serialising the error does not write it.
   */
  declare readonly content: string | null | undefined;

  constructor(message: string, content?: string | null, options?: ErrorOptions) {
    super(message, options);
    Object.defineProperty(this, 'content', { value: content, enumerable: false });
  }
}
