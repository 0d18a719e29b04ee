import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { TSchema } from '@sinclair/typebox';
import { ValidationError, type FieldErrors } from './http-errors';

/**
 * Bodies are validated as sent; params and query strings are coerced to the
 * schema's types ("5" -> 5). Both fill in schema defaults. Validators are compiled
 * once when a route is registered, never per request.
 */
function createAjv(coerceTypes: boolean): Ajv {
  const ajv = new Ajv({ allErrors: true, coerceTypes: coerceTypes ? 'array' : false, useDefaults: true, strict: true });
  addFormats(ajv);
  // Annotation the cross-tenant sweep and the OpenAPI document read; no validation.
  ajv.addKeyword({ keyword: 'x-resource', schemaType: 'string' });
  // Names a schema the OpenAPI document shares as a component; no validation.
  ajv.addKeyword({ keyword: 'x-component', schemaType: 'string' });
  return ajv;
}

const bodyAjv = createAjv(false);
const stringAjv = createAjv(true);

export type Validator = (value: unknown) => FieldErrors | null;

export function compileValidator(schema: TSchema, source: 'body' | 'query' | 'params'): Validator {
  const validate: ValidateFunction = (source === 'body' ? bodyAjv : stringAjv).compile(withReadOnlyOptional(schema));
  const stripReadOnly = compileReadOnlyStripper(schema);
  const lowerUuids = compileUuidLowercaser(schema);
  return (value) => {
    stripReadOnly(value);
    if (!validate(value)) return toFieldErrors(validate.errors ?? [], source);
    lowerUuids(value);
    return null;
  };
}

export function validateOrThrow(validator: Validator, value: unknown): void {
  const errors = validator(value);
  if (errors) throw new ValidationError(errors);
}

/**
 * One schema serves reads and writes: on the way in, `readOnly` members are not
 * required (the server fills them in).
 */
function withReadOnlyOptional(schema: any): any {
  if (!schema || typeof schema !== 'object') return schema;
  if (Array.isArray(schema)) return schema.map(withReadOnlyOptional);
  const copy: any = {};
  for (const [key, value] of Object.entries(schema)) {
    copy[key] = key === 'properties' ? Object.fromEntries(Object.entries(value as object).map(([name, inner]) => [name, withReadOnlyOptional(inner)])) : withReadOnlyOptional(value);
  }
  if (Array.isArray(schema.required) && schema.properties) {
    copy.required = schema.required.filter((name: string) => schema.properties[name]?.readOnly !== true);
    if (copy.required.length === 0) delete copy.required;
  }
  return copy;
}

/**
 * Members marked `readOnly` (uuid, created_at, ...) are dropped before validation,
 * so a client can send back what it read; they are ignored, not refused.
 */
function compileReadOnlyStripper(schema: any): (value: unknown) => void {
  if (!schema || typeof schema !== 'object') return () => {};
  if (schema.type === 'object' && schema.properties) {
    const readOnly = Object.keys(schema.properties).filter((key) => schema.properties[key].readOnly === true);
    const nested = Object.entries(schema.properties)
      .filter(([, inner]: [string, any]) => inner.readOnly !== true)
      .map(([key, inner]) => [key, compileReadOnlyStripper(inner)] as const);
    return (value) => {
      if (!value || typeof value !== 'object' || Array.isArray(value)) return;
      const record = value as Record<string, unknown>;
      for (const key of readOnly) delete record[key];
      for (const [key, strip] of nested) if (key in record) strip(record[key]);
    };
  }
  if (schema.type === 'array' && schema.items) {
    const strip = compileReadOnlyStripper(schema.items);
    return (value) => {
      if (Array.isArray(value)) for (const item of value) strip(item);
    };
  }
  const variants: any[] = schema.anyOf ?? schema.oneOf ?? schema.allOf;
  if (Array.isArray(variants)) {
    const strippers = variants.map(compileReadOnlyStripper);
    return (value) => strippers.forEach((strip) => strip(value));
  }
  return () => {};
}

/**
 * UUIDs are accepted in any case (RFC 9562) and handed on in lower case, the way they
 * are stored and answered, so that code comparing them as strings finds them equal.
 * Only members the schema declares as `format: uuid` are touched.
 */
