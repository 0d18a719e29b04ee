import { EgressNetworkError, EgressRefusedError, type Egress, type EgressRequestOptions, type EgressResponse } from '../../../core';

/** One call the app made, as the vendor would have received it. */
export interface RecordedRequest {
  method: string;
  /** With the `query` option added. */
  url: string;
  /** Lower-case names, with what the egress client adds (`idempotency-key`, the JSON content type). */
  headers: Record<string, string | string[]>;
  body: Buffer;
  text(): string;
  json<T = unknown>(): T;
}

/** What a scripted call answers: an object or array body is sent as JSON; or `error`, thrown as the egress client would throw it. */
export type ScriptedReply = { status?: number; headers?: Record<string, string>; body?: string | Buffer | object | null } | { error: Error };

export type Responder = ScriptedReply | ((request: RecordedRequest) => ScriptedReply | Promise<ScriptedReply>);

/**
 * An egress double for app tests that need no network: every request is recorded
 * (`requests`) and answered by the first matching `route`, else by the next queued
 * `reply`; a request nothing answers fails as a network error naming it.
 */
export interface RecordingEgress extends Egress {
  readonly requests: RecordedRequest[];
  /** Queues answers for the next requests no route takes, in order. */
  reply(...replies: Responder[]): RecordingEgress;
  /** Answers every request with `method` (`*`: any) whose URL starts with `url`, or matches it. */
  route(method: string, url: string | RegExp, responder: Responder): RecordingEgress;
}

const asText = (body: Buffer) => body.toString('utf8');

function recorded(method: string, url: URL, options: EgressRequestOptions): RecordedRequest {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(options.headers ?? {})) if (value !== undefined) headers[name.toLowerCase()] = value;
  if (options.idempotencyKey !== undefined) headers['idempotency-key'] = options.idempotencyKey;
  const given = options.body;
  let body = Buffer.alloc(0);
  if (typeof given === 'string' || given instanceof Uint8Array) body = Buffer.from(given);
  else if (given !== undefined) {
    headers['content-type'] ??= 'application/json';
    body = Buffer.from(JSON.stringify(given));
  }
  return { method, url: url.href, headers, body, text: () => asText(body), json: () => JSON.parse(asText(body)) };
}

function response(reply: Exclude<ScriptedReply, { error: Error }>, url: string): EgressResponse {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(reply.headers ?? {})) headers[name.toLowerCase()] = value;
  const given = reply.body;
  let body = Buffer.alloc(0);
  if (typeof given === 'string' || Buffer.isBuffer(given)) body = Buffer.from(given);
  else if (given !== undefined && given !== null) {
    headers['content-type'] ??= 'application/json';
    body = Buffer.from(JSON.stringify(given));
  }
  return { status: reply.status ?? 200, headers, body, text: () => asText(body), json: () => JSON.parse(asText(body)), url, redirects: 0 };
}

export function recordingEgress(): RecordingEgress {
  const requests: RecordedRequest[] = [];
  const queued: Responder[] = [];
  const routes: Array<{ method: string; url: string | RegExp; responder: Responder }> = [];
  const matches = (url: string | RegExp, href: string) => (typeof url === 'string' ? href.startsWith(url) : url.test(href));

  const egress: RecordingEgress = {
    requests,
    reply(...replies) {
      queued.push(...replies);
      return egress;
    },
    route(method, url, responder) {
      routes.push({ method: method.toUpperCase(), url, responder });
      return egress;
    },
    async request(target, options = {}) {
      let url: URL;
      try {
        url = new URL(target);
      } catch {
        throw new EgressRefusedError('not a valid URL');
      }
      if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new EgressRefusedError(`scheme ${url.protocol} is not allowed (only http: and https:)`);
      for (const [name, value] of Object.entries(options.query ?? {})) {
        for (const item of [value].flat()) if (item !== undefined && item !== null) url.searchParams.append(name, String(item));
      }
      const request = recorded((options.method ?? 'GET').toUpperCase(), url, options);
      requests.push(request);
      const responder = routes.find((route) => (route.method === '*' || route.method === request.method) && matches(route.url, request.url))?.responder ?? queued.shift();
      if (!responder) throw new EgressNetworkError(`recordingEgress: nothing scripted for ${request.method} ${request.url} (queue a reply() or add a route())`, undefined);
      const reply = typeof responder === 'function' ? await responder(request) : responder;
      if ('error' in reply) throw reply.error;
      const answer = response(reply, request.url);
      // As the real client: a 2xx answer read through onChunk arrives as chunks, its body then empty.
      if (options.onChunk && answer.status >= 200 && answer.status < 300) {
        options.onChunk(answer.body);
        return { ...answer, body: Buffer.alloc(0), text: () => '', json: () => JSON.parse('') };
      }
      return answer;
    },
    close: async () => {},
  };
  return egress;
}
