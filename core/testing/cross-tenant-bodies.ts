import crypto from 'node:crypto';
import { Value } from '@sinclair/typebox/value';
import type { TSchema } from '@sinclair/typebox';
import { SHARED_RESOURCE } from '../http/schemas';
import type { SchemaNode } from './cross-tenant-members';

/** The request bodies the cross-tenant sweep builds from a route's body schema, with the caller's ids in them. */

/** Resource kinds named by `ResourceId(kind)` members anywhere in a body schema. */
export function resourceKindsIn(schema: SchemaNode): string[] {
  const kinds = new Set<string>();
  const walk = (node: SchemaNode | undefined) => {
    if (!node) return;
    if (node['x-resource'] && node['x-resource'] !== SHARED_RESOURCE) kinds.add(node['x-resource']);
    Object.values(node.properties ?? {}).forEach(walk);
    walk(node.items);
    node.anyOf?.forEach(walk);
  };
  walk(schema);
  return [...kinds];
}

/** The sample body with every resource-naming string (and array of them) set to the owner's id of that kind. */
export function withResourceIds(schema: SchemaNode, value: unknown, ids: Record<string, string>): unknown {
  const kind = schema['x-resource'];
  if (kind && ids[kind] && (value === undefined || typeof value === 'string')) return ids[kind];
  if (schema.items && Array.isArray(value)) {
    const items = value.length > 0 ? value : schema.items['x-resource'] || schema.items.properties ? [undefined] : [];
    return items.map((item) => withResourceIds(schema.items!, item ?? (schema.items!.properties ? {} : undefined), ids));
  }
  if (schema.properties && value && typeof value === 'object' && !Array.isArray(value)) {
    const filled: Record<string, unknown> = { ...(value as Record<string, unknown>) };
    for (const [name, member] of Object.entries(schema.properties)) {
      if (name in filled || resourceKindsIn(member).length > 0) filled[name] = withResourceIds(member, filled[name], ids);
    }
    return filled;
  }
  return value;
}

/**
 * The body schema's first example, or else the smallest value TypeBox can make from
 * its writable members (an empty object when it cannot: a partial update's body).
 * A body the owner's call then refuses with 422 is reported, so a route whose
 * required body cannot be guessed gets an example instead of a silent pass.
 */
export function sampleBody(schema: TSchema): unknown {
  const examples = (schema as { examples?: unknown[] }).examples;
  if (examples?.length) return structuredClone(examples[0]);
  const properties = (schema as { properties?: Record<string, { readOnly?: boolean }> }).properties;
  const writable = properties
    ? ({ ...schema, properties: Object.fromEntries(Object.entries(properties).filter(([, member]) => member.readOnly !== true)), required: ((schema as { required?: string[] }).required ?? []).filter((name) => properties[name]?.readOnly !== true) } as TSchema)
    : schema;
  try {
    return Value.Create(writable);
  } catch {
    return minimalValue(schema as SchemaNode);
  }
}

type Described = SchemaNode & { required?: string[]; default?: unknown; const?: unknown; enum?: unknown[]; format?: string; minLength?: number; minimum?: number; minItems?: number };

/** The smallest value of a schema TypeBox cannot create (a string with a format, a pattern): required members only, a guess per leaf. */
function minimalValue(schema: SchemaNode): unknown {
  const node = schema as Described;
  if (node.default !== undefined) return structuredClone(node.default);
  const example = (node as { examples?: unknown[] }).examples?.[0];
  if (example !== undefined) return structuredClone(example);
  if (node.const !== undefined) return node.const;
  if (node.enum?.length) return node.enum[0];
  const branch = [...(node.anyOf ?? []), ...(node.oneOf ?? [])].find((option) => option.type !== 'null');
  if (branch) return minimalValue(branch);
  if (node.properties) {
    const required = (node.required ?? []).filter((name) => node.properties![name] && !node.properties![name].readOnly);
    return Object.fromEntries(required.map((name) => [name, minimalValue(node.properties![name])]));
  }
  switch (node.type) {
    case 'array':
      return Array.from({ length: node.minItems ?? 0 }, () => minimalValue(node.items!));
    case 'string':
      if (node.format === 'uuid') return crypto.randomUUID();
      if (node.format === 'date-time') return new Date().toISOString();
      return 'x'.repeat(Math.max(1, node.minLength ?? 1));
    case 'integer':
    case 'number':
      return node.minimum ?? 0;
    case 'boolean':
      return false;
    default:
      return null;
  }
}
