import { startFakeLlmServer, type FakeLlmServer } from '../../../core/testing';

let server: FakeLlmServer;
beforeEach(async () => {
  server = await startFakeLlmServer();
});
afterEach(() => server.close());

const post = (body: unknown, path = '/chat/completions') =>
  fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer k' }, body: JSON.stringify(body) });

describe('the fake LLM server of the test kit', () => {
  it('answers in the OpenAI chat completion shape and records the request', async () => {
    server.reply({ toolCalls: [{ name: 'lookup', arguments: { q: 'x' } }], usage: { promptTokens: 3, completionTokens: 4 } });
    const response = await post({ model: 'm1', messages: [{ role: 'user', content: 'hi' }] });
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body).toEqual({
      id: expect.stringMatching(/^chatcmpl-/),
      object: 'chat.completion',
      created: expect.any(Number),
      model: 'm1',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'lookup', arguments: '{"q":"x"}' } }], refusal: null },
          logprobs: null,
          finish_reason: 'tool_calls',
        },
      ],
      usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 },
    });
    expect(server.requests).toEqual([
      expect.objectContaining({ method: 'POST', path: '/v1/chat/completions', body: { model: 'm1', messages: [{ role: 'user', content: 'hi' }] } }),
    ]);
    expect(server.requests[0].headers.authorization).toBe('Bearer k');
  });

  it('answers by a function of the request, in queue order, and counts what is left', async () => {
    server.reply((request) => ({ content: `you said ${request.body.messages[0].content}` }), { content: 'second' });
    expect(server.remaining).toBe(2);
    const first: any = await (await post({ model: 'm', messages: [{ role: 'user', content: 'ping' }] })).json();
    expect(first.choices[0].message.content).toBe('you said ping');
    expect(server.remaining).toBe(1);
  });

  it('answers scripted errors in the OpenAI error shape, with their headers', async () => {
    server.reply({ status: 429, error: 'Rate limit reached', headers: { 'retry-after': '3' } });
    const response = await post({ model: 'm', messages: [] });
    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toBe('3');
    expect(await response.json()).toEqual({ error: { message: 'Rate limit reached', type: 'requests', param: null, code: 'rate_limit_exceeded' } });
  });

  it('answers 500 when nothing is queued and 404 off the completions path', async () => {
    const empty = await post({ model: 'm', messages: [] });
    expect(empty.status).toBe(500);
    expect(((await empty.json()) as any).error.message).toBe('fake LLM server: no reply queued for this request (call reply() first)');
    server.reply({ content: 'unused' });
    const elsewhere = await post({}, '/embeddings');
    expect(elsewhere.status).toBe(404);
    expect(server.remaining).toBe(1);
  });
});

describe('the fake LLM server, streaming', () => {
  const dataOf = (text: string) =>
    text
      .split('\n\n')
      .filter((event) => event.startsWith('data: '))
      .map((event) => event.slice(6))
      .map((data) => (data === '[DONE]' ? data : JSON.parse(data)));

  it('streams OpenAI chunks: role, content pieces apart in time, tool fragments, finish, usage, [DONE]', async () => {
    server.reply({ content: 'ab', chunks: ['a', 'b'], chunkDelayMs: 60, toolCalls: [{ id: 'c1', name: 'f', arguments: { x: 1 } }], usage: { promptTokens: 2, completionTokens: 3 } });
    const response = await post({ model: 'm', messages: [{ role: 'user', content: 'hi' }], stream: true, stream_options: { include_usage: true } });
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events = dataOf(await response.text());
    expect(events.at(-1)).toBe('[DONE]');
    const chunks = events.slice(0, -1) as any[];
    expect(chunks.every((chunk) => chunk.object === 'chat.completion.chunk' && chunk.model === 'm')).toBe(true);
    expect(chunks[0].choices[0].delta.role).toBe('assistant');
    expect(chunks.flatMap((chunk) => chunk.choices.map((choice: any) => choice.delta.content).filter(Boolean))).toEqual(['a', 'b']);
    const fragments = chunks.flatMap((chunk) => chunk.choices.flatMap((choice: any) => choice.delta.tool_calls ?? []));
    expect(fragments[0]).toMatchObject({ index: 0, id: 'c1', function: { name: 'f' } });
    expect(fragments.map((fragment: any) => fragment.function.arguments).join('')).toBe('{"x":1}');
    expect(fragments.length).toBeGreaterThan(1);
    expect(chunks.at(-2).choices[0].finish_reason).toBe('tool_calls');
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: 2, completion_tokens: 3, total_tokens: 5 } });
    const [first, second] = server.requests[0].chunksSentAt;
    expect(second - first).toBeGreaterThanOrEqual(50);
  });

  it('sends no usage chunk unless stream_options.include_usage asks for it', async () => {
    server.reply({ content: 'x y', usage: { promptTokens: 1, completionTokens: 1 } });
    const events = dataOf(await (await post({ model: 'm', messages: [], stream: true })).text()) as any[];
    expect(events.some((event) => event !== '[DONE]' && event.usage)).toBe(false);
    expect(server.requests[0].chunksSentAt).toHaveLength(2);
  });
});

describe('the fake LLM server with a fallback', () => {
  it('answers by the fallback when nothing is queued, the queue first', async () => {
    const fallbackServer = await startFakeLlmServer({ fallback: (request) => ({ content: `echo ${request.body.messages[0].content}` }) });
    try {
      fallbackServer.reply({ content: 'queued' });
      const ask = async (content: string) =>
        ((await (
          await fetch(`${fallbackServer.url}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content }] }) })
        ).json()) as any).choices[0].message.content;
      expect(await ask('one')).toBe('queued');
      expect(await Promise.all([ask('two'), ask('three')])).toEqual(['echo two', 'echo three']);
    } finally {
      await fallbackServer.close();
    }
  });
});
