import crypto from 'node:crypto';
import fc from 'fast-check';
import type { FuzzCase } from './fuzz-runner';
import type { FuzzTenant, FuzzWorld, Operation } from './fuzz-world';
import { hostileBodies, hostileQueryForms, hostileSegments, hostileValues, mutatedBodies, objectPaths, oneMibBody, PROTOTYPE_NAMES, toJson, withPrototypeMember } from './hostile';
import type { RawRequest } from './raw-http';
import { arbitraryFor, type JsonSchema } from './schema-arbitrary';

/** Who sends a case: one of the two tenants (with its token and host), or the admin. */
export interface Caller {
  name: 'a' | 'b' | 'admin';
  host: string;
  token?: string;
  own: FuzzTenant;
  other: FuzzTenant;
}

export function callersOf(world: FuzzWorld, op: Operation): Caller[] {
  const { a, b, kit } = world;
  const baseDomain = kit.kernel.config.core.baseDomain;
  const hostOf = (t: FuzzTenant) => `${t.tenant.slug}.${baseDomain}`;
  if (op.auth === 'admin') return [{ name: 'admin', host: baseDomain, token: kit.adminToken, own: a, other: b }];
  if (op.auth === 'public') return [{ name: 'a', host: hostOf(a), own: a, other: b }];
  const token = (t: FuzzTenant) => (op.auth === 'tenant' ? t.token : undefined);
  return [
    { name: 'a', host: hostOf(a), token: token(a), own: a, other: b },
    { name: 'b', host: hostOf(b), token: token(b), own: b, other: a },
  ];
}

/** The caller's value for a path parameter: its own resource of the kind the parameter names, else an example. */
function ownSegment(world: FuzzWorld, caller: Caller, op: Operation, param: { name: string; schema: JsonSchema }): string {
  if (op.auth === 'admin' && param.name === 'slug') return world.victimSlug;
  if (op.auth === 'tenant-host' && param.name === 'token') return caller.own.hookPath!.split('/').pop()!;
  const kind = param.schema['x-resource'];
  const id = kind ? caller.own.ids[kind] : undefined;
  if (id) return id;
  const example = param.schema.examples?.[0] ?? param.schema.enum?.[0] ?? param.schema.const;
  if (example !== undefined) return String(example);
  return param.schema.format === 'uuid' || /uuid|^id$/.test(param.name) ? crypto.randomUUID() : 'fuzz';
}

function fillPath(op: Operation, segment: (param: { name: string; schema: JsonSchema }, index: number) => string): string {
  let i = 0;
  return op.path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const param = op.pathParams.find((p) => p.name === name) ?? { name, schema: {} };
    return segment(param, i++);
  });
}

/** Ids of this caller's and the other tenant's resources, for hostile values. */
function idsOf(caller: Caller): { own: string[]; foreign: string[] } {
  // Only tenant-owned ids: a shared catalog key (a flow app's uid) is nobody's.
  const uuids = (ids: Record<string, string>) => Object.values(ids).filter((id) => UUID.test(id));
  return { own: uuids(caller.own.ids), foreign: uuids(caller.other.ids) };
}

/** Any refusal but a success: 404 mostly, 422 when the body is refused first, 413/415 for the body's size or type. */
const NOT_FOUND_OR_REFUSED = [400, 404, 409, 413, 415, 422];

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The arbitraries of one operation for one caller: valid-looking path, query and body. */
export function arbitrariesOf(world: FuzzWorld, op: Operation, caller: Caller) {
  const options = { root: world.document, resourceId: (kind: string) => caller.own.ids[kind] };
  const query = fc.record(
    Object.fromEntries(op.queryParams.map((p) => [p.name, arbitraryFor(p.schema, options)])),
    { requiredKeys: op.queryParams.filter((p) => p.required).map((p) => p.name) },
  );
  const fixture = world.bodies[op.name]?.({ ...caller.own.ids });
  const schemaBody = op.body && !op.multipart ? arbitraryFor(op.body, options) : fc.constant(undefined);
  const body = fixture === undefined ? schemaBody : fc.oneof(fc.constant(fixture), schemaBody);
  return { query, body };
}

/** `a=1&b[c]=2`, as the `qs` parser the API uses reads it (objects as `filter[status]=x`). */
export function queryString(query: Record<string, unknown>): string {
  const parts: string[] = [];
  const add = (key: string, value: unknown) => {
    if (value === undefined) return;
    if (Array.isArray(value)) value.forEach((item) => add(`${key}[]`, item));
    else if (value !== null && typeof value === 'object') for (const [inner, v] of Object.entries(value)) add(`${key}[${inner}]`, v);
    else parts.push(`${encodeURIComponent(key)}=${encodeURIComponent(String(value))}`);
  };
  for (const [key, value] of Object.entries(query)) add(key, value);
  return parts.join('&');
}

