import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Egress } from '../../../core/egress';
import { LlmResponseError, LlmUnavailableError, type ChatRequest, type LlmConfig } from '../../../core/llm';
import { ChatStreamReader } from '../../../core/llm/openai-stream';
import { startFakeLlmServer, type FakeLlmServer } from '../../../core/testing';
import { captureLogger, loopbackEgress, testProvider } from './llm-test-helpers';

const servers: Array<{ close(): Promise<void> }> = [];
const clients: Egress[] = [];

async function fakeServer(): Promise<FakeLlmServer> {
  const server = await startFakeLlmServer();
  servers.push(server);
  return server;
}

function providerFor(url: string, config: Partial<LlmConfig> = {}) {
  const { logger, lines } = captureLogger();
  const egress = loopbackEgress(logger);
  clients.push(egress);
  return { provider: testProvider(egress, logger, { llmBaseUrl: url, llmApiKey: 'sk-test', ...config }, { retryBackoffMs: 1 }), lines };
}

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

const streamed = (deltas: string[]): ChatRequest => ({ messages: [{ role: 'user', content: 'Hi' }], onDelta: (text) => deltas.push(text) });

describe('streaming chat completions', () => {
  it('passes each piece of text as it arrives and resolves to the whole answer, with the usage chunk', async () => {
    const server = await fakeServer();
    // Apart in time, so each piece is a read of its own (pieces of one read go on together: below).
    server.reply({ content: 'We open at nine.', chunks: ['We ', 'open ', 'at nine.'], chunkDelayMs: 30, usage: { promptTokens: 7, completionTokens: 4 } });
    const { provider } = providerFor(server.url);
    const deltas: string[] = [];
    const result = await provider.chat(streamed(deltas));
    expect(deltas).toEqual(['We ', 'open ', 'at nine.']);
    expect(result).toMatchObject({ content: 'We open at nine.', toolCalls: [], finishReason: 'stop', usage: { promptTokens: 7, completionTokens: 4, totalTokens: 11 } });
    const sent = server.requests[0];
    expect(sent.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    expect(sent.headers.accept).toBe('text/event-stream');
  });

  it('assembles parallel tool calls from fragments, in order', async () => {
    const server = await fakeServer();
    server.reply({
      toolCalls: [
        { id: 'call_a', name: 'check_order', arguments: { order: 'A-1' } },
        { id: 'call_b', name: 'search_knowledge', arguments: { query: 'opening hours on holidays' } },
      ],
    });
    const { provider } = providerFor(server.url);
    const deltas: string[] = [];
    const result = await provider.chat({ ...streamed(deltas), tools: [{ name: 'check_order', parameters: { type: 'object' } }], parallelToolCalls: true });
    expect(deltas).toEqual([]);
    expect(result.content).toBeNull();
    expect(result.finishReason).toBe('tool_calls');
    expect(result.toolCalls).toEqual([
      { id: 'call_a', name: 'check_order', arguments: { order: 'A-1' } },
      { id: 'call_b', name: 'search_knowledge', arguments: { query: 'opening hours on holidays' } },
    ]);
    expect(server.requests[0].body.parallel_tool_calls).toBe(true);
  });

  it('retries a 429 before the stream started', async () => {
    const server = await fakeServer();
    server.reply({ status: 429, error: 'slow down', headers: { 'retry-after-ms': '1' } }, { content: 'Fine.', chunks: ['Fine.'] });
    const { provider } = providerFor(server.url, { llmMaxRetries: 2 });
    const deltas: string[] = [];
    const result = await provider.chat(streamed(deltas));
    expect(result.content).toBe('Fine.');
    expect(deltas).toEqual(['Fine.']);
    expect(server.requests).toHaveLength(2);
  });

  it('a server dying mid-stream is not retried once text was passed on', async () => {
    const server = await fakeServer();
    // The pause lets the first piece reach the client before the connection drops.
    server.reply({ content: 'one two three', chunks: ['one ', 'two ', 'three'], breakAfterChunks: 1, chunkDelayMs: 100 }, { content: 'never asked' });
    const { provider } = providerFor(server.url, { llmMaxRetries: 3 });
    const deltas: string[] = [];
    await expect(provider.chat(streamed(deltas))).rejects.toBeInstanceOf(LlmUnavailableError);
    expect(deltas).toEqual(['one ']);
    expect(server.requests).toHaveLength(1);
    expect(server.remaining).toBe(1);
  });

  it('an error object in the stream fails the call with the server’s reason', async () => {
    const raw = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('data: {"choices":[{"index":0,"delta":{"role":"assistant","content":"Hel"}}]}\n\n');
        res.end('data: {"error":{"message":"model overloaded","type":"server_error"}}\n\n');
      });
    });
    await new Promise<void>((resolve) => raw.listen(0, '127.0.0.1', resolve));
    servers.push({ close: () => new Promise((resolve) => raw.close(() => resolve())) });
    const { provider } = providerFor(`http://127.0.0.1:${(raw.address() as AddressInfo).port}/v1`);
    const deltas: string[] = [];
    await expect(provider.chat(streamed(deltas))).rejects.toThrow(/model overloaded/);
    expect(deltas).toEqual(['Hel']);
  });
});

