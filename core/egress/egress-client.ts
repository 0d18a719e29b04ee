import { setTimeout as sleep } from 'node:timers/promises';
import { request as undiciRequest, type Agent, type Dispatcher } from 'undici';
import type { Logger } from '../logging/logger';
import type { AddressPolicy } from './address-policy';
import {
  EgressError,
  EgressNetworkError,
  EgressRefusedError,
  EgressResponseTooLargeError,
  EgressTimeoutError,
  EgressTooManyRedirectsError,
} from './egress-errors';
import { createGuardedAgent, type HostResolver } from './guarded-dispatcher';
import { REDIRECT_STATUSES, redirectedHop, type Hop } from './redirect-rules';
import { RETRY_STATUSES, backoffMs, isRepeatable, isRetryableFailure } from './retry-rules';

export type QueryValue = string | number | boolean | null | undefined;

export interface EgressRequestOptions {
  /** Default `GET`. */
  method?: string;
  headers?: Record<string, string | string[] | undefined>;
  /** A string or bytes are sent as they are; anything else as JSON (with `content-type: application/json` unless set). */
  body?: string | Uint8Array | Record<string, unknown> | unknown[];
  /** Added to the URL's query string. */
  query?: Record<string, QueryValue | QueryValue[]>;
  /** The whole call: connecting, redirects, retries, reading the body. */
  timeoutMs?: number;
  /** Resolving and connecting, per connection. */
  connectTimeoutMs?: number;
  maxResponseBytes?: number;
  /** Redirects followed before failing; `0` returns a redirect response as it is. */
  maxRedirects?: number;
  /** Sent as `Idempotency-Key`; makes a POST/PATCH safe to retry for servers that honour it. */
  idempotencyKey?: string;
  /** Retries of a failure that is safe to repeat. */
  retries?: number;
  /** Cancels the call (the caller's own reason is thrown). */
  signal?: AbortSignal;
  /**
   * Reads a 2xx answer's body as it arrives (a streamed answer: Server-Sent Events)
   * instead of holding it: each chunk is passed here, the response's `body` is then
   * empty, and `maxResponseBytes` and `timeoutMs` still bound the whole. An error thrown
   * here ends the call and is thrown as it is. Other statuses are read whole, as usual.
   */
  onChunk?: (chunk: Buffer) => void;
  /**
   * With `onChunk`: fails the call with `EgressTimeoutError` (phase `idle`) when the body
   * sends nothing for this long, so a server that stalls mid-answer is noticed before
   * `timeoutMs` (which a long streamed answer needs to be generous) runs out.
   */
  idleTimeoutMs?: number;
}

export interface EgressResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  text(): string;
  json<T = unknown>(): T;
  /** The URL that answered, after redirects. */
  url: string;
  /** Redirects followed. */
  redirects: number;
}

/** The one HTTP client for outbound calls (webhooks, website import, LLM, flow-app APIs). */
export interface Egress {
  request(url: string | URL, options?: EgressRequestOptions): Promise<EgressResponse>;
  /** Closes pooled connections (on shutdown). */
  close(): Promise<void>;
}

export interface EgressClientSettings {
  policy: AddressPolicy;
  connectTimeoutMs: number;
  timeoutMs: number;
  maxResponseBytes: number;
  maxRetries: number;
  /** First retry's backoff; later ones double it. */
  retryBackoffMs: number;
  userAgent: string;
  resolve?: HostResolver;
  trustedCa?: string | Buffer | Array<string | Buffer>;
  logger: Logger;
}

const DEFAULT_MAX_REDIRECTS = 5;
const ALLOWED_SCHEMES = new Set(['http:', 'https:']);

/** What one `request` carries through its hops and attempts. */
interface Call {
  deadline: AbortSignal;
  /** performance.now() by which the call must be over. */
  deadlineAt: number;
  timeoutMs: number;
  /** Aborted by the deadline or by the caller. */
  signal: AbortSignal;
  agent: Agent;
  connectTimeoutMs: number;
  retries: number;
  repeatable: boolean;
}

