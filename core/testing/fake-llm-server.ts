import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A small OpenAI-compatible chat completions server on loopback, for tests of code
 * that calls a model: it answers what the test scripted, in order, and records what
 * it was sent. Answers follow the OpenAI response shape exactly, so what passes here
 * passes against a real server. The kernel's egress refuses loopback by default: a
 * test kernel talking to it sets `egressAllowCidrs: ['127.0.0.0/8']` and
 * `llmBaseUrl: server.url`.
 */

export interface FakeToolCall {
  /** Default `call_<n>`. */
  id?: string;
  name: string;
  /** An object is sent as its JSON text, as the API does; a string is sent as it is (to script invalid JSON). */
  arguments: Record<string, unknown> | string;
}

export interface FakeLlmReply {
  /** The answer's text; default `null` with tool calls or `json`, else `"ok"`. */
  content?: string | null;
  /** Structured output: sent as the content's JSON text. */
  json?: unknown;
  toolCalls?: FakeToolCall[];
  /** Default `tool_calls` with tool calls, else `stop`. */
  finishReason?: string;
  /** Default 10 prompt and 5 completion tokens; `null` leaves usage out, as some local servers do. */
  usage?: { promptTokens: number; completionTokens: number; totalTokens?: number } | null;
  /** Default: the model the request named. */
  model?: string;
  /** An error answer: this status, with `error` as the message in OpenAI's error shape (or any JSON body when an object). */
  status?: number;
  error?: string | Record<string, unknown>;
  /** Sent instead of a completion, with `status` (default 200): a string as it is, anything else as JSON (to script a malformed answer). */
  body?: unknown;
  /** Extra response headers, e.g. `{ 'retry-after': '1' }`. */
  headers?: Record<string, string>;
  /** Wait this long before answering (to provoke a timeout). */
  delayMs?: number;
  /**
   * A request with `stream: true` is answered as Server-Sent Events: the content in these
   * pieces (default: split after each space), one `chat.completion.chunk` each.
   */
  chunks?: string[];
  /** Wait this long between streamed chunks (default 0: all at once). */
  chunkDelayMs?: number;
  /** Streamed: end the answer after this many content chunks without `[DONE]` and drop the connection (a server dying mid-stream). */
  breakAfterChunks?: number;
}

export interface FakeLlmRequest {
  method: string;
  /** E.g. `/v1/chat/completions`. */
  path: string;
  headers: http.IncomingHttpHeaders;
  /** The parsed JSON body (`undefined` when it was not JSON). */
  body: any;
  /** When it arrived, and for a streamed answer when each content chunk was written: wall-clock ms (`performance.timeOrigin + performance.now()`). */
  receivedAt: number;
  chunksSentAt: number[];
}

/** A scripted answer, or a function of the request that makes one (to answer by what was asked). */
export type FakeLlmScript = FakeLlmReply | ((request: FakeLlmRequest) => FakeLlmReply);

export interface FakeLlmServer {
  /** The base URL to configure, `http://127.0.0.1:<port>/v1`. */
  url: string;
  /** Every request received, oldest first. */
  requests: FakeLlmRequest[];
  /** Queues answers, used one per chat completion request in order. */
  reply(...scripts: FakeLlmScript[]): void;
  /** Answers queued and not yet used. */
  readonly remaining: number;
  close(): Promise<void>;
}

const COMPLETIONS_PATH = '/v1/chat/completions';

export interface FakeLlmServerOptions {
  /** Answers a request when nothing is queued (a benchmark's many conversations); without it such a request gets a 500. */
  fallback?: FakeLlmScript;
}

const wallClock = () => performance.timeOrigin + performance.now();

export async function startFakeLlmServer(options: FakeLlmServerOptions = {}): Promise<FakeLlmServer> {
  const requests: FakeLlmRequest[] = [];
  const queue: FakeLlmScript[] = [];
  const timers = new Set<NodeJS.Timeout>();

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        body = undefined;
      }
      const request: FakeLlmRequest = { method: req.method!, path: req.url!, headers: req.headers, body, receivedAt: wallClock(), chunksSentAt: [] };
      requests.push(request);
      if (req.method !== 'POST' || new URL(req.url!, 'http://x').pathname !== COMPLETIONS_PATH) {
        return send(res, 404, errorBody(`fake LLM server: only POST ${COMPLETIONS_PATH} is served, not ${req.method} ${req.url}`, 'invalid_request_error'));
      }
      const script = queue.shift() ?? options.fallback;
      // A clear failure, so a test that forgot to script an answer notices at once.
      if (!script) return send(res, 500, errorBody('fake LLM server: no reply queued for this request (call reply() first)', 'server_error'));
      const reply = typeof script === 'function' ? script(request) : script;
      const answer = () => {
        if (reply.body !== undefined) return send(res, reply.status ?? 200, reply.body, reply.headers);
        if (reply.status !== undefined && reply.status >= 400) {
          const payload = typeof reply.error === 'object' ? reply.error : errorBody(reply.error ?? `scripted HTTP ${reply.status}`, ...errorKind(reply.status));
          return send(res, reply.status, payload, reply.headers);
        }
        if (request.body?.stream === true) return streamCompletion(res, reply, request, timers);
        send(res, reply.status ?? 200, completion(reply, request), reply.headers);
      };
      if (!reply.delayMs) return answer();
      const timer = setTimeout(() => {
        timers.delete(timer);
        // The client may have given up (that is what a delay tests).
        if (!res.destroyed) answer();
      }, reply.delayMs);
      timers.add(timer);
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    reply: (...scripts) => void queue.push(...scripts),
    get remaining() {
      return queue.length;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const timer of timers) clearTimeout(timer);
        timers.clear();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A chat completion object, field for field as OpenAI sends it. */