function request(caller: Caller, op: Operation, path: string, query: string, body?: string, extra: Partial<RawRequest> = {}): RawRequest {
  return {
    method: op.method,
    path: query ? `${path}?${query}` : path,
    host: caller.host,
    token: caller.token,
    ...(body !== undefined ? { body } : {}),
    ...extra,
  };
}

/**
 * The fixed battery of one operation for one caller: one of each hostile kind, so that
 * every operation meets each at least once whatever the time budget. `seed` picks the
 * valid parts (the body a member of which is made hostile).
 */
export function fixedCases(world: FuzzWorld, op: Operation, caller: Caller, seed: number): FuzzCase[] {
  const cases: FuzzCase[] = [];
  const { query, body } = arbitrariesOf(world, op, caller);
  const [validQuery] = fc.sample(query, { seed, numRuns: 1 }) as Array<Record<string, unknown>>;
  const [validBody] = fc.sample(body, { seed, numRuns: 1 });
  const ownPath = fillPath(op, (param) => encodeURIComponent(ownSegment(world, caller, op, param)));
  const qs = queryString(validQuery);
  const jsonBody = op.body && !op.multipart ? toJson(validBody) : undefined;
  const add = (label: string, req: RawRequest, expect?: number[]) => cases.push({ op, label: `${caller.name}: ${label}`, request: req, ...(expect ? { expect } : {}) });

  add('generated from the schema', request(caller, op, ownPath, qs, jsonBody));

  // Path: the other tenant's ids, upper-case ids, and segments no id looks like.
  if (op.pathParams.length > 0) {
    const ids = idsOf(caller);
    const foreignPath = fillPath(op, (param) => {
      const kind = param.schema['x-resource'];
      return encodeURIComponent((kind && caller.other.ids[kind]) || ownSegment(world, caller, op, param));
    });
    // Another tenant's resource must not be found (the cross-tenant sweep's rule, here with fuzzed queries and bodies too).
    const foreignKind = op.pathParams.some((param) => UUID.test(caller.other.ids[param.schema['x-resource']] ?? ''));
    if (op.auth !== 'admin') add('the other tenant’s ids in the path', request(caller, op, foreignPath, qs, jsonBody), foreignKind ? NOT_FOUND_OR_REFUSED : undefined);
    add('upper-case ids in the path', request(caller, op, fillPath(op, (param) => encodeURIComponent(ownSegment(world, caller, op, param)).toUpperCase()), qs, jsonBody));
    const segments = hostileSegments(op.auth === 'admin' ? { own: [], foreign: [] } : ids);
    op.pathParams.forEach((_, target) => {
      const [segment] = fc.sample(fc.constantFrom(...segments), { seed: seed + target, numRuns: 1 });
      add(`path parameter ${target} := ${segment.slice(0, 40)}`, request(caller, op, fillPath(op, (param, i) => (i === target ? segment : encodeURIComponent(ownSegment(world, caller, op, param)))), qs, jsonBody));
    });
  }

  // Query: each parameter once with a hostile value and once in a hostile shape.
  const segments = hostileSegments(op.auth === 'admin' ? { own: [], foreign: [] } : idsOf(caller));
  op.queryParams.forEach((param, i) => {
    const [segment, form] = fc.sample(fc.tuple(fc.constantFrom(...segments), fc.constantFrom(...hostileQueryForms(param.name))), { seed: seed + i, numRuns: 1 })[0];
    const others = queryString(Object.fromEntries(Object.entries(validQuery).filter(([name]) => name !== param.name)));
    add(`query ${param.name} := ${segment.slice(0, 40)}`, request(caller, op, ownPath, [others, `${encodeURIComponent(param.name)}=${segment}`].filter(Boolean).join('&'), jsonBody));
    add(`query ${form.slice(0, 60)}`, request(caller, op, ownPath, [others, form].filter(Boolean).join('&'), jsonBody));
  });

  // Body: each whole-body hostile text, a NUL, a lone surrogate and a prototype name inside the valid body, and 1 MiB.
  if (op.body && !op.multipart) {
    for (const hostile of hostileBodies()) {
      add(`body: ${hostile.label}`, request(caller, op, ownPath, qs, hostile.body, { ...(hostile.contentType ? { contentType: hostile.contentType } : {}), ...(hostile.headers ? { headers: hostile.headers } : {}) }));
    }
    const objects = objectPaths(validBody);
    const where = objects.length > 0 ? objects[seed % objects.length] : [];
    const name = PROTOTYPE_NAMES[seed % PROTOTYPE_NAMES.length];
    add(`body: a member named ${name} at ${where.join('.') || 'the root'}`, request(caller, op, ownPath, qs, toJson(withPrototypeMember(validBody, where, name, { polluted: true }))));
    for (const [label, value] of [['a NUL', 'a\u0000b'], ['a lone surrogate', '\ud800']] as const) {
      const [mutated] = fc.sample(mutatedBodies(fc.constant(validBody), [value]), { seed, numRuns: 1 });
      add(`body: ${label} in a member (${mutated.what})`, request(caller, op, ownPath, qs, toJson(mutated.body)));
    }
    add('body: a 1 MiB string', request(caller, op, ownPath, qs, oneMibBody()), [413, 422]);
  }
  return cases;
}

