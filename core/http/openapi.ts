import { STATUS_CODES } from 'node:http';
import { Type, type TSchema } from '@sinclair/typebox';
import { DOCS_PATH } from './docs-page';
import type { UploadSpec } from './multipart-upload';
import type { HttpMethod, RouteAuth, Scope } from './route';
import type { CompiledRoute } from './route-registry';
import { IDEMPOTENCY_HEADER, REPLAYED_HEADER, takesIdempotencyKey } from './idempotency';

/** Where the express app serves the document (public, on any host). */
export const OPENAPI_PATH = '/api/v1/openapi.json';

export interface OpenApiOptions {
  /** BASE_DOMAIN: tenants are `{tenant}.<baseDomain>`. */
  baseDomain: string;
  /** PORT the server listens on. */
  port: number;
  /** info.version; the spec fixes it at 1.0.0. */
  version?: string;
}

type Json = Record<string, any>;

export interface OpenApiDocument {
  openapi: '3.1.0';
  info: Json;
  servers: Json[];
  tags: Json[];
  paths: Record<string, Record<string, Json>>;
  components: { schemas: Json; responses: Json; headers: Json; securitySchemes: Json };
}

/**
 * One operation as the document describes it. Registry routes and the handful of
 * routes express-app.ts mounts itself (health checks, this document, the docs page)
 * both become this, so they are described by the same code.
 */
interface Operation {
  method: HttpMethod;
  path: string;
  summary: string;
  description?: string;
  tags: string[];
  auth: RouteAuth;
  scope?: Scope;
  params?: TSchema;
  query?: TSchema;
  body?: TSchema;
  bodyRequired: boolean;
  /** A multipart/form-data operation: `body` describes its text fields. */
  upload?: UploadSpec;
  status: number;
  response?: TSchema;
  /** Media type of the success body. */
  mediaType: string;
  /** Also answers `Accept: text/event-stream` with these events (route.ts `streams`). */
  streams?: { description: string };
  /** Statuses this operation can answer besides those its auth and inputs imply. */
  errors: number[];
  /** Responses no shared component describes (e.g. /readyz's own 503). */
  extraResponses?: Record<number, Json>;
}

/**
 * The error answers every operation may give, as shared components. `schema` names
 * the envelope of decisions.md that http-errors.ts / express-app.ts render for it.
 */
const ERROR_RESPONSES: Record<number, { name: string; description: string; schema: EnvelopeName }> = {
  400: { name: 'BadRequest', description: 'The request body is not valid JSON or multipart (or the request was aborted), or the Host header is missing.', schema: 'ErrorEnvelope' },
  401: { name: 'Unauthorized', description: 'No bearer token, or one that is unknown, revoked or of another tenant (or not the admin token).', schema: 'ErrorEnvelope' },
  403: { name: 'Forbidden', description: 'The token lacks the scope this operation needs.', schema: 'ErrorEnvelope' },
  404: { name: 'NotFound', description: 'The tenant of the Host header, or the addressed resource, does not exist.', schema: 'ErrorEnvelope' },
  409: { name: 'Conflict', description: 'The request conflicts with the current state (a duplicate, or a limit reached), or a request with the same `Idempotency-Key` is still running.', schema: 'ErrorEnvelope' },
  413: { name: 'PayloadTooLarge', description: 'The request body exceeds the configured limit (HTTP_BODY_LIMIT, 1 MiB by default), or an uploaded file exceeds HTTP_UPLOAD_LIMIT (50 MiB by default).', schema: 'ErrorEnvelope' },
  415: { name: 'UnsupportedMediaType', description: 'The request has a body that is not `application/json` (`multipart/form-data` for upload operations), or an unsupported encoding or charset.', schema: 'ErrorEnvelope' },
  422: { name: 'ValidationFailed', description: 'A path parameter, query parameter or body member is invalid; `errors` names each by its dotted path (`Idempotency-Key` when the key was used with another request).', schema: 'ValidationErrorEnvelope' },
  429: { name: 'TooManyRequests', description: 'A rate limit (with `Retry-After` and the `RateLimit-*` headers) or a tenant quota (`Quota exceeded: <quota> (limit N)`) is reached.', schema: 'ErrorEnvelope' },
  500: { name: 'InternalError', description: 'An unexpected error; quote `request_id` when reporting it.', schema: 'InternalErrorEnvelope' },
  503: { name: 'ServiceUnavailable', description: 'The database (or another dependency) cannot be reached; retry later.', schema: 'ErrorEnvelope' },
};