describe('ChatStreamReader', () => {
  const encode = (text: string) => new TextEncoder().encode(text);

  it('reads events split anywhere, a multi-byte character included, with CRLF line ends', () => {
    const deltas: string[] = [];
    const reader = new ChatStreamReader((text) => deltas.push(text));
    const body =
      'data: {"model":"m1","choices":[{"index":0,"delta":{"content":"h\u00e9"}}]}\r\n\r\n' +
      ': keep-alive\r\n\r\n' +
      'data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1","function":{"name":"f","arguments":"{\\"a\\""}}]}}]}\r\n\r\n' +
      'data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":":1}"}}]},"finish_reason":"tool_calls"}]}\r\n\r\n' +
      'data: [DONE]\r\n\r\n';
    const bytes = encode(body);
    for (let i = 0; i < bytes.length; i += 7) reader.push(bytes.slice(i, i + 7));
    const result = reader.finish('asked');
    expect(deltas.join('')).toBe('hé');
    expect(result).toMatchObject({ content: 'hé', model: 'm1', finishReason: 'tool_calls', toolCalls: [{ id: 'c1', name: 'f', arguments: { a: 1 } }] });
  });

  it('passes the first piece at once and the rest of one read together, never waiting for the next read', () => {
    const deltas: string[] = [];
    const reader = new ChatStreamReader((text) => deltas.push(text));
    const piece = (text: string) => `data: {"choices":[{"index":0,"delta":{"content":"${text}"}}]}\n\n`;
    reader.push(encode('data: {"choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}\n\n' + piece('We ') + piece('open ') + piece('at ')));
    expect(deltas).toEqual(['We ', 'open at ']);
    reader.push(encode(piece('nine') + piece('.') + 'data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\n'));
    expect(deltas).toEqual(['We ', 'open at ', 'nine.']);
    reader.push(encode('data: [DONE]\n\n'));
    expect(reader.finish('m').content).toBe('We open at nine.');
    expect(deltas).toEqual(['We ', 'open at ', 'nine.']);
  });

  it('text read before a broken chunk of the same read is still passed on', () => {
    const deltas: string[] = [];
    const reader = new ChatStreamReader((text) => deltas.push(text));
    expect(() => reader.push(encode('data: {"choices":[{"index":0,"delta":{"content":"a"}}]}\n\ndata: {"choices":[{"index":0,"delta":{"content":"b"}}]}\n\ndata: {oops\n\n'))).toThrow(LlmResponseError);
    expect(deltas).toEqual(['a', 'b']);
    expect(reader.delivered).toBe(true);
  });

  it('a stream that ends before any finish or [DONE] is incomplete', () => {
    const reader = new ChatStreamReader(() => undefined);
    reader.push(encode('data: {"choices":[{"index":0,"delta":{"content":"cut"}}]}\n\n'));
    expect(() => reader.finish('m')).toThrow(LlmUnavailableError);
  });

  it('tool arguments that are not JSON are the model’s error', () => {
    const reader = new ChatStreamReader(() => undefined);
    reader.push(encode('data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c","function":{"name":"f","arguments":"{oops"}}]},"finish_reason":"tool_calls"}]}\n\ndata: [DONE]\n\n'));
    expect(() => reader.finish('m')).toThrow(LlmResponseError);
  });
});
