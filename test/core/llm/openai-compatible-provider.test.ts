import { createEgress, EgressTimeoutError, type Egress } from '../../../core/egress';
import {
  LlmNotConfiguredError,
  LlmRequestError,
  LlmResponseError,
  LlmUnavailableError,
  type ChatRequest,
  type LlmConfig,
  type OpenAiCompatibleProviderOptions,
} from '../../../core/llm';
import { startFakeLlmServer, type FakeLlmServer } from '../../../core/testing';
import { captureLogger, loopbackEgress, testProvider } from './llm-test-helpers';

const API_KEY = 'sk-test-0123456789abcdef';
const servers: FakeLlmServer[] = [];
const clients: Egress[] = [];

async function fakeServer(): Promise<FakeLlmServer> {
  const server = await startFakeLlmServer();
  servers.push(server);
  return server;
}

/** A provider aimed at `server` (unless the config says otherwise), and the log lines it writes. */
function providerFor(server: FakeLlmServer | undefined, config: Partial<LlmConfig> = {}, options: Partial<OpenAiCompatibleProviderOptions> = {}) {
  const { logger, lines } = captureLogger();
  const egress = loopbackEgress(logger);
  clients.push(egress);
  const provider = testProvider(egress, logger, { llmBaseUrl: server?.url ?? '', llmApiKey: API_KEY, ...config }, options);
  return { provider, lines };
}

const hello: ChatRequest = { messages: [{ role: 'user', content: 'Hello there' }] };

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

