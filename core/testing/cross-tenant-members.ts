import crypto from 'node:crypto';
import type { TSchema } from '@sinclair/typebox';
import { SHARED_RESOURCE } from '../http/schemas';

/**
 * The body and query members that name another resource, found in a route's schemas:
 * a member annotated `ResourceId(kind)` (`x-resource`), or one named `*_uuid` / `*_uuids`
 * whose kind the fixtures tell (`campaign_uuid` is the `outreach.campaign` a fixture makes).
 */
export interface ResourceMember {
  in: 'body' | 'query';
  /** Where it sits in the body: names and array indexes. */
  at: Array<string | number>;
  /** The field path a 422 names, e.g. `steps.0.intent_uuid`. */
  label: string;
  /** The member's own name (a 422 must name it). */
  name: string;
  kind?: string;
  /** An array of ids (`contact_uuids`). */
  many: boolean;
  /** The schema at each step of `at`, so the objects made on the way are valid (an array's new item has its required members). */
  schemas: SchemaNode[];
}

export type SchemaNode = TSchema & {
  'x-resource'?: string;
  readOnly?: boolean;
  type?: string | string[];
  properties?: Record<string, SchemaNode>;
  items?: SchemaNode;
  anyOf?: SchemaNode[];
  oneOf?: SchemaNode[];
};

const NAMES_A_RESOURCE = /_uuids?$/;

/** The kind a member names: its annotation, else the one fixture kind its name ends with. */
export function memberKind(name: string, node: SchemaNode, kinds: string[]): string | undefined {
  const annotated = annotation(node);
  if (annotated) return annotated;
  if (!NAMES_A_RESOURCE.test(name)) return undefined;
  const stem = name.replace(NAMES_A_RESOURCE, '');
  const last = stem.split('_').pop()!;
  const named = (kind: string) => kind.slice(kind.indexOf('.') + 1).replace(/-/g, '_');
  const exact = kinds.filter((kind) => named(kind) === stem);
  if (exact.length === 1) return exact[0];
  const byLastWord = kinds.filter((kind) => named(kind) === last);
  return byLastWord.length === 1 ? byLastWord[0] : undefined;
}

function annotation(node: SchemaNode | undefined): string | undefined {
  if (!node) return undefined;
  if (node['x-resource']) return node['x-resource'];
  return annotation(node.items) ?? [...(node.anyOf ?? []), ...(node.oneOf ?? [])].map(annotation).find(Boolean);
}

const isArray = (node: SchemaNode): boolean =>
  node.type === 'array' || [...(node.anyOf ?? []), ...(node.oneOf ?? [])].some((branch) => branch.type === 'array');

/** Every writable member naming a resource, at any depth of objects, arrays and unions. */
export function resourceMembers(where: 'body' | 'query', schema: SchemaNode | undefined, kinds: string[]): ResourceMember[] {
  const found: ResourceMember[] = [];
  const walk = (node: SchemaNode | undefined, at: Array<string | number>, schemas: SchemaNode[]) => {
    if (!node || node.readOnly) return;
    for (const [name, child] of Object.entries(node.properties ?? {})) {
      if (child.readOnly) continue;
      const named = NAMES_A_RESOURCE.test(name) || annotation(child) !== undefined;
      // An object with its own members (a nested setting) is walked, not taken as an id.
      if (named && !child.properties) {
        if (annotation(child) === SHARED_RESOURCE) continue;
        const path = [...at, name];
        found.push({ in: where, at: path, label: path.join('.'), name, kind: memberKind(name, child, kinds), many: isArray(child), schemas: [...schemas, child] });
      } else walk(child, [...at, name], [...schemas, child]);
    }
    if (node.items) walk(node.items, [...at, 0], [...schemas, node.items]);
    for (const branch of [...(node.anyOf ?? []), ...(node.oneOf ?? [])]) if (branch.properties || branch.items) walk(branch, at, [...schemas.slice(0, -1), branch]);
  };
  walk(schema, [], []);
  // A union lists the same member in each branch: keep it once.
  return found.filter((member, index) => found.findIndex((other) => other.label === member.label) === index);
}

/**
 * A copy of `value` with the member set to `id` (in a one-item array for a list of ids),
 * making the objects and arrays on the way from `sample` (the smallest valid value of each).
 */
export function withMember(value: unknown, member: ResourceMember, id: string, sample: (schema: SchemaNode) => unknown): unknown {
  const root: any = structuredClone(value ?? {});
  let node = root;
  member.at.forEach((key, index) => {
    const last = index === member.at.length - 1;
    if (last) node[key] = member.many ? [id] : id;
    else {
      const made = () => {
        const value = sample(member.schemas[index]);
        if (typeof member.at[index + 1] === 'number') return Array.isArray(value) ? value : [];
        return value && typeof value === 'object' && !Array.isArray(value) ? value : {};
      };
      if (node[key] === null || typeof node[key] !== 'object') node[key] = made();
      // An array the sample left empty gets its first item from the item schema.
      if (Array.isArray(node[key]) && node[key].length === 0) node[key].push(sample(member.schemas[index + 1]) ?? {});
      node = node[key];
    }
  });
  return root;
}

export const randomUuid = () => crypto.randomUUID();

/** A 404, or a 422 that names the member: refused for the right reason, not for some other mistake in the body. */
export function refusedAtMember(status: number, body: unknown, member: ResourceMember): boolean {
  if (status === 404) return true;
  if (status !== 422) return false;
  const errors = (body as { errors?: Record<string, unknown> })?.errors ?? {};
  return Object.keys(errors).some((path) => path === member.label || path.startsWith(`${member.label}.`) || path.split('.').includes(member.name));
}
