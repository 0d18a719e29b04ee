import type { ConvictSchema } from '../config/convict-schema';

/**
 * The settings of the built-in model provider, merged into the kernel's config schema.
 *
 * LLM_BASE_URL and LLM_MODEL default to empty rather than to a local Ollama
 * (http://127.0.0.1:11434/v1) or a hosted model name: egress refuses loopback unless
 * the operator allows it, and model names differ per server, so either default would
 * fail anyway, with a less helpful message than "set LLM_BASE_URL". Empty settings
 * let the platform run without a model (features that need one fail with
 * `LlmNotConfiguredError` naming the setting) and make the choice explicit.
 */
export const llmConfigSchema = {
  llmBaseUrl: {
    doc: 'Base URL of an OpenAI-compatible chat completions API, e.g. https://api.openai.com/v1 or http://ollama:11434/v1; empty: no model configured',
    format: (value: unknown) => {
      if (typeof value !== 'string') throw new Error('must be a string');
      if (value === '') return;
      let url: URL;
      try {
        url = new URL(value);
      } catch {
        throw new Error('must be an http(s) URL');
      }
      if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('must be an http(s) URL');
    },
    default: '',
    env: 'LLM_BASE_URL',
  },
  llmApiKey: {
    doc: 'API key sent as a bearer token to LLM_BASE_URL (never to an agent\'s own LLM URL); empty sends none',
    format: String,
    default: '',
    env: 'LLM_API_KEY',
    sensitive: true,
  },
  llmModel: {
    doc: 'Model used when a request names none, e.g. gpt-4o-mini or llama3.1:8b',
    format: String,
    default: '',
    env: 'LLM_MODEL',
  },
  llmTimeoutMs: {
    doc: 'How long one attempt of a model call may take (each retry gets this again)',
    format: 'nat',
    default: 60000,
    env: 'LLM_TIMEOUT_MS',
  },
  llmMaxRetries: {
    doc: 'Retries of a model call that timed out, failed to connect, or was answered 429 or 5xx',
    format: 'nat',
    default: 2,
    env: 'LLM_MAX_RETRIES',
  },
} satisfies ConvictSchema;

export interface LlmConfig {
  llmBaseUrl: string;
  llmApiKey: string;
  llmModel: string;
  llmTimeoutMs: number;
  llmMaxRetries: number;
}