type EnvelopeName = 'ErrorEnvelope' | 'ValidationErrorEnvelope' | 'InternalErrorEnvelope';

const ENVELOPES: Record<EnvelopeName, Json> = {
  ErrorEnvelope: {
    type: 'object',
    description: 'Most errors: 400, 401, 403, 404, 409, 413, 415, 503 and any other 4xx/5xx a route declares.',
    required: ['success', 'message', 'data'],
    properties: {
      success: { type: 'boolean', const: false },
      message: { type: 'string' },
      data: { type: 'array', items: { type: 'string' }, description: 'Empty, except where a route says otherwise (a table lookup names what was not found).' },
    },
    examples: [{ success: false, message: 'Not found', data: [] }],
  },
  ValidationErrorEnvelope: {
    type: 'object',
    description: 'A 422: the messages of each invalid member, keyed by its dotted path (array items as `items.0.name`).',
    required: ['message', 'errors'],
    properties: {
      message: { type: 'string', description: 'A summary naming the first invalid member.' },
      errors: { type: 'object', additionalProperties: { type: 'array', items: { type: 'string' }, minItems: 1 } },
    },
    examples: [{ message: 'title is required', errors: { title: ['is required'] } }],
  },
  InternalErrorEnvelope: {
    type: 'object',
    description: 'A 500: nothing of the error itself, only the request id to find it in the logs.',
    required: ['success', 'message', 'request_id'],
    properties: {
      success: { type: 'boolean', const: false },
      message: { type: 'string', const: 'Internal server error' },
      request_id: { type: 'string', description: 'The `X-Request-Id` of the request.' },
    },
    examples: [{ success: false, message: 'Internal server error', request_id: '0198c0de-7a4e-7c1a-9f0e-3d2b1a0c9e8f' }],
  },
};

const TAG_DESCRIPTIONS: Record<string, string> = {
  system: 'Health checks and this API description. Public, on any host.',
  admin: 'The admin API: tenants, tokens and operator tools. On any host, with the ADMIN_TOKEN; present only while ADMIN_TOKEN is set.',
};

const ReadyReport = Type.Object({
  status: Type.Union([Type.Literal('ready'), Type.Literal('unavailable')]),
  checks: Type.Record(Type.String(), Type.Union([Type.Literal('up'), Type.Literal('down')]), { description: 'Each dependency, `up` or `down`.' }),
});

/** What express-app.ts mounts outside the registry; keep in step with it. */
const BUILT_IN: Operation[] = [
  builtIn({
    path: '/healthz',
    summary: 'Liveness check',
    description: 'Answers 200 while the process runs; checks no dependency (see `/readyz`).',
    response: Type.Object({ status: Type.Literal('ok') }),
  }),
  builtIn({
    path: '/readyz',
    summary: 'Readiness check',
    description: 'Checks every dependency (the database, the message broker when one is configured); 503 while any is down.',
    response: ReadyReport,
    extraResponses: { 503: { description: 'A dependency is down.', content: { 'application/json': { schema: ReadyReport } } } },
  }),
  builtIn({
    path: OPENAPI_PATH,
    summary: 'This API description',
    description: 'The OpenAPI 3.1 document of every route this server has.',
    response: Type.Object({}, { description: 'An OpenAPI 3.1 document.' }),
  }),
  builtIn({
    path: DOCS_PATH,
    summary: 'Interactive API reference',
    description: 'An HTML page rendering this document (Swagger UI, served locally). Open it on your tenant host for "Try it out" to reach the API.',
    response: Type.String({ description: 'An HTML page.' }),
    mediaType: 'text/html',
  }),
];

const SECURITY_SCHEMES = {
  bearerAuth: {
    auth: 'tenant' as RouteAuth,
    type: 'http',
    scheme: 'bearer',
    description: 'A token of the tenant named by the Host header, with the scope the operation lists (`read` or `write`).',
  },
  adminAuth: { auth: 'admin' as RouteAuth, type: 'http', scheme: 'bearer', description: "The server's ADMIN_TOKEN." },
};

/**
 * The OpenAPI 3.1 document of the API, built from the route registry (DESIGN.md:
 * the document, validation and the cross-tenant sweep share one source).
 */
