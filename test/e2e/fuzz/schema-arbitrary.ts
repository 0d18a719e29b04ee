import crypto from 'node:crypto';
import fc from 'fast-check';

/** A JSON Schema node as the OpenAPI document has it (plain JSON, `x-resource` kept). */
export type JsonSchema = Record<string, any>;

export interface ArbitraryOptions {
  /** The document whose `#/components/schemas/*` a `$ref` names. */
  root?: JsonSchema;
  /** The caller's id of a resource kind (`x-resource`): real ids make the request reach the handler. */
  resourceId?: (kind: string) => string | undefined;
}

/** Bounds that keep a generated request small: the fuzzer wants many requests, not big ones. */
const MAX_ITEMS = 4;
const MAX_STRING = 64;
/** A `$ref` cycle (a tree of steps) stops growing past this depth. */
const MAX_DEPTH = 6;

/**
 * A fast-check arbitrary of the values a JSON Schema accepts, for a request body or
 * query: objects (required and optional members, `readOnly` ones left out as the API
 * ignores them), arrays, strings with `format`/`pattern`/`enum`/`const`, numbers within
 * their bounds, `anyOf`/`oneOf`/`allOf`, `$ref` to components. Members that name a
 * resource (`x-resource`) get the caller's real id of that kind most of the time, so
 * that generated requests get past the 404 and into the handler.
 */
export function arbitraryFor(schema: JsonSchema | boolean | undefined, options: ArbitraryOptions = {}, depth = 0): fc.Arbitrary<unknown> {
  if (schema === undefined || schema === true) return anyJson();
  if (schema === false) return fc.constant(null);
  if (schema.$ref) return arbitraryFor(resolveRef(schema.$ref, options.root), options, depth + 1);
  if ('const' in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return fc.constantFrom(...schema.enum);
  const kind = schema['x-resource'];
  if (typeof kind === 'string' && options.resourceId?.(kind)) {
    const own = options.resourceId(kind)!;
    return fc.oneof({ arbitrary: fc.constant(own), weight: 4 }, { arbitrary: fc.uuid({ version: 4 }), weight: 1 });
  }
  const branches = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(branches) && branches.length > 0) return fc.oneof(...branches.map((branch: JsonSchema) => arbitraryFor(branch, options, depth + 1)));
  if (Array.isArray(schema.allOf) && schema.allOf.length > 0) {
    return fc.tuple(...schema.allOf.map((part: JsonSchema) => arbitraryFor(part, options, depth + 1))).map((parts) => Object.assign({}, ...parts.filter(isPlainObject)));
  }
  const type = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : inferType(schema);
  if (type.length > 1) return fc.oneof(...type.map((t: string) => arbitraryFor({ ...schema, type: t }, options, depth)));
  switch (type[0]) {
    case 'object':
      return objectArbitrary(schema, options, depth);
    case 'array':
      return arrayArbitrary(schema, options, depth);
    case 'string':
      return stringArbitrary(schema);
    case 'integer':
      return numberArbitrary(schema, true);
    case 'number':
      return numberArbitrary(schema, false);
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    default:
      return anyJson();
  }
}

export function resolveRef(ref: string, root: JsonSchema | undefined): JsonSchema {
  if (!ref.startsWith('#/') || !root) throw new Error(`cannot resolve $ref ${ref}`);
  let node: any = root;
  for (const part of ref.slice(2).split('/')) node = node?.[part.replace(/~1/g, '/').replace(/~0/g, '~')];
  if (!node) throw new Error(`$ref ${ref} names nothing`);
  return node;
}

function inferType(schema: JsonSchema): string[] {
  if (schema.properties || schema.additionalProperties || schema.required) return ['object'];
  if (schema.items) return ['array'];
  if (schema.pattern || schema.format || schema.minLength !== undefined || schema.maxLength !== undefined) return ['string'];
  if (schema.minimum !== undefined || schema.maximum !== undefined) return ['number'];
  return [];
}

function objectArbitrary(schema: JsonSchema, options: ArbitraryOptions, depth: number): fc.Arbitrary<unknown> {
  const properties: Record<string, JsonSchema> = Object.fromEntries(Object.entries(schema.properties ?? {}).filter(([, member]) => (member as JsonSchema).readOnly !== true)) as Record<
    string,
    JsonSchema
  >;
  const required = ((schema.required ?? []) as string[]).filter((name) => name in properties);
  // Past the depth cap only the required members grow: a recursive schema must end somewhere.
  const names = depth >= MAX_DEPTH ? required : Object.keys(properties);
  const model = Object.fromEntries(names.map((name) => [name, arbitraryFor(properties[name], options, depth + 1)]));
  const known = fc.record(model, { requiredKeys: required });
  const extra = schema.additionalProperties;
  if (!extra || depth >= MAX_DEPTH || Object.keys(properties).length > 0) return known;
  // A map (`Type.Record`): a few keys of the pattern its `propertyNames` / `patternProperties` allow.
  const valueSchema = extra === true ? undefined : extra;
  const keyArb = schema.propertyNames ? (stringArbitrary(schema.propertyNames) as fc.Arbitrary<string>) : fc.string({ minLength: 1, maxLength: 12 });
  return fc.dictionary(keyArb, arbitraryFor(valueSchema, options, depth + 1), { maxKeys: 3 });
}