function completion(reply: FakeLlmReply, request: FakeLlmRequest): Record<string, unknown> {
  const toolCalls = reply.toolCalls?.map((call, index) => ({
    id: call.id ?? `call_${index + 1}`,
    type: 'function',
    function: { name: call.name, arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments) },
  }));
  const content =
    reply.content !== undefined ? reply.content : reply.json !== undefined ? JSON.stringify(reply.json) : toolCalls ? null : 'ok';
  const usage = reply.usage === undefined ? { promptTokens: 10, completionTokens: 5 } : reply.usage;
  return {
    id: `chatcmpl-${crypto.randomBytes(12).toString('hex')}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: reply.model ?? (typeof request.body?.model === 'string' ? request.body.model : 'fake-model'),
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content, ...(toolCalls ? { tool_calls: toolCalls } : {}), refusal: null },
        logprobs: null,
        finish_reason: reply.finishReason ?? (toolCalls ? 'tool_calls' : 'stop'),
      },
    ],
    ...(usage
      ? {
          usage: {
            prompt_tokens: usage.promptTokens,
            completion_tokens: usage.completionTokens,
            total_tokens: usage.totalTokens ?? usage.promptTokens + usage.completionTokens,
          },
        }
      : {}),
  };
}

/**
 * The same answer as `completion`, streamed as OpenAI streams it: a first chunk with the
 * role, one chunk per content piece, tool calls as fragments (the id and name, then the
 * arguments' text in two halves), a chunk with the finish reason, a usage chunk with no
 * choices when `stream_options.include_usage` asked for it, then `data: [DONE]`.
 */
function streamCompletion(res: http.ServerResponse, reply: FakeLlmReply, request: FakeLlmRequest, timers: Set<NodeJS.Timeout>): void {
  const whole = completion(reply, request) as any;
  const message = whole.choices[0].message;
  const base = { id: whole.id, object: 'chat.completion.chunk', created: whole.created, model: whole.model, system_fingerprint: null };
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({ ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] });
  const pieces = reply.chunks ?? (typeof message.content === 'string' ? message.content.split(/(?<= )/) : []);
  const events: Array<{ data: unknown; content?: boolean }> = [{ data: chunk({ role: 'assistant', content: '', refusal: null }) }];
  for (const piece of pieces) events.push({ data: chunk({ content: piece }), content: true });
  (message.tool_calls ?? []).forEach((call: any, index: number) => {
    const args: string = call.function.arguments;
    const half = Math.floor(args.length / 2);
    events.push({ data: chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } }] }) });
    events.push({ data: chunk({ tool_calls: [{ index, function: { arguments: args.slice(0, half) } }] }) });
    events.push({ data: chunk({ tool_calls: [{ index, function: { arguments: args.slice(half) } }] }) });
  });
  events.push({ data: chunk({}, whole.choices[0].finish_reason) });
  if (request.body?.stream_options?.include_usage && whole.usage) events.push({ data: { ...base, choices: [], usage: whole.usage } });
  events.push({ data: '[DONE]' });

  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...reply.headers });
  let contentSent = 0;
  const write = (index: number) => {
    if (res.destroyed) return;
    if (index === events.length) return void res.end();
    const event = events[index];
    if (event.content && reply.breakAfterChunks !== undefined && contentSent >= reply.breakAfterChunks) return void res.destroy();
    res.write(`data: ${typeof event.data === 'string' ? event.data : JSON.stringify(event.data)}\n\n`);
    if (event.content) {
      contentSent++;
      request.chunksSentAt.push(wallClock());
    }
    if (!reply.chunkDelayMs || !event.content) return write(index + 1);
    const timer = setTimeout(() => {
      timers.delete(timer);
      write(index + 1);
    }, reply.chunkDelayMs);
    timers.add(timer);
  };
  write(0);
}

/** OpenAI's error shape. */
function errorBody(message: string, type: string, code: string | null = null): Record<string, unknown> {
  return { error: { message, type, param: null, code } };
}

/** The `type` and `code` OpenAI gives an error status. */
function errorKind(status: number): [string, string | null] {
  if (status === 429) return ['requests', 'rate_limit_exceeded'];
  if (status >= 500) return ['server_error', null];
  return ['invalid_request_error', null];
}

function send(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(typeof body === 'string' ? body : JSON.stringify(body));
}
