import express, { type ErrorRequestHandler, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import type { MikroORM } from '@mikro-orm/postgresql';
import { currentContext, runInContext, type TenantRef, type WorkContext } from '../context/request-context';
import { dataErrorOf, isDatabaseUnavailable, type DataError } from '../data/database-errors';
import { randomUUID } from 'node:crypto';
import parseBytes from 'bytes';
import type { Logger } from '../logging/logger';
import type { Authenticator } from './authenticate';
import {
  BadRequestError,
  ConflictError,
  HttpError,
  NotFoundError,
  PayloadTooLargeError,
  ServiceUnavailableError,
  UnsupportedMediaTypeError,
  ValidationError,
  type FieldErrors,
} from './http-errors';
import { inspectInput } from './input-limits';
import { Idempotency, keyedRequestOf, ReplayedResponse, sendReplay } from './idempotency';
import { IdempotencyStore, type ResponseSeal } from './idempotency-store';
import { discardUpload, parseMultipart, type ParsedUpload } from './multipart-upload';
import type { Readiness } from './readiness';
import { buildOpenApiDocument, OPENAPI_PATH, type OpenApiOptions } from './openapi';
import { docsPage } from './docs-page';
import { JsonText, Reply } from './route';
import { EventStream } from './event-stream';
import type { CompiledRoute, RouteRegistry } from './route-registry';
import { MalformedPathError, RouteTable } from './route-table';
import type { Metrics } from '../metrics/metrics';
import { metricsRoute, METRICS_PATH } from '../metrics/metrics-endpoint';
import { countedRoute } from '../metrics/request-metrics';
import type { RequestLimits } from '../limits/request-limits';

export interface ExpressAppOptions {
  registry: RouteRegistry;
  orm: MikroORM;
  authenticator: Authenticator;
  readiness: Readiness;
  logger: Logger;
  bodyLimit: string;
  /** Seals the responses stored for Idempotency-Key replays. */
  secrets: ResponseSeal;
  /** How deeply a body or query may nest (input-limits.ts). */
  bodyMaxDepth: number;
  /** Largest uploaded file of an `upload` route, e.g. `50mb`. */
  uploadLimit: string;
  trustProxy: boolean;
  /** Set while shutting down, so keep-alive clients are told to reconnect elsewhere. */
  isDraining: () => boolean;
  /** Where the OpenAPI document says the API is. */
  openApi: OpenApiOptions;
  /** Request metrics while enabled, and `GET /metrics` while METRICS_TOKEN is set (core/metrics). */
  metrics?: Metrics;
  /** Rate limits per token, tenant, client IP and hook (core/limits); none when absent. */
  limits?: RequestLimits;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * express 5 -> request id + context -> JSON body -> per route: tenant, token, scope,
 * validation, handler in a transaction on a forked EntityManager -> envelope.
 */
export function createExpressApp(options: ExpressAppOptions): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  app.set('trust proxy', options.trustProxy);
  app.set('query parser', 'extended');

  const accessLog = options.logger.isLevelEnabled('http');
  const requestMetrics = options.metrics?.requests;
  app.use((req, res, next) => {
    requestMetrics?.start(res, req.method);
    const incoming = req.get('x-request-id');
    // Request ids need to be unique, not time-ordered: v4 costs a fraction of v7 per request.
    const requestId = incoming && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    res.setHeader('X-Request-Id', requestId);
    if (options.isDraining()) res.setHeader('Connection', 'close');
    // One access line per request at level `http` (LOG_LEVEL=http shows them); never headers or bodies.
    if (accessLog) {
      const started = process.hrtime.bigint();
      res.once('finish', () => {
        options.logger.http('request', {
          method: req.method,
          path: req.path,
          status: res.statusCode,
          duration_ms: Number(process.hrtime.bigint() - started) / 1e6,
          request_id: requestId,
        });
      });
    }
    // RFC 9112: an HTTP/1.1 request without Host is a 400 (an empty one is allowed, and names no tenant).
    if (req.headers.host === undefined && req.httpVersionMajor === 1 && req.httpVersionMinor >= 1) {
      return void res.status(400).json(new BadRequestError('Missing Host header').body());
    }
    runInContext({ requestId }, next);
  });
  // `verify` keeps the bytes as received on `req.rawBody`: a provider's webhook signature is over them, not over the parsed JSON.
  const jsonBody = express.json({ limit: options.bodyLimit, strict: false, type: ['application/json', 'application/*+json'], verify: keepRawBody });

  // Every route, the kernel's and the plugins', is found in one table (route-table.ts): the /docs router comes after it.
  const routes = new RouteTable<RouteEntry>();
  // Each route counted under its template (`/api/v1/agents/:uuid`), never its raw path.
  const addRoute = (method: string, path: string, entry: RouteEntry) => routes.add(method, path, countedRoute(requestMetrics, method, path, entry));
  addRoute('GET', '/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  addRoute('GET', '/readyz', async (_req, res) => {
    const report = await options.readiness.report();
    res.status(report.ready ? 200 : 503).json({ status: report.ready ? 'ready' : 'unavailable', checks: report.checks });
  });
  // Built once: the registry is sealed before the app is created.
  const openApiJson = JSON.stringify(buildOpenApiDocument(options.registry.list(), options.openApi));
  addRoute('GET', OPENAPI_PATH, (_req, res) => {
    res.type('json').send(openApiJson);
  });
  const metricsToken = options.metrics?.config.metricsToken;
  if (options.metrics && metricsToken) addRoute('GET', METRICS_PATH, metricsRoute(options.metrics, metricsToken));
  for (const route of options.registry.list()) {
    if (route.auth === 'admin' && !options.authenticator.adminEnabled()) continue;
    addRoute(route.method, route.path, routeHandler(route, options));
  }
  app.use(dispatch(routes, jsonBody));
  app.use(docsPage(OPENAPI_PATH));

  app.use((req, _res, next) => next(new NotFoundError(`Route ${req.method} ${req.path} not found`)));
  app.use(errorHandler(options.logger));
  return app;
}

