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
}

export interface FakeLlmRequest {
  method: string;
  /** E.g. `/v1/chat/completions`. */
  path: string;
  headers: http.IncomingHttpHeaders;
  /** The parsed JSON body (`undefined` when it was not JSON). */
  body: any;
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

export async function startFakeLlmServer(): Promise<FakeLlmServer> {
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
      const request: FakeLlmRequest = { method: req.method!, path: req.url!, headers: req.headers, body };
      requests.push(request);
      if (req.method !== 'POST' || new URL(req.url!, 'http://x').pathname !== COMPLETIONS_PATH) {
        return send(res, 404, errorBody(`fake LLM server: only POST ${COMPLETIONS_PATH} is served, not ${req.method} ${req.url}`, 'invalid_request_error'));
      }
      const script = queue.shift();
      // A clear failure, so a test that forgot to script an answer notices at once.
      if (!script) return send(res, 500, errorBody('fake LLM server: no reply queued for this request (call reply() first)', 'server_error'));
      const reply = typeof script === 'function' ? script(request) : script;
      const answer = () => {
        if (reply.body !== undefined) return send(res, reply.status ?? 200, reply.body, reply.headers);
        if (reply.status !== undefined && reply.status >= 400) {
          const payload = typeof reply.error === 'object' ? reply.error : errorBody(reply.error ?? `scripted HTTP ${reply.status}`, ...errorKind(reply.status));
          return send(res, reply.status, payload, reply.headers);
        }
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