describe('openai-compatible provider: requests and answers', () => {
  it('posts a chat completion with the model, the messages and the API key, and returns the answer', async () => {
    const server = await fakeServer();
    server.reply({ content: 'General Kenobi', usage: { promptTokens: 12, completionTokens: 3 } });
    const { provider } = providerFor(server);

    const result = await provider.chat({
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hello there' },
      ],
      temperature: 0.2,
      maxTokens: 50,
    });

    expect(result).toMatchObject({
      content: 'General Kenobi',
      toolCalls: [],
      finishReason: 'stop',
      usage: { promptTokens: 12, completionTokens: 3, totalTokens: 15 },
      model: 'test-model',
    });
    expect(server.requests).toHaveLength(1);
    const [request] = server.requests;
    expect(request.method).toBe('POST');
    expect(request.path).toBe('/v1/chat/completions');
    expect(request.headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.body).toEqual({
      model: 'test-model',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hello there' },
      ],
      temperature: 0.2,
      max_tokens: 50,
    });
  });

  it('names the model of the request over LLM_MODEL, and sends no Authorization without a key', async () => {
    const server = await fakeServer();
    server.reply({ content: 'hi' });
    const { provider } = providerFor(server, { llmApiKey: '' });
    const result = await provider.chat({ ...hello, model: 'llama3.1:8b' });
    expect(server.requests[0].body.model).toBe('llama3.1:8b');
    expect(server.requests[0].headers.authorization).toBeUndefined();
    expect(result.model).toBe('llama3.1:8b');
  });

  it('sends tools in the function form and parses tool calls with their arguments as objects', async () => {
    const server = await fakeServer();
    server.reply({ toolCalls: [{ id: 'call_abc', name: 'get_weather', arguments: { city: 'Paris', days: 2 } }] });
    const { provider } = providerFor(server);
    const parameters = { type: 'object', properties: { city: { type: 'string' }, days: { type: 'integer' } }, required: ['city'] };

    const result = await provider.chat({
      messages: [{ role: 'user', content: 'Weather in Paris?' }],
      tools: [{ name: 'get_weather', description: 'Forecast for a city', parameters }],
      toolChoice: 'auto',
    });

    expect(result.content).toBeNull();
    expect(result.finishReason).toBe('tool_calls');
    expect(result.toolCalls).toEqual([{ id: 'call_abc', name: 'get_weather', arguments: { city: 'Paris', days: 2 } }]);
    expect(server.requests[0].body.tools).toEqual([{ type: 'function', function: { name: 'get_weather', description: 'Forecast for a city', parameters } }]);
    expect(server.requests[0].body.tool_choice).toBe('auto');
  });

  it('sends the tool round trip back in the API form (assistant tool_calls with JSON arguments, tool_call_id)', async () => {
    const server = await fakeServer();
    server.reply({ content: 'Sunny, 24 degrees.' });
    const { provider } = providerFor(server);

    await provider.chat({
      messages: [
        { role: 'user', content: 'Weather in Paris?' },
        { role: 'assistant', content: null, toolCalls: [{ id: 'call_abc', name: 'get_weather', arguments: { city: 'Paris' } }] },
        { role: 'tool', toolCallId: 'call_abc', content: '{"sky":"sunny","celsius":24}' },
      ],
      tools: [{ name: 'get_weather', parameters: { type: 'object' } }],
      toolChoice: { name: 'get_weather' },
    });

    const body = server.requests[0].body;
    expect(body.messages.slice(1)).toEqual([
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_abc', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }],
      },
      { role: 'tool', tool_call_id: 'call_abc', content: '{"sky":"sunny","celsius":24}' },
    ]);
    expect(body.tools).toEqual([{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } }]);
    expect(body.tool_choice).toEqual({ type: 'function', function: { name: 'get_weather' } });
  });

  it('refuses tool arguments that are not a JSON object with LlmResponseError', async () => {
    const server = await fakeServer();
    server.reply({ toolCalls: [{ name: 'get_weather', arguments: '{"city": "Par' }] }, { toolCalls: [{ name: 'get_weather', arguments: '["Paris"]' }] });
    const { provider } = providerFor(server);
    const truncated = await provider.chat(hello).catch((error) => error);
    expect(truncated).toBeInstanceOf(LlmResponseError);
    expect(truncated.message).toBe('the model called tool "get_weather" with arguments that are not valid JSON');
    expect(truncated.content).toBe('{"city": "Par');
    await expect(provider.chat(hello)).rejects.toThrow('the model called tool "get_weather" with arguments that are not a JSON object');
  });

  it('sends response_format as json_schema (and json_object as it is)', async () => {
    const server = await fakeServer();
    server.reply({ json: { ok: true } }, { json: { ok: true } });
    const { provider } = providerFor(server);
    const schema = { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'], additionalProperties: false };
    await provider.chat({ ...hello, responseFormat: { type: 'json_schema', name: 'verdict', schema, strict: true } });
    await provider.chat({ ...hello, responseFormat: { type: 'json_object' } });
    expect(server.requests[0].body.response_format).toEqual({ type: 'json_schema', json_schema: { name: 'verdict', schema, strict: true } });
    expect(server.requests[1].body.response_format).toEqual({ type: 'json_object' });
  });

  it('reports a server without usage as usage undefined', async () => {
    const server = await fakeServer();
    server.reply({ content: 'hi', usage: null });
    const { provider } = providerFor(server);
    expect((await provider.chat(hello)).usage).toBeUndefined();
  });

  it('refuses an answer that is not a chat completion, or not JSON, with LlmResponseError', async () => {
    const server = await fakeServer();
    server.reply({ body: { object: 'list', data: [] } }, { body: '<html>proxy login</html>' });
    const { provider } = providerFor(server);
    const notCompletion = await provider.chat(hello).catch((caught) => caught);
    expect(notCompletion).toBeInstanceOf(LlmResponseError);
    expect(notCompletion.message).toBe('the LLM server answered something other than a chat completion');
    const notJson = await provider.chat(hello).catch((caught) => caught);
    expect(notJson).toBeInstanceOf(LlmResponseError);
    expect(notJson.message).toBe('the LLM server answered HTTP 200 with a body that is not JSON');
  });
});