export class EgressClient implements Egress {
  // One agent (connection pool) per connect timeout: undici fixes it per connector.
  private readonly agents = new Map<number, Agent>();
  private closed = false;

  constructor(private readonly settings: EgressClientSettings) {}

  async request(url: string | URL, options: EgressRequestOptions = {}): Promise<EgressResponse> {
    if (this.closed) throw new EgressError('the egress client is closed');
    const started = performance.now();
    const method = (options.method ?? 'GET').toUpperCase();
    let parsed: ReturnType<typeof parseTarget>;
    try {
      parsed = parseTarget(url, options.query);
    } catch (error) {
      this.logFailure(method, hostOf(url), started, error as EgressError);
      throw error;
    }
    const { target: first, basicAuth } = parsed;
    let target = first;
    const timeoutMs = options.timeoutMs ?? this.settings.timeoutMs;
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(new EgressTimeoutError('total', timeoutMs)), timeoutMs);
    const connectTimeoutMs = options.connectTimeoutMs ?? this.settings.connectTimeoutMs;
    const call: Call = {
      deadline: deadline.signal,
      deadlineAt: started + timeoutMs,
      timeoutMs,
      signal: options.signal ? AbortSignal.any([options.signal, deadline.signal]) : deadline.signal,
      agent: this.agentFor(connectTimeoutMs),
      connectTimeoutMs,
      retries: options.retries ?? this.settings.maxRetries,
      repeatable: isRepeatable(method, options.idempotencyKey !== undefined),
    };
    const maxRedirects = options.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
    const maxResponseBytes = options.maxResponseBytes ?? this.settings.maxResponseBytes;
    let hop: Hop = { method, headers: this.headersOf(options, basicAuth), body: undefined };
    hop = withBody(hop, options.body);
    let redirects = 0;
    let attempts = 0;
    try {
      for (;;) {
        const { response, attemptsMade } = await this.sendWithRetries(target, hop, call);
        attempts += attemptsMade;
        const location = response.headers.location;
        if (maxRedirects > 0 && REDIRECT_STATUSES.has(response.statusCode) && typeof location === 'string') {
          await discard(response);
          if (redirects >= maxRedirects) throw new EgressTooManyRedirectsError(maxRedirects);
          const next = redirectTarget(location, target);
          hop = redirectedHop(response.statusCode, hop, target, next);
          target = next;
          redirects++;
          continue;
        }
        const streamed = options.onChunk && response.statusCode >= 200 && response.statusCode < 300;
        const body = streamed ? await passCapped(response, maxResponseBytes, options.onChunk!, options.idleTimeoutMs) : await readCapped(response, maxResponseBytes);
        this.settings.logger.debug('egress call', {
          method,
          host: target.host,
          ...(redirects > 0 ? { firstHost: first.host } : {}),
          status: response.statusCode,
          durationMs: Math.round(performance.now() - started),
          attempts,
          redirects,
        });
        return toResponse(response, body, target, redirects);
      }
    } catch (error) {
      if (error instanceof ChunkHandlerFailure) throw error.cause;
      // The caller's own cancellation is not an egress failure: it gets its reason back.
      if (options.signal?.aborted && !deadline.signal.aborted) throw options.signal.reason;
      const failure = this.classify(error, call);
      this.logFailure(method, target.host, started, failure);
      throw failure;
    } finally {
      clearTimeout(timer);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.agents.values()].map((agent) => agent.close()));
  }

  private logFailure(method: string, host: string, started: number, failure: EgressError): void {
    const line = {
      method,
      host,
      error: failure.name,
      ...(failure instanceof EgressNetworkError && failure.code ? { code: failure.code } : {}),
      durationMs: Math.round(performance.now() - started),
    };
    // A refusal is the operator's concern (a target on a private network needs EGRESS_ALLOW_CIDRS).
    if (failure instanceof EgressRefusedError) this.settings.logger.warn('egress call refused', { ...line, reason: failure.reason });
    else this.settings.logger.debug('egress call failed', line);
  }

  private agentFor(connectTimeoutMs: number): Agent {
    let agent = this.agents.get(connectTimeoutMs);
    if (!agent) {
      agent = createGuardedAgent({ policy: this.settings.policy, connectTimeoutMs, resolve: this.settings.resolve, trustedCa: this.settings.trustedCa });
      this.agents.set(connectTimeoutMs, agent);
    }
    return agent;
  }

  private headersOf(options: EgressRequestOptions, basicAuth: string | undefined): Record<string, string | string[]> {
    const headers: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(options.headers ?? {})) if (value !== undefined) headers[name.toLowerCase()] = value;
    headers['user-agent'] ??= this.settings.userAgent;
    if (options.idempotencyKey !== undefined) headers['idempotency-key'] = options.idempotencyKey;
    if (basicAuth !== undefined) headers.authorization ??= basicAuth;
    return headers;
  }

  /** Sends one hop, again after a failure that is safe to repeat, while time and retries last. */
  private async sendWithRetries(target: URL, hop: Hop, call: Call): Promise<{ response: Dispatcher.ResponseData; attemptsMade: number }> {
    for (let attempt = 1; ; attempt++) {
      let response: Dispatcher.ResponseData | undefined;
      let failure: EgressError | undefined;
      try {
        response = await undiciRequest(target, {
          dispatcher: call.agent,
          method: hop.method as Dispatcher.HttpMethod,
          headers: hop.headers,
          body: hop.body,
          signal: call.signal,
        });
      } catch (error) {
        failure = this.classify(error, call);
      }
      const retryable = failure ? isRetryableFailure(failure, call.repeatable) : call.repeatable && RETRY_STATUSES.has(response!.statusCode);
      const wait = backoffMs(attempt, this.settings.retryBackoffMs);
      // No retry that could not finish before the deadline: the last answer is more useful than a timeout.
      if (!retryable || attempt > call.retries || performance.now() + wait >= call.deadlineAt) {
        if (failure) throw failure;
        return { response: response!, attemptsMade: attempt };
      }
      if (response) await discard(response);
      await sleep(wait, undefined, { signal: call.signal });
    }
  }

  /** Turns whatever undici, the socket or an abort threw into one of the egress errors. */
  private classify(error: unknown, call: Call): EgressError {
    if (error instanceof EgressError) return error;
    if (call.deadline.aborted) return new EgressTimeoutError('total', call.timeoutMs, { cause: error });
    const code = (error as { code?: unknown } | null)?.code;
    if (code === 'UND_ERR_CONNECT_TIMEOUT') return new EgressTimeoutError('connect', call.connectTimeoutMs, { cause: error });
    const message = error instanceof Error ? error.message : String(error);
    return new EgressNetworkError(message, typeof code === 'string' ? code : undefined, { cause: error });
  }
}