const none = () => {};

function compileUuidLowercaser(schema: any): (value: unknown) => void {
  if (!schema || typeof schema !== 'object') return none;
  if (schema.format === 'uuid') return none; // handled by the parent, which can replace the value
  if (schema.type === 'object' && schema.properties) {
    const uuids = Object.keys(schema.properties).filter((key) => schema.properties[key].format === 'uuid');
    const nested = Object.entries(schema.properties)
      .map(([key, inner]) => [key, compileUuidLowercaser(inner)] as const)
      .filter(([, lower]) => lower !== none);
    if (uuids.length === 0 && nested.length === 0) return none;
    return (value) => {
      if (!value || typeof value !== 'object' || Array.isArray(value)) return;
      const record = value as Record<string, unknown>;
      for (const key of uuids) if (typeof record[key] === 'string') record[key] = (record[key] as string).toLowerCase();
      for (const [key, lower] of nested) if (Object.hasOwn(record, key)) lower(record[key]);
    };
  }
  if (schema.type === 'array' && schema.items) {
    if (schema.items.format === 'uuid') {
      return (value) => {
        if (Array.isArray(value)) value.forEach((item, i) => typeof item === 'string' && (value[i] = item.toLowerCase()));
      };
    }
    const lower = compileUuidLowercaser(schema.items);
    return (value) => {
      if (Array.isArray(value)) for (const item of value) lower(item);
    };
  }
  const variants: any[] = schema.anyOf ?? schema.oneOf ?? schema.allOf;
  if (Array.isArray(variants)) {
    const lowers = variants.map(compileUuidLowercaser);
    return (value) => lowers.forEach((lower) => lower(value));
  }
  return none;
}

/** ajv errors -> `{"guidelines.0.content": ["must be a string"]}`. */
export function toFieldErrors(errors: ErrorObject[], source: string): FieldErrors {
  // Keys are member names a client chose: with a prototype, `constructor` would already be "there".
  const out: FieldErrors = Object.create(null);
  const add = (path: string, message: string) => {
    const key = path === '' ? source : path;
    (out[key] ??= []).includes(message) || out[key].push(message);
  };
  // A union of literals fails once per literal: say it once, naming every allowed value.
  const constsAt = new Map<string, unknown[]>();
  for (const error of errors) {
    if (error.keyword === 'const') (constsAt.get(error.instancePath) ?? constsAt.set(error.instancePath, []).get(error.instancePath)!).push(error.params.allowedValue);
  }
  for (const error of errors) {
    const base = error.instancePath.split('/').slice(1).map(unescapePointer).join('.');
    const join = (member: string) => (base ? `${base}.${member}` : member);
    switch (error.keyword) {
      case 'required':
        add(join(error.params.missingProperty), 'is required');
        break;
      case 'additionalProperties':
        add(join(error.params.additionalProperty), 'is not allowed');
        break;
      case 'type':
        add(base, `must be ${article(String(error.params.type))}`);
        break;
      case 'format':
        add(base, `must be a valid ${error.params.format}`);
        break;
      case 'enum':
        add(base, `must be one of: ${(error.params.allowedValues as unknown[]).join(', ')}`);
        break;
      case 'const': {
        const allowed = constsAt.get(error.instancePath)!;
        add(base, allowed.length === 1 ? `must be ${JSON.stringify(allowed[0])}` : `must be one of: ${allowed.join(', ')}`);
        break;
      }
      case 'anyOf':
      case 'oneOf':
        // The branch errors that precede it say more; keep this only when alone.
        if (!errors.some((other) => other !== error && other.instancePath.startsWith(error.instancePath) && other.keyword !== error.keyword)) {
          add(base, 'does not match any allowed shape');
        }
        break;
      default:
        add(base, error.message ?? 'is invalid');
    }
  }
  return out;
}

function article(type: string): string {
  const names = type.split(',');
  const described = names.map((name) => (name === 'integer' ? 'an integer' : name === 'object' || name === 'array' ? `an ${name}` : name === 'null' ? 'null' : `a ${name}`));
  return described.join(' or ');
}

function unescapePointer(segment: string): string {
  return segment.replace(/~1/g, '/').replace(/~0/g, '~');
}