describe('openai-compatible provider: failures and retries', () => {
  it('retries 500 and 429 (honouring Retry-After) and then succeeds', async () => {
    const server = await fakeServer();
    server.reply({ status: 500, error: 'boom' }, { status: 429, error: 'slow down', headers: { 'retry-after': '0.2' } }, { content: 'finally' });
    const { provider } = providerFor(server, { llmMaxRetries: 2 });
    const started = performance.now();
    const result = await provider.chat(hello);
    expect(result.content).toBe('finally');
    expect(server.requests).toHaveLength(3);
    // The 429 asked for 200 ms; the backoffs alone are a few ms.
    expect(performance.now() - started).toBeGreaterThanOrEqual(190);
  });

  it('gives up after LLM_MAX_RETRIES with LlmUnavailableError carrying the last status and reason', async () => {
    const server = await fakeServer();
    server.reply({ status: 503, error: 'overloaded' }, { status: 503, error: 'overloaded' }, { status: 502, error: 'bad gateway' }, { content: 'too late' });
    const { provider } = providerFor(server, { llmMaxRetries: 2 });
    const error = await provider.chat(hello).catch((caught) => caught);
    expect(error).toBeInstanceOf(LlmUnavailableError);
    expect(error).toMatchObject({ status: 502, attempts: 3, model: 'test-model' });
    expect(error.message).toContain('HTTP 502: bad gateway');
    expect(server.requests).toHaveLength(3);
    expect(server.remaining).toBe(1);
  });

  it('gives up at once when Retry-After is beyond the cap, reporting how long the server asked for', async () => {
    const server = await fakeServer();
    server.reply({ status: 429, error: 'quota', headers: { 'retry-after': '120' } }, { content: 'not reached' });
    const { provider } = providerFor(server, { llmMaxRetries: 2 }, { maxRetryAfterMs: 1000 });
    const error = await provider.chat(hello).catch((caught) => caught);
    expect(error).toBeInstanceOf(LlmUnavailableError);
    expect(error).toMatchObject({ status: 429, attempts: 1, retryAfterMs: 120_000 });
    expect(server.requests).toHaveLength(1);
  });

  it('does not retry a 400 and reports the server reason in LlmRequestError', async () => {
    const server = await fakeServer();
    server.reply({ status: 400, error: "Invalid schema for response_format 'verdict'" }, { content: 'not reached' });
    const { provider } = providerFor(server);
    const error = await provider.chat(hello).catch((caught) => caught);
    expect(error).toBeInstanceOf(LlmRequestError);
    expect(error.status).toBe(400);
    expect(error.message).toBe("the LLM server refused the request (HTTP 400): Invalid schema for response_format 'verdict'");
    expect(server.requests).toHaveLength(1);
  });

  it('treats 401 as a refused request too (a wrong key does not get better)', async () => {
    const server = await fakeServer();
    server.reply({ status: 401, error: 'Incorrect API key provided' }, { content: 'not reached' });
    const { provider } = providerFor(server);
    await expect(provider.chat(hello)).rejects.toMatchObject({ name: 'LlmRequestError', status: 401 });
    expect(server.requests).toHaveLength(1);
  });

  it('honours LLM_TIMEOUT_MS per attempt, retrying a timeout, then LlmUnavailableError', async () => {
    const server = await fakeServer();
    server.reply({ content: 'slow', delayMs: 3000 }, { content: 'slow', delayMs: 3000 });
    const { provider } = providerFor(server, { llmTimeoutMs: 200, llmMaxRetries: 1 });
    const started = performance.now();
    const error = await provider.chat(hello).catch((caught) => caught);
    const elapsed = performance.now() - started;
    expect(error).toBeInstanceOf(LlmUnavailableError);
    expect(error.status).toBeUndefined();
    expect(error.attempts).toBe(2);
    expect(error.cause).toBeInstanceOf(EgressTimeoutError);
    expect(server.requests).toHaveLength(2);
    expect(elapsed).toBeGreaterThanOrEqual(390);
    expect(elapsed).toBeLessThan(2000);
  });

  it("a caller's abort stops the call with the caller's reason, without retrying", async () => {
    const server = await fakeServer();
    server.reply({ content: 'slow', delayMs: 3000 }, { content: 'not reached' });
    const { provider } = providerFor(server);
    const controller = new AbortController();
    const reason = new Error('user went away');
    setTimeout(() => controller.abort(reason), 100);
    await expect(provider.chat({ ...hello, signal: controller.signal })).rejects.toBe(reason);
    expect(server.requests).toHaveLength(1);
  });

  it('says which setting is missing without LLM_BASE_URL or LLM_MODEL, before any call', async () => {
    const { provider } = providerFor(undefined);
    const error = await provider.chat(hello).catch((caught) => caught);
    expect(error).toBeInstanceOf(LlmNotConfiguredError);
    expect(error.setting).toBe('LLM_BASE_URL');
    expect(error.message).toContain('LLM_BASE_URL');

    const server = await fakeServer();
    const { provider: modelless } = providerFor(server, { llmModel: '' });
    await expect(modelless.chat(hello)).rejects.toMatchObject({ name: 'LlmNotConfiguredError', setting: 'LLM_MODEL' });
    expect(server.requests).toHaveLength(0);
  });

  it('a server with nothing scripted answers a clear 500', async () => {
    const server = await fakeServer();
    const { provider } = providerFor(server, { llmMaxRetries: 0 });
    await expect(provider.chat(hello)).rejects.toThrow('fake LLM server: no reply queued for this request (call reply() first)');
  });

  it('goes through egress: a loopback server is refused unless egress allows it (LlmRequestError, no retry)', async () => {
    const server = await fakeServer();
    const { logger } = captureLogger();
    const strict = createEgress({ egressAllowCidrs: [], egressConnectTimeoutMs: 2000, egressTimeoutMs: 5000, egressMaxResponseBytes: 1024 * 1024, egressMaxRetries: 2 }, logger);
    clients.push(strict);
    const provider = testProvider(strict, logger, { llmBaseUrl: server.url });
    const error = await provider.chat(hello).catch((caught) => caught);
    expect(error).toBeInstanceOf(LlmRequestError);
    expect(error.message).toMatch(/^the LLM server at 127\.0\.0\.1:\d+ cannot be called: outbound call refused/);
    expect(server.requests).toHaveLength(0);
  });
});