/**
 * The URL to call, with the query added. Credentials written in it
 * (https://user:pass@host/) are taken out and sent as Basic auth, as browsers do,
 * so they are subject to the same cross-origin stripping as an Authorization header.
 */
function parseTarget(url: string | URL, query: EgressRequestOptions['query']): { target: URL; basicAuth?: string } {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    throw new EgressRefusedError('not a valid URL');
  }
  checkScheme(target);
  for (const [name, value] of Object.entries(query ?? {})) {
    for (const item of Array.isArray(value) ? value : [value]) {
      if (item !== undefined && item !== null) target.searchParams.append(name, String(item));
    }
  }
  let basicAuth: string | undefined;
  if (target.username || target.password) {
    basicAuth = `Basic ${Buffer.from(`${percentDecoded(target.username)}:${percentDecoded(target.password)}`).toString('base64')}`;
    target.username = '';
    target.password = '';
  }
  target.hash = '';
  return { target, basicAuth };
}

/** The URL parser keeps userinfo percent-encoded; a malformed escape is sent as written rather than failing the call. */
function percentDecoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function hostOf(url: string | URL): string {
  try {
    return new URL(url).host;
  } catch {
    return '';
  }
}

/** A redirect's target, which passes the same scheme check (and, when connecting, the same address check). */
function redirectTarget(location: string, from: URL): URL {
  let next: URL;
  try {
    next = new URL(location, from);
  } catch {
    throw new EgressNetworkError(`${from.host} redirected to an invalid Location`, undefined);
  }
  checkScheme(next);
  // A server cannot hand us credentials to send elsewhere.
  next.username = '';
  next.password = '';
  next.hash = '';
  return next;
}