export function buildOpenApiDocument(routes: readonly CompiledRoute[], options: OpenApiOptions): OpenApiDocument {
  const components = new Components();
  const operationIds = new Set<string>();
  const paths: OpenApiDocument['paths'] = {};
  const tagPlugins = new Map<string, Set<string>>();

  const operations = [...BUILT_IN.map((op) => ({ op, pluginId: 'core' })), ...routes.map((route) => ({ op: fromRoute(route), pluginId: route.pluginId }))];
  for (const { op, pluginId } of operations) {
    for (const tag of op.tags) (tagPlugins.get(tag) ?? tagPlugins.set(tag, new Set()).get(tag)!).add(pluginId);
    const path = openApiPath(op.path);
    (paths[path] ??= {})[op.method.toLowerCase()] = describeOperation(op, uniqueOperationId(op, operationIds), components);
  }

  return {
    openapi: '3.1.0',
    info: {
      title: 'Switchboard API',
      version: options.version ?? '1.0.0',
      description: apiDescription(options.baseDomain),
      license: { name: 'Apache 2.0', identifier: 'Apache-2.0' },
    },
    servers: [
      {
        url: `http://{tenant}.${options.baseDomain}:${options.port}`,
        description: 'A tenant host. Admin and public operations answer on any host, this one included.',
        variables: { tenant: { default: 'acme', description: 'The slug of your tenant.' } },
      },
    ],
    tags: [...tagPlugins].map(([name, plugins]) => ({ name, description: TAG_DESCRIPTIONS[name] ?? tagDescription(plugins) })),
    paths,
    components: {
      schemas: components.schemas,
      responses: components.responses,
      headers: {
        RequestId: {
          description: 'The id of the request: the `X-Request-Id` the client sent (if valid), otherwise a new UUID. Logged with every line about the request.',
          schema: { type: 'string' },
        },
      },
      // Only the schemes some operation uses (a kernel without plugins has no tenant routes).
      securitySchemes: Object.fromEntries(
        Object.entries(SECURITY_SCHEMES).filter(([, scheme]) => operations.some(({ op }) => op.auth === scheme.auth)).map(([name, { auth: _auth, ...scheme }]) => [name, scheme]),
      ),
    },
  };
}

function fromRoute(route: CompiledRoute): Operation {
  const access =
    route.auth === 'admin'
      ? 'Admin API: present only while the server has ADMIN_TOKEN set; otherwise this route answers 404.'
      : route.auth === 'tenant'
        ? route.scope === 'read' && route.method !== 'GET'
          ? 'Needs a token with the `read` scope: this operation only reads (it changes nothing), though it takes a body.'
          : `Needs a token with the \`${route.scope}\` scope.`
        : route.auth === 'tenant-host'
          ? 'No bearer token: the tenant is the one the Host names, and the URL itself is the credential.'
          : undefined;
  return {
    method: route.method,
    path: route.path,
    summary: route.summary,
    description: [route.description, access].filter(Boolean).join('\n\n') || undefined,
    tags: route.tags ?? [route.pluginId],
    auth: route.auth,
    scope: route.auth === 'tenant' ? route.scope : undefined,
    params: route.params,
    query: route.query,
    body: route.body,
    upload: route.upload,
    // The express app validates `undefined` when no body is sent, so the body is
    // optional exactly when the route's own validator accepts that.
    bodyRequired: route.validate.body ? route.validate.body(undefined) !== null : false,
    status: route.status,
    response: route.response,
    mediaType: 'application/json',
    streams: route.streams,
    // Every registry route runs on a forked EntityManager, so the database can be down.
    errors: [...(route.errors ?? []), 503],
  };
}

function builtIn(op: Pick<Operation, 'path' | 'summary' | 'description' | 'response' | 'extraResponses'> & { mediaType?: string }): Operation {
  return { method: 'GET', tags: ['system'], auth: 'public', bodyRequired: false, status: 200, errors: [], mediaType: 'application/json', ...op };
}

