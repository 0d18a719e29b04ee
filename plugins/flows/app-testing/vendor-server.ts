import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request the vendor server received. */
export interface VendorRequest {
  method: string;
  /** The path, without the query. */
  path: string;
  /** The route's `:name` segments. */
  params: Record<string, string>;
  query: URLSearchParams;
  headers: http.IncomingHttpHeaders;
  body: string;
  json<T = unknown>(): T;
}

/** What a route answers: an object or array body is sent as JSON. */
export interface VendorReply {
  status?: number;
  headers?: Record<string, string>;
  body?: string | Buffer | object | null;
}

/** A route's handler; `state` is the server's, shared by every route and kept between requests (the vendor's data). */
export type VendorHandler<S> = (request: VendorRequest, state: S) => VendorReply | Promise<VendorReply>;

/** Handlers by `METHOD /path`, the path in static segments and `:name` parameters: `'GET /contacts/:id'`. */
export type VendorRoutes<S> = Record<string, VendorHandler<S>>;

export interface VendorServer<S> {
  /** `http://127.0.0.1:<port>`: the base URL to give the app (its connection's base URL, an action's `url`). */
  readonly url: string;
  readonly state: S;
  /** Every request received, in order (unrouted ones too). */
  readonly requests: VendorRequest[];
  close(): Promise<void>;
}

interface Route<S> {
  method: string;
  segments: string[];
  handler: VendorHandler<S>;
}

function parseRoutes<S>(routes: VendorRoutes<S>): Array<Route<S>> {
  return Object.entries(routes).map(([key, handler]) => {
    const match = /^([A-Z]+) (\/\S*)$/.exec(key);
    if (!match) throw new Error(`vendor server route "${key}" must be "METHOD /path"`);
    return { method: match[1], segments: match[2].split('/').slice(1), handler };
  });
}

function paramsOf(route: { segments: string[] }, segments: string[]): Record<string, string> | null {
  if (route.segments.length !== segments.length) return null;
  const params: Record<string, string> = {};
  for (const [index, expected] of route.segments.entries()) {
    if (expected.startsWith(':')) params[expected.slice(1)] = decodeURIComponent(segments[index]);
    else if (expected !== segments[index]) return null;
  }
  return params;
}

function send(res: http.ServerResponse, reply: VendorReply): void {
  const headers = { ...reply.headers };
  let body = reply.body ?? '';
  if (typeof body !== 'string' && !Buffer.isBuffer(body)) {
    body = JSON.stringify(body);
    if (!Object.keys(headers).some((name) => name.toLowerCase() === 'content-type')) headers['content-type'] = 'application/json';
  }
  res.writeHead(reply.status ?? 200, headers).end(body);
}

/**
 * A vendor's API played on 127.0.0.1 (the test kernel's egress allows loopback): route
 * handlers answer what the vendor's documentation says, reading and changing `state`.
 * An unrouted request answers 404, a handler that throws 500 with its message. Close it
 * after the test (`afterAll(() => vendor.close())`), or let `useVendorServer` do both.
 */
export async function startVendorServer<S = Record<string, unknown>>(routes: VendorRoutes<S>, options: { state?: S } = {}): Promise<VendorServer<S>> {
  const table = parseRoutes(routes);
  const state = options.state ?? ({} as S);
  const requests: VendorRequest[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://vendor.invalid');
      const body = Buffer.concat(chunks).toString('utf8');
      const base = { method: req.method ?? 'GET', path: url.pathname, query: url.searchParams, headers: req.headers, body, json: () => JSON.parse(body) };
      const segments = url.pathname.split('/').slice(1);
      const found = table.map((route) => ({ route, params: route.method === base.method ? paramsOf(route, segments) : null })).find(({ params }) => params);
      const request: VendorRequest = { ...base, params: found?.params ?? {} };
      requests.push(request);
      if (!found) return send(res, { status: 404, body: { error: `no route for ${request.method} ${request.path}` } });
      Promise.resolve()
        .then(() => found.route.handler(request, state))
        .then(
          (reply) => send(res, reply),
          (error: unknown) => send(res, { status: 500, body: { error: error instanceof Error ? error.message : String(error) } }),
        );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    state,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * `startVendorServer` for a whole test file or `describe`: started in `beforeAll`,
 * closed in `afterAll`. Call it where those hooks may be declared (not inside a test);
 * read its members from the tests.
 */
export function useVendorServer<S = Record<string, unknown>>(routes: VendorRoutes<S>, options: { state?: S } = {}): VendorServer<S> {
  let started: VendorServer<S> | undefined;
  beforeAll(async () => {
    started = await startVendorServer(routes, options);
  });
  afterAll(() => started?.close());
  const current = () => {
    if (!started) throw new Error('the vendor server starts in beforeAll: read it from a test or a later hook');
    return started;
  };
  return {
    get url() {
      return current().url;
    },
    get state() {
      return current().state;
    },
    get requests() {
      return current().requests;
    },
    close: () => current().close(),
  };
}