function arrayArbitrary(schema: JsonSchema, options: ArbitraryOptions, depth: number): fc.Arbitrary<unknown> {
  const minLength = schema.minItems ?? 0;
  const maxLength = Math.max(minLength, Math.min(schema.maxItems ?? MAX_ITEMS, depth >= MAX_DEPTH ? minLength : MAX_ITEMS));
  if (Array.isArray(schema.prefixItems)) return fc.tuple(...schema.prefixItems.map((item: JsonSchema) => arbitraryFor(item, options, depth + 1)));
  const items = arbitraryFor(schema.items, options, depth + 1);
  return schema.uniqueItems ? fc.uniqueArray(items, { minLength, maxLength, selector: (v) => JSON.stringify(v) }) : fc.array(items, { minLength, maxLength });
}

const FORMATS: Record<string, () => fc.Arbitrary<string>> = {
  uuid: () => fc.uuid({ version: 4 }),
  email: () => fc.emailAddress(),
  'date-time': () => fc.date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString()),
  date: () => fc.date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10)),
  time: () => fc.date({ noInvalidDate: true }).map((d) => d.toISOString().slice(11, 19) + 'Z'),
  uri: () => fc.webUrl(),
  url: () => fc.webUrl(),
  hostname: () => fc.domain(),
  ipv4: () => fc.ipV4(),
  ipv6: () => fc.ipV6(),
  regex: () => fc.constantFrom('^a+$', '[0-9]{3}', '.*'),
  binary: () => fc.string(),
};

function stringArbitrary(schema: JsonSchema): fc.Arbitrary<unknown> {
  const minLength = schema.minLength ?? 0;
  const maxLength = Math.max(minLength, Math.min(schema.maxLength ?? MAX_STRING, MAX_STRING));
  const fits = (s: string) => [...s].length >= minLength && (schema.maxLength === undefined || [...s].length <= schema.maxLength);
  if (schema.format && FORMATS[schema.format]) return FORMATS[schema.format]().filter(fits);
  if (typeof schema.pattern === 'string') {
    let pattern: RegExp;
    try {
      pattern = new RegExp(schema.pattern, 'u');
    } catch {
      return fc.string({ minLength, maxLength });
    }
    // Invalid values are the hostile phase's job: the generated ones match.
    return fc.stringMatching(pattern).filter(fits);
  }
  return fc.string({ minLength, maxLength, unit: fc.oneof({ arbitrary: fc.integer({ min: 0x20, max: 0x7e }).map((code) => String.fromCharCode(code)), weight: 8 }, { arbitrary: fc.constantFrom('é', '中', '😀', '\n', '"', "'", '\\'), weight: 2 }) });
}

function numberArbitrary(schema: JsonSchema, integer: boolean): fc.Arbitrary<number> {
  let min: number | undefined = schema.minimum;
  let max: number | undefined = schema.maximum;
  if (typeof schema.exclusiveMinimum === 'number') min = schema.exclusiveMinimum + (integer ? 1 : Number.EPSILON * Math.max(1, Math.abs(schema.exclusiveMinimum)));
  if (typeof schema.exclusiveMaximum === 'number') max = schema.exclusiveMaximum - (integer ? 1 : Number.EPSILON * Math.max(1, Math.abs(schema.exclusiveMaximum)));
  if (integer) {
    const lo = Math.max(Math.ceil(min ?? -1_000_000), Number.MIN_SAFE_INTEGER);
    const hi = Math.min(Math.floor(max ?? 1_000_000), Number.MAX_SAFE_INTEGER);
    return fc.integer({ min: lo, max: Math.max(lo, hi) });
  }
  return fc.double({ min: min ?? -1e9, max: max ?? 1e9, noNaN: true, noDefaultInfinity: true });
}

/** Any JSON value, kept small (a `Type.Unknown` member: config objects, hook bodies). */
export function anyJson(): fc.Arbitrary<unknown> {
  return fc.jsonValue({ maxDepth: 2 }).map((value) => JSON.parse(JSON.stringify(value)));
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** A random v4 uuid (a resource nobody has). */
export const randomUuid = (): string => crypto.randomUUID();