function describeOperation(op: Operation, operationId: string, components: Components): Json {
  const responses: Record<string, Json> = {};
  // A handler returning nothing sends 204 for a 200 route (express-app.ts `send`).
  const status = op.response === undefined && op.status === 200 ? 204 : op.status;
  responses[status] = {
    description: STATUS_CODES[status] ?? 'Success',
    headers: { 'X-Request-Id': { $ref: '#/components/headers/RequestId' }, ...(takesIdempotencyKey(op.method, op.auth) ? { [REPLAYED_HEADER]: REPLAYED_HEADER_DOC } : {}) },
    ...(op.response
      ? {
          content: {
            [op.mediaType]: { schema: components.shared(plainJson(op.response)) },
            ...(op.streams ? { 'text/event-stream': { schema: { type: 'string', description: op.streams.description } } } : {}),
          },
        }
      : {}),
  };
  for (const [code, response] of Object.entries(op.extraResponses ?? {})) {
    responses[code] = { headers: { 'X-Request-Id': { $ref: '#/components/headers/RequestId' } }, ...plainJson(response) };
  }
  for (const code of errorStatuses(op)) if (!(code in responses)) responses[code] = { $ref: components.errorResponse(code) };

  const parameters = [...toParameters(op.params, 'path'), ...toParameters(op.query, 'query'), ...(takesIdempotencyKey(op.method, op.auth) ? [IDEMPOTENCY_KEY_PARAMETER] : [])];
  return {
    operationId,
    summary: op.summary,
    ...(op.description ? { description: op.description } : {}),
    tags: op.tags,
    security: security(op),
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(op.upload
      ? { requestBody: { required: true, content: { 'multipart/form-data': { schema: uploadSchema(op) } } } }
      : op.body
        ? { requestBody: { required: op.bodyRequired, content: { 'application/json': { schema: requestSchema(plainJson(op.body)) } } } }
        : {}),
    responses: Object.fromEntries(Object.entries(responses).sort(([a], [b]) => Number(a) - Number(b))),
  };
}

/** The form of a multipart operation: its text fields plus the file part. */
function uploadSchema(op: Operation): Json {
  const upload = op.upload!;
  const fields = op.body ? (requestSchema(plainJson(op.body)) as Record<string, any>) : { type: 'object', properties: {} };
  const file = { type: 'string', format: 'binary', ...(upload.description ? { description: upload.description } : {}) };
  const required = [...(fields.required ?? []), ...(upload.required === false ? [] : [upload.field])];
  return { ...fields, properties: { ...fields.properties, [upload.field]: file }, ...(required.length > 0 ? { required } : {}) };
}

/** Every POST but the public ones takes a key (idempotency.ts; README "Retrying requests safely"). */
const IDEMPOTENCY_KEY_PARAMETER: Json = {
  name: IDEMPOTENCY_HEADER,
  in: 'header',
  required: false,
  description:
    'Makes a retry safe: the same key with the same request within 24 hours answers the first response again (with `Idempotent-Replayed: true`) ' +
    'without doing the work twice. The same key with another request answers 422; while a request with the key is still running, 409. ' +
    'Keys belong to the token (or the admin, or a hook URL). A response is stored only when its work committed: after a 5xx or an error ' +
    'the handler raised, the key may be retried. 1 to 255 printable ASCII characters, else 400; a UUID is a good choice.',
  schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7E]+$' },
};

const REPLAYED_HEADER_DOC: Json = {
  description: 'Present, as `true`, when this response is the stored answer to an earlier request with the same `Idempotency-Key`.',
  schema: { type: 'string', const: 'true' },
};

/** The statuses an operation can answer with beyond its success, from how express-app.ts handles it. */
function errorStatuses(op: Operation): number[] {
  const codes = new Set<number>([400, 413, 500]); // the JSON body parser and the error handler run for every request
  if (op.auth === 'tenant') [401, 403, 404].forEach((code) => codes.add(code));
  if (op.auth === 'admin') codes.add(401);
  if (op.auth === 'tenant-host') codes.add(404);
  // Rate limits (RATE_LIMIT_*) apply to every tenant and hook operation once configured.
  if (op.auth === 'tenant' || op.auth === 'tenant-host') codes.add(429);
  if (op.body || op.upload) codes.add(415);
  if (op.params || op.query || op.body || op.upload) codes.add(422);
  if (takesIdempotencyKey(op.method, op.auth)) [409, 422].forEach((code) => codes.add(code)); // a key still in use, or used with another request
  for (const code of op.errors) codes.add(code);
  return [...codes];
}