describe('openai-compatible provider: a per-agent base URL', () => {
  it('sends the call to the request baseUrl, without the operator key unless it is the same origin', async () => {
    const main = await fakeServer();
    const custom = await fakeServer();
    custom.reply({ content: 'from custom' }, { content: 'with its own key' });
    main.reply({ content: 'same origin' });
    const { provider } = providerFor(main);

    const first = await provider.chat({ ...hello, baseUrl: custom.url });
    expect(first.content).toBe('from custom');
    expect(custom.requests[0].path).toBe('/v1/chat/completions');
    expect(custom.requests[0].headers.authorization).toBeUndefined();

    await provider.chat({ ...hello, baseUrl: `${custom.url}/`, apiKey: 'sk-agent-own' });
    expect(custom.requests[1].headers.authorization).toBe('Bearer sk-agent-own');

    // The configured server under another path is still the operator's server.
    await provider.chat({ ...hello, baseUrl: main.url.replace(/\/v1$/, '/v1/') });
    expect(main.requests[0].headers.authorization).toBe(`Bearer ${API_KEY}`);
    expect(main.requests).toHaveLength(1);
  });

  it('works with a baseUrl and no LLM_BASE_URL', async () => {
    const custom = await fakeServer();
    custom.reply({ content: 'only custom' });
    const { provider } = providerFor(undefined);
    expect((await provider.chat({ ...hello, baseUrl: custom.url })).content).toBe('only custom');
  });
});

describe('openai-compatible provider: logs', () => {
  it('logs model, status, duration and tokens at debug level, never the key, prompts or answers', async () => {
    const server = await fakeServer();
    server.reply({ status: 500, error: 'boom' }, { content: 'The secret answer is 42', usage: { promptTokens: 7, completionTokens: 6 } });
    const { provider, lines } = providerFor(server);
    await provider.chat({ messages: [{ role: 'user', content: 'My name is Jane Roe, what is the answer?' }], purpose: 'test.logs' });

    const call = lines.find((line) => line.message === 'llm call');
    expect(call).toMatchObject({
      level: 'debug',
      provider: 'openai-compatible',
      model: 'test-model',
      purpose: 'test.logs',
      status: 200,
      attempts: 2,
      promptTokens: 7,
      completionTokens: 6,
      totalTokens: 13,
    });
    expect(typeof call!.durationMs).toBe('number');
    const written = JSON.stringify(lines);
    expect(written).not.toContain(API_KEY);
    expect(written).not.toContain('Jane Roe');
    expect(written).not.toContain('secret answer');
  });
});