/** A route's handler; `params` are the path's parameters, decoded. */
type RouteEntry = (req: Request, res: Response, next: NextFunction, params: Record<string, string>) => unknown;

/**
 * Runs the route the table finds, after reading its JSON body when the request has one
 * (`jsonBody`, express.json: malformed JSON 400, too large 413); OPTIONS answers which
 * methods a path has; anything else goes on to /docs and the 404, unread.
 */
function dispatch(routes: RouteTable<RouteEntry>, jsonBody: RequestHandler): RequestHandler {
  return (req, res, next) => {
    const path = pathOf(req.url);
    let found;
    try {
      found = routes.match(req.method, path);
    } catch (error) {
      return next(error instanceof MalformedPathError ? new BadRequestError(error.message) : error);
    }
    if (found) {
      const route = found;
      req.params = route.params;
      const run = () => {
        const result = route.value(req, res, next, route.params);
        // As express 5 does for its routes: a handler's rejected promise goes to the error handler.
        if (result instanceof Promise) result.catch(next);
      };
      // What express.json itself checks first: a request with neither header has no body.
      if (req.headers['content-length'] === undefined && req.headers['transfer-encoding'] === undefined) return run();
      return void jsonBody(req, res, (error?: unknown) => (error ? next(error) : run()));
    }
    if (req.method === 'OPTIONS') {
      const methods = routes.methodsAt(path);
      if (methods.length > 0) return void res.status(204).setHeader('Allow', methods.join(', ')).end();
    }
    next();
  };
}