function security(op: Operation): Json[] {
  // OpenAPI 3.1 lets a non-OAuth requirement list "roles": here, the token scope.
  if (op.auth === 'tenant') return [{ bearerAuth: op.scope ? [op.scope] : [] }];
  if (op.auth === 'admin') return [{ adminAuth: [] }];
  return [];
}

/** One parameter per property of a params/query object schema. */
function toParameters(schema: TSchema | undefined, where: 'path' | 'query'): Json[] {
  if (!schema) return [];
  const json = requestSchema(plainJson(schema));
  const members = [json, ...(json.allOf ?? [])];
  const required = new Set<string>(members.flatMap((member: Json) => member.required ?? []));
  return members.flatMap((member: Json) =>
    Object.entries((member.properties ?? {}) as Record<string, Json>).map(([name, property]) => {
      const { description, ...propertySchema } = property;
      return {
        name,
        in: where,
        required: where === 'path' || required.has(name),
        ...(description ? { description } : {}),
        schema: propertySchema,
        // The query parser is `extended` (qs): objects travel as `filter[status]=x`.
        ...(where === 'query' && propertySchema.type === 'object' ? { style: 'deepObject', explode: true } : {}),
      };
    }),
  );
}

/** TypeBox schemas carry symbol keys (Kind, Optional); JSON drops them. `x-resource` may stay (an OpenAPI extension). */
function plainJson(value: unknown): Json {
  return JSON.parse(JSON.stringify(value));
}

/**
 * What a request must send. Requests are validated with `readOnly` members optional
 * and ignored (validation.ts), and ajv fills in `default`s before checking `required`,
 * so neither kind of member is required of a client.
 */
function requestSchema(schema: any): any {
  if (Array.isArray(schema)) return schema.map(requestSchema);
  if (!schema || typeof schema !== 'object') return schema;
  const copy: Json = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'x-component') continue; // components are shared among responses only
    copy[key] = key === 'properties' ? Object.fromEntries(Object.entries(value as Json).map(([name, inner]) => [name, requestSchema(inner)])) : requestSchema(value);
  }
  if (Array.isArray(schema.required) && schema.properties) {
    copy.required = schema.required.filter((name: string) => !isOptionalInRequest(schema.properties[name]));
    if (copy.required.length === 0) delete copy.required;
  }
  return copy;
}

function isOptionalInRequest(property: Json | undefined): boolean {
  return property?.readOnly === true || property?.default !== undefined;
}