function withBody(hop: Hop, given: EgressRequestOptions['body']): Hop {
  if (given === undefined) return hop;
  if (typeof given === 'string') return { ...hop, body: Buffer.from(given) };
  if (given instanceof Uint8Array) return { ...hop, body: Buffer.from(given.buffer, given.byteOffset, given.byteLength) };
  return { ...hop, headers: { 'content-type': 'application/json', ...hop.headers }, body: Buffer.from(JSON.stringify(given)) };
}

function checkScheme(url: URL): void {
  if (!ALLOWED_SCHEMES.has(url.protocol)) throw new EgressRefusedError(`scheme ${url.protocol} is not allowed (only http: and https:)`);
}

/** Reads the body, giving up as soon as it passes the cap (destroying the stream closes the connection). */
async function readCapped(response: Dispatcher.ResponseData, maxBytes: number): Promise<Buffer> {
  const declared = Number(response.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) {
    response.body.destroy();
    throw new EgressResponseTooLargeError(maxBytes);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response.body) {
    size += chunk.length;
    if (size > maxBytes) {
      response.body.destroy();
      throw new EgressResponseTooLargeError(maxBytes);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size);
}

/** What a caller's `onChunk` threw: passed through as it is, never classified as a network failure. */
class ChunkHandlerFailure {
  constructor(readonly cause: unknown) {}
}

/** Hands the body to `onChunk` piece by piece, within the same cap as readCapped. */
async function passCapped(response: Dispatcher.ResponseData, maxBytes: number, onChunk: (chunk: Buffer) => void, idleTimeoutMs?: number): Promise<Buffer> {
  let idle: NodeJS.Timeout | undefined;
  let lastChunkAt = performance.now();
  // One timer for the whole body, not one per chunk (a streamed answer is a chunk per token): when it
  // fires it looks at when the last chunk came and waits out the rest. Destroying the body ends the loop below.
  const watch = (waitMs: number) => {
    idle = setTimeout(() => {
      const quietMs = performance.now() - lastChunkAt;
      if (quietMs >= idleTimeoutMs!) response.body.destroy(new EgressTimeoutError('idle', idleTimeoutMs!));
      else watch(idleTimeoutMs! - quietMs);
    }, waitMs);
  };
  if (idleTimeoutMs) watch(idleTimeoutMs);
  let size = 0;
  try {
    for await (const chunk of response.body) {
      lastChunkAt = performance.now();
      size += chunk.length;
      if (size > maxBytes) {
        response.body.destroy();
        throw new EgressResponseTooLargeError(maxBytes);
      }
      try {
        onChunk(chunk);
      } catch (error) {
        response.body.destroy();
        throw new ChunkHandlerFailure(error);
      }
    }
  } finally {
    clearTimeout(idle);
  }
  return Buffer.alloc(0);
}

/** Drops a body we will not use; a short one is drained so the connection can be reused. */
async function discard(response: Dispatcher.ResponseData): Promise<void> {
  await response.body.dump({ limit: 64 * 1024 }).catch(() => {});
}

function toResponse(response: Dispatcher.ResponseData, body: Buffer, url: URL, redirects: number): EgressResponse {
  return {
    status: response.statusCode,
    headers: response.headers,
    body,
    text: () => body.toString('utf8'),
    json: <T>() => JSON.parse(body.toString('utf8')) as T,
    url: url.href,
    redirects,
  };
}