/** The random phase: `runs` draws of a generated request, two in three with one hostile member, value or shape. */
export function randomCases(world: FuzzWorld, op: Operation, caller: Caller, seed: number, runs: number): FuzzCase[] {
  const { query, body } = arbitrariesOf(world, op, caller);
  const ids = op.auth === 'admin' ? { own: [], foreign: [] } : idsOf(caller);
  const takesJson = Boolean(op.body && !op.multipart);
  const plainQuery = query.map((q) => queryString(q as Record<string, unknown>));
  const hostileQuery = fc.tuple(query, fc.nat(), fc.constantFrom(...hostileSegments(ids))).map(([q, pick, segment]) => {
    const names = op.queryParams.map((p) => p.name);
    if (names.length === 0) return { query: queryString(q as Record<string, unknown>), what: 'no query parameter to spoil' };
    const name = names[pick % names.length];
    const rest = queryString(Object.fromEntries(Object.entries(q as Record<string, unknown>).filter(([n]) => n !== name)));
    return { query: [rest, `${encodeURIComponent(name)}=${segment}`].filter(Boolean).join('&'), what: `query ${name} := ${segment.slice(0, 40)}` };
  });
  const arms: Array<fc.Arbitrary<{ query: string; body: unknown; what: string }>> = [
    fc.record({ query: plainQuery, body }).map((r) => ({ ...r, what: 'generated' })),
    fc.tuple(hostileQuery, body).map(([q, b]) => ({ query: q.query, body: b, what: q.what })),
  ];
  if (takesJson) arms.push(fc.tuple(plainQuery, mutatedBodies(body, hostileValues(ids))).map(([q, m]) => ({ query: q, body: m.body, what: m.what })));
  const ownPath = fillPath(op, (param) => encodeURIComponent(ownSegment(world, caller, op, param)));
  return fc.sample(fc.oneof(...arms), { seed, numRuns: runs }).map((drawn, i) => ({
    op,
    label: `${caller.name}: random #${i} (seed ${seed}): ${drawn.what}`,
    request: request(caller, op, ownPath, drawn.query, takesJson ? toJson(drawn.body) : undefined),
  }));
}

/** Multipart bodies cut off or malformed: the upload parser must refuse them with a 4xx. */
export function multipartCases(world: FuzzWorld, op: Operation, caller: Caller): FuzzCase[] {
  const boundary = `----fuzz${crypto.randomBytes(6).toString('hex')}`;
  const part = (name: string, value: string, filename?: string) =>
    `--${boundary}\r\nContent-Disposition: form-data; name="${name}"${filename ? `; filename="${filename}"` : ''}\r\n${filename ? 'Content-Type: text/csv\r\n' : ''}\r\n${value}\r\n`;
  const file = part('file', 'name,price\nwidget,3\n', 'data.csv');
  const whole = `${file}--${boundary}--\r\n`;
  const path = fillPath(op, (param) => encodeURIComponent(ownSegment(world, caller, op, param)));
  const type = `multipart/form-data; boundary=${boundary}`;
  const bodies: Array<[string, string, string]> = [
    ['cut off inside the file', whole.slice(0, file.length - 12), type],
    ['cut off before the closing boundary', file, type],
    ['cut off inside the part headers', `--${boundary}\r\nContent-Disposition: form-da`, type],
    ['no boundary parameter', whole, 'multipart/form-data'],
    ['another boundary than the body’s', whole, 'multipart/form-data; boundary=nope'],
    ['a NUL in the file name', `${part('file', 'a,b\n1,2\n', 'a\u0000b.csv')}--${boundary}--\r\n`, type],
    ['a NUL in a text field', `${part('table_name', 'x\u0000y')}${file}--${boundary}--\r\n`, type],
    ['a __proto__ text field', `${part('__proto__', '{"polluted":true}')}${file}--${boundary}--\r\n`, type],
    ['two file parts', `${file}${file}--${boundary}--\r\n`, type],
    ['an empty body', '', type],
    ['a JSON body', '{"file":"x"}', 'application/json'],
  ];
  return bodies.map(([label, body, contentType]) => ({
    op,
    label: `${caller.name}: multipart ${label}`,
    request: { method: op.method, path, host: caller.host, token: caller.token, body, contentType },
  }));
}