/** `/a/:uuid/b` -> `/a/{uuid}/b` */
function openApiPath(path: string): string {
  return path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

/** `GET /api/v1/notes/:uuid` -> `getApiV1NotesByUuid`; a numeric suffix keeps it unique. */
function uniqueOperationId(op: Operation, taken: Set<string>): string {
  const words = op.path
    .split('/')
    .filter(Boolean)
    .flatMap((segment) => (segment.startsWith(':') ? ['by', ...wordsOf(segment.slice(1))] : wordsOf(segment)));
  const base = op.method.toLowerCase() + words.map((word) => word[0].toUpperCase() + word.slice(1)).join('');
  let id = base;
  for (let n = 2; taken.has(id); n++) id = `${base}${n}`;
  taken.add(id);
  return id;
}

function wordsOf(segment: string): string[] {
  return segment.split(/[^A-Za-z0-9]+/).filter(Boolean);
}

/** Shared schemas and error responses, added as operations use them (so none is unused). */
class Components {
  readonly schemas: Json = {};
  readonly responses: Json = {};

  /**
   * Replaces every subschema named with `Component(name, ...)` by a `$ref`, listing
   * it once under `components.schemas`. Two different schemas under one name would
   * make the document lie, so that is an error.
   */
  shared(schema: Json): Json {
    if (Array.isArray(schema)) return schema.map((item) => this.shared(item));
    if (!schema || typeof schema !== 'object') return schema;
    const { 'x-component': name, ...rest } = schema;
    if (typeof name !== 'string') return Object.fromEntries(Object.entries(rest).map(([key, value]) => [key, this.shared(value as Json)]));
    // `readOnly` says how one place uses the schema (ReadOnly(...)): it stays beside the $ref.
    const { readOnly, ...own } = rest;
    const body = Object.fromEntries(Object.entries(own).map(([key, value]) => [key, this.shared(value as Json)]));
    const existing = this.schemas[name];
    if (existing !== undefined && JSON.stringify(existing) !== JSON.stringify(body)) throw new Error(`two different schemas are named "${name}" in the OpenAPI document`);
    this.schemas[name] = body;
    return { $ref: `#/components/schemas/${name}`, ...(readOnly === undefined ? {} : { readOnly }) };
  }

  errorResponse(status: number): string {
    const known = ERROR_RESPONSES[status];
    const reason = STATUS_CODES[status];
    const name = known?.name ?? (reason ? reason.replace(/[^A-Za-z0-9]+/g, ' ').replace(/(?:^| )(\w)/g, (_, c: string) => c.toUpperCase()) : `Error${status}`);
    const schema = known?.schema ?? 'ErrorEnvelope';
    this.schemas[schema] ??= ENVELOPES[schema];
    this.responses[name] ??= {
      description: known?.description ?? `${reason ?? 'Error'}.`,
      headers: { 'X-Request-Id': { $ref: '#/components/headers/RequestId' } },
      content: { 'application/json': { schema: { $ref: `#/components/schemas/${schema}` } } },
    };
    return `#/components/responses/${name}`;
  }
}

function tagDescription(plugins: Set<string>): string {
  const ids = [...plugins].map((id) => `\`${id}\``);
  return `Routes of the ${ids.join(', ')} plugin${ids.length > 1 ? 's' : ''}.`;
}

function apiDescription(baseDomain: string): string {
  return `Switchboard's HTTP + JSON API. The tenant API lives under \`/api/v1\`, the admin API under \`/admin/v1\`.

## Tenancy
Each tenant has a host of its own, \`{tenant}.${baseDomain}\` (BASE_DOMAIN is \`${baseDomain}\`): tenant operations take the tenant from the Host header
(or \`X-Forwarded-Host\` behind a proxy, when TRUST_PROXY is set). An unknown tenant answers 404; there is no default tenant.
Set the \`tenant\` server variable to your tenant's slug.

## Authentication and scopes
Tenant operations need \`Authorization: Bearer TOKEN\` with a token of that tenant (security scheme \`bearerAuth\`). A token carries the scopes
\`read\` and \`write\` (both by default); GET operations need \`read\`, the others \`write\`, except a few POST operations that only read
(searches, which take their query as a body): they need \`read\` and say so. Each operation names the scope it needs.
No token, an unknown or revoked token, or a token of another tenant answers 401; a token without the needed scope answers 403.
Tokens are created with the CLI (\`switchboard tenant create SLUG\`, \`switchboard token create SLUG\`) or the admin API.

## Admin API
The operations under \`/admin/v1\` (tag \`admin\`) provision tenants and tokens. They answer on any host, authenticated by the server's
ADMIN_TOKEN (security scheme \`adminAuth\`), and exist only while ADMIN_TOKEN is set; otherwise they answer 404.

## Errors
- 400 (malformed JSON or multipart, a bad Host header), 401, 403, 404, 409, 413, 415, 503: \`{success: false, message, data: []}\` (ErrorEnvelope).
- 422, invalid input: \`{message, errors: {"field.path": ["..."]}}\` (ValidationErrorEnvelope), with dotted paths (array items as \`items.0.name\`).
  Unknown body members are refused with 422; read-only members (\`uuid\`, \`created_at\`, ...) are ignored, so what was read can be sent back.
- 500: \`{success: false, message: "Internal server error", request_id}\` (InternalErrorEnvelope), nothing more.

Every response carries \`X-Request-Id\`.

## Retrying POST requests
Every POST operation (but public ones) takes an optional \`Idempotency-Key\` header. Retrying with the same key and the same request within 24 hours
answers the first response again, with \`Idempotent-Replayed: true\`, without doing the work twice; the same key with another request answers 422,
and while the first request is still running, 409. Keys belong to the token that sent them. Nothing is stored for a 5xx, for an error raised while
the operation ran (its work was rolled back), or for a request refused before it ran (authentication, validation): such a key may be retried.

## Conventions
A single resource is \`{data: resource}\`. Lists take \`page\` (from 1) and \`per_page\` (at most 100) and answer
\`{success: true, data: {items, pagination}}\`. Deletes answer \`{success: true, message, data: {deleted: true}}\`. Timestamps are ISO 8601 UTC.`;
}