/** The path of a request target (what express's req.path is), without parsing the whole URL. */
function pathOf(url: string): string {
  const end = url.search(/[?#]/);
  return end === -1 ? url : url.slice(0, end);
}

function routeHandler(route: CompiledRoute, options: ExpressAppOptions): RouteEntry {
  const uploadLimit = parseBytes.parse(options.uploadLimit) ?? 50 * 1024 * 1024;
  const idempotency = new Idempotency(new IdempotencyStore(options.orm, options.secrets), options.logger);
  // Decided once per route: a route no limit applies to pays nothing per request.
  const limits = options.limits?.applies(route) ? options.limits : undefined;
  return async (req: Request, res: Response, next: NextFunction, params: Record<string, string>) => {
    let upload: ParsedUpload | undefined;
    try {
      const context = currentContext();
      if (route.auth === 'admin') options.authenticator.authenticateAdmin(req);
      const found =
        route.auth === 'tenant' ? options.authenticator.authenticateTenant(req, route.scope) : route.auth === 'tenant-host' ? options.authenticator.tenantOf(req) : undefined;
      // Answered without a promise while the tenant and token are cached (the common case).
      const tenant: TenantRef | undefined = found instanceof Promise ? await found : found;
      if (limits) {
        // After authentication (an unknown caller spends nobody's tokens), before any body is read or validated.
        const limited = limits.check(route, req, res, tenant, params);
        if (limited) await limited;
      }

      // express parses the query string again on each read of req.query, so this object is the request's own.
      const query = req.url.includes('?') ? (req.query as Record<string, unknown>) : {};
      let body: unknown = undefined;
      if (route.upload) {
        // Authenticated before a byte of the file is read; the file is deleted when the response ends.
        upload = await parseMultipart(req, route.upload, uploadLimit);
        res.once('close', () => void discardUpload(upload));
        body = upload.fields;
      } else if (route.validate.body) {
        if (req.body === undefined && hasBody(req)) throw new UnsupportedMediaTypeError();
        // No body at all reads as an empty object: optional members may be left out
        // entirely, and missing required ones are named one by one.
        body = req.body ?? {};
      }
      // What no route can store (NUL, lone surrogates, deep nesting) is refused before any
      // schema runs, members the schema leaves open included; then one 422 names every problem.
      const depth = options.bodyMaxDepth;
      const hostileParams = inspectInput(params, 'params', depth);
      const hostileQuery = inspectInput(query, 'query', depth);
      const hostileBody = inspectInput(body, 'body', depth);
      if (hostileParams || hostileQuery || hostileBody) throw new ValidationError(mergeProblems(hostileParams, hostileQuery, hostileBody));
      // Hashed as sent, before the schemas fill in defaults (idempotency.ts).
      const keyed = keyedRequestOf(route, req, tenant, query, body, upload?.file);
      const paramProblems = route.validate.params?.(params);
      const queryProblems = route.validate.query?.(query);
      const bodyProblems = route.validate.body?.(body);
      if (paramProblems || queryProblems || bodyProblems) throw new ValidationError(mergeProblems(paramProblems, queryProblems, bodyProblems));

      const em = options.orm.em.fork();
      // The request's own context (made by the first middleware for this request alone) takes the tenant and the
      // unit of work, rather than a second async context per request.
      const work: WorkContext = context ?? {};
      work.tenant = tenant;
      work.em = em;
      const invoke = (scoped: typeof em) =>
        route.handler({ params, query, body, tenant: tenant!, em: scoped, requestId: work.requestId!, req, file: upload?.file });
      const run = () => (keyed ? idempotency.run(keyed, em, route, invoke) : route.transactional ? em.transactional((tx) => invoke(tx)) : invoke(em));
      const result = context ? await run() : await runInContext(work, run);
      // Run in the request's context too: the stream's work is the request's (tenant, logs).
      if (result instanceof EventStream) {
        const pipe = () => result.pipe(res, options.logger, streamErrorOf);
        return void (await (context ? pipe() : runInContext(work, pipe)));
      }
      send(res, route, result);
    } catch (error) {
      next(error);
    }
  };
}

/** Member names are data: a plain object (or spread) would treat `__proto__` as its prototype. */
function mergeProblems(...parts: Array<FieldErrors | null | undefined>): FieldErrors {
  const merged: FieldErrors = Object.create(null);
  for (const part of parts) if (part) for (const path of Object.keys(part)) (merged[path] ??= []).push(...part[path]);
  return merged;
}

/** express.json's `verify`: the JSON body's bytes, as received, on `req.rawBody` (a route reads them for a signature check). */
function keepRawBody(req: unknown, _res: unknown, buffer: Buffer): void {
  (req as { rawBody?: Buffer }).rawBody = buffer;
}

function hasBody(req: Request): boolean {
  return Number(req.get('content-length') ?? 0) > 0 || req.get('transfer-encoding') !== undefined;
}

function send(res: Response, route: CompiledRoute, result: unknown): void {
  if (result instanceof ReplayedResponse) return sendReplay(res, result);
  if (result instanceof Reply) {
    for (const [name, value] of Object.entries(result.headers)) res.setHeader(name, value);
    // Bytes are written as they are (a webhook's TwiML or challenge text), with the Content-Type the headers give.
    if (Buffer.isBuffer(result.body)) return void res.status(result.status).end(result.body);
    if (result.body === undefined) res.status(result.status).end();
    else writeJson(res, result.status, result.body);
    return;
  }
  if (result === undefined) res.status(route.status === 200 ? 204 : route.status).end();
  else writeJson(res, route.status, result);
}

/** What res.json() does, without express's extra layers on the hot path (measured ~17 us a request). */
function writeJson(res: Response, status: number, body: unknown): void {
  const json = body instanceof JsonText ? body.text : JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': typeof json === 'string' ? Buffer.byteLength(json) : json.byteLength });
  // end's callback runs on 'finish' only: the data has been handed to the operating system.
  if (body instanceof JsonText && body.afterSent) res.end(json, body.afterSent);
  else res.end(json);
}

function errorHandler(logger: Logger): ErrorRequestHandler {
  return (error, req, res, _next) => {
    const httpError = toHttpError(error);
    if (httpError) {
      if (httpError.status >= 500 || dataErrorOf(error)) logger.warn(httpError.message, { method: req.method, path: req.path, cause: String(error?.message ?? error) });
      res.status(httpError.status).json(httpError.body());
      return;
    }
    const requestId = currentContext()?.requestId ?? res.getHeader('X-Request-Id');
    logger.error('unhandled error', { method: req.method, path: req.path, error: error?.stack ?? String(error) });
    if (res.headersSent) return void res.end();
    res.status(500).json({ success: false, message: 'Internal server error', request_id: requestId });
  };
}

/**
 * The database refused what a request carried, past the validation that should have
 * caught it: still the client's 4xx, never a 500 or a 503 (the error handler logs it as a
 * gap to close). The message is PostgreSQL's first line, whose detail could name rows.
 */
function dataHttpError(data: DataError): HttpError {
  if (data.code === '23505') return new ConflictError('The request conflicts with an existing record');
  if (data.code === '23503') return ValidationError.field('body', 'refers to a record that does not exist');
  if (data.code.startsWith('23')) return ValidationError.field('body', 'violates a constraint of the stored data');
  return ValidationError.field('body', `holds a value that cannot be stored (${data.message})`);
}

/** An error after a stream's headers went out: sent as its `error` event (event-stream.ts). */
function streamErrorOf(error: unknown): { status: number; body: unknown } | undefined {
  const httpError = toHttpError(error);
  return httpError && { status: httpError.status, body: httpError.body() };
}

function toHttpError(error: any): HttpError | undefined {
  if (error instanceof HttpError) return error;
  // body-parser's errors carry a `type`.
  switch (error?.type) {
    case 'entity.parse.failed':
      return new BadRequestError('Malformed JSON in request body');
    case 'entity.too.large':
      return new PayloadTooLargeError();
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new UnsupportedMediaTypeError(error.message);
    case 'request.aborted':
      return new BadRequestError('Request aborted');
  }
  // Any other refusal of the body parser (a body that is not the gzip or deflate its
  // Content-Encoding says, a length that does not match): the client's 4xx, never a 500.
  if (error?.expose === true && Number.isInteger(error.status) && error.status >= 400 && error.status < 500) {
    return new HttpError(error.status, `Malformed request body: ${error.message}`);
  }
  if (isDatabaseUnavailable(error)) return new ServiceUnavailableError('Service unavailable: the database cannot be reached');
  const data = dataErrorOf(error);
  if (data) return dataHttpError(data);
  return undefined;
}
