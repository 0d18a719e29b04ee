import convict from 'convict';
import { llmConfigSchema } from '../../../core/llm';

const load = (env: Record<string, string>) => {
  const config = convict(llmConfigSchema, { env, args: [] });
  config.validate({ allowed: 'strict' });
  return config;
};

describe('llm config', () => {
  it('defaults: no server and no model configured, 60 s per attempt, 2 retries', () => {
    expect(load({}).getProperties()).toEqual({ llmBaseUrl: '', llmApiKey: '', llmModel: '', llmTimeoutMs: 60000, llmMaxRetries: 2 });
  });

  it('reads every setting from its environment variable', () => {
    const env = { LLM_BASE_URL: 'http://ollama:11434/v1', LLM_API_KEY: 'sk-x', LLM_MODEL: 'llama3.1:8b', LLM_TIMEOUT_MS: '1000', LLM_MAX_RETRIES: '0' };
    expect(load(env).getProperties()).toEqual({ llmBaseUrl: 'http://ollama:11434/v1', llmApiKey: 'sk-x', llmModel: 'llama3.1:8b', llmTimeoutMs: 1000, llmMaxRetries: 0 });
  });

  it('refuses a base URL that is not http(s), naming the key', () => {
    expect(() => load({ LLM_BASE_URL: 'ollama:11434' })).toThrow(/llmBaseUrl: must be an http\(s\) URL/);
    expect(() => load({ LLM_BASE_URL: 'not a url' })).toThrow(/llmBaseUrl: must be an http\(s\) URL/);
  });

  it('keeps the API key out of printed config', () => {
    expect(load({ LLM_API_KEY: 'sk-very-secret' }).toString()).not.toContain('sk-very-secret');
  });
});
