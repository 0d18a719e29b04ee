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
