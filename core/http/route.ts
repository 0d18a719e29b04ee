import type { TSchema, Static } from '@sinclair/typebox';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Request } from 'express';
import type { TenantRef } from '../context/request-context';
import type { UploadSpec, UploadedFile } from './multipart-upload';

/** `OPTIONS`: a route that answers CORS preflights itself (web chat's public routes grant their channel's origins). */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS';

/**
 * Who may call a route:
 * - `tenant`: a tenant host and a bearer token of that tenant (the default);
 * - `admin`: the ADMIN_TOKEN, on any host; the route is absent while ADMIN_TOKEN is unset;
 * - `tenant-host`: a tenant host, no token: for inbound hooks whose URL carries its own
 *   secret (a flow's webhook trigger); the handler runs as that tenant;
 * - `public`: anyone (health checks, the docs page).
 */
export type RouteAuth = 'tenant' | 'tenant-host' | 'admin' | 'public';
export type Scope = 'read' | 'write';

export type StaticOr<S, Fallback> = S extends TSchema ? Static<S> : Fallback;

export interface HandlerContext<P, Q, B> {
  params: P;
  query: Q;
  body: B;
  /** The tenant of the request (routes with auth `tenant` or `tenant-host`). */
  tenant: TenantRef;
  /** Request-scoped EntityManager; inside the request's transaction for writes. */
  em: EntityManager;
  requestId: string;
  req: Request;
  /** The uploaded file of an `upload` route (deleted by the kernel after the response). */
  file?: UploadedFile;
}

/**
 * A response body already serialized as JSON, written as it is. For a hot path that
 * builds its JSON faster than JSON.stringify of objects would (the message export).
 * The kernel does not parse or check it: the route's `response` schema still documents
 * it, and the route's tests must prove the text matches that schema.
 */
export class JsonText {
  constructor(
    /** The JSON as text, or as its UTF-8 bytes. */
    readonly text: string | Uint8Array,
    /**
     * Called once the response has been handed to the operating system, so that bytes
     * lent from a pool of buffers can go back to it. Not called if the connection
     * dropped first: the buffer is then left to the garbage collector.
     */
    readonly afterSent?: () => void,
  ) {}
}

/**
 * Return this from a handler to choose the status or add headers. A Buffer body is
 * written as it is (set its `content-type` in `headers`); any other body as JSON.
 * A JSON request's body as received is on `req.rawBody` (a Buffer), for signatures.
 */
export class Reply {
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly headers: Record<string, string> = {},
  ) {}
}

export interface RouteDefinition<
  PS extends TSchema | undefined = TSchema | undefined,
  QS extends TSchema | undefined = TSchema | undefined,
  BS extends TSchema | undefined = TSchema | undefined,
> {
  method: HttpMethod;
  /** Express-style path, e.g. `/api/v1/agents/:uuid`. */
  path: string;
  summary: string;
  description?: string;
  /** OpenAPI tag; defaults to the plugin id. */
  tags?: string[];
  auth?: RouteAuth;
  /** Defaults to `read` for GET and `write` otherwise. */
  scope?: Scope;
  params?: PS;
  query?: QS;
  /** JSON body schema; for an `upload` route, the schema of the form's text fields. */
  body?: BS;
  /**
   * Takes a multipart/form-data body with one file part (up to HTTP_UPLOAD_LIMIT)
   * instead of JSON: the file reaches the handler as `file`, spooled to disk, or, with
   * `upload.receive`, streamed as it arrives to where the route puts it.
   */
  upload?: UploadSpec;
  /** Success status (default 200) and its body schema. */
  status?: number;
  response?: TSchema;
  /**
   * The route answers `Accept: text/event-stream` with Server-Sent Events (the handler
   * returns an EventStream, event-stream.ts): what the events are, for the OpenAPI document.
   */
  streams?: { description: string };
  /** Error statuses this route can answer besides the ones every route has. */
  errors?: number[];
  /** Run inside one transaction; defaults to true for everything but GET. */
  transactional?: boolean;
  handler(context: HandlerContext<StaticOr<PS, {}>, StaticOr<QS, {}>, StaticOr<BS, undefined>>): unknown | Promise<unknown>;
}

/** Identity helper that infers the handler's types from the schemas. */
export function defineRoute<PS extends TSchema | undefined, QS extends TSchema | undefined, BS extends TSchema | undefined>(
  route: RouteDefinition<PS, QS, BS>,
): RouteDefinition<PS, QS, BS> {
  return route;
}

/** A route as the registry keeps it: with the plugin that added it. */
export interface RegisteredRoute extends RouteDefinition<any, any, any> {
  pluginId: string;
}
