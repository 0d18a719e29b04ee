import { Value } from '@sinclair/typebox/value';
import type { TSchema } from '@sinclair/typebox';
import type { CompiledRoute } from '../http/route-registry';
import { SHARED_RESOURCE } from '../http/schemas';
import type { TestKernel, TestTenant } from './test-kernel';

/**
 * Creates a resource of one kind in the given tenant and returns the ids it made,
 * by kind: a nested resource returns its parents too, e.g.
 * `{ 'agents.agent': '…', 'agents.intent': '…' }`.
 */
/**
 * `kit` is there for resources no route makes (an approval only the model suggests):
 * such a fixture writes its row through `kit.kernel.orm`, in the owner's tenant.
 */
export type ResourceFixture = (owner: TestTenant, kit: TestKernel) => Promise<Record<string, string>>;
export type ResourceFixtures = Record<string, ResourceFixture>;

export interface SweepResult {
  route: string;
  problem?: string;
}

/**
 * The cross-tenant sweep, generated from the route registry: every tenant route
 * that takes an id is called by one tenant with another tenant's ids and must
 * answer 404; then the owner makes the same call and must not get a 404, which
 * proves the ids were real and the 404 was isolation, not a typo.
 *
 * Each path parameter must name its resource kind (`ResourceId(kind)`), and each
 * kind needs a fixture; a route without them is reported, so the sweep grows with
 * every plugin instead of silently skipping new routes.
 */
export async function sweepCrossTenant(kit: TestKernel, fixtures: ResourceFixtures): Promise<SweepResult[]> {
  const routes = kit.kernel.registry.list().filter((route) => route.auth === 'tenant' && route.path.includes(':'));
  const results: SweepResult[] = [];
  for (const route of routes) {
    const name = `${route.method} ${route.path}`;
    const kinds = paramKinds(route);
    const missingKind = Object.entries(kinds).find(([, kind]) => !kind);
    if (missingKind) {
      results.push({ route: name, problem: `path parameter "${missingKind[0]}" does not name its resource kind (use ResourceId(kind))` });
      continue;
    }
    // Nothing here belongs to a tenant (a catalog entry every tenant reads): nothing to leak.
    if (Object.values(kinds).every((kind) => kind === SHARED_RESOURCE)) continue;
    const missingFixture = Object.values(kinds).find((kind) => !fixtures[kind!]);
    if (missingFixture) {
      results.push({ route: name, problem: `no fixture creates a "${missingFixture}" (add one to the plugin's testing fixtures)` });
      continue;
    }
    const owner = await kit.createTenant();
    const ids: Record<string, string> = {};
    // Body members that name resources (a bulk update's record ids) get ids the owner has too.
    const bodyKinds = route.body ? resourceKindsIn(route.body).filter((kind) => fixtures[kind]) : [];
    // Deepest kind first: its fixture also makes the parents, so the ids belong together.
    for (const kind of [...bodyKinds, ...Object.values(kinds).reverse()]) if (!ids[kind!]) Object.assign(ids, await fixtures[kind!](owner, kit));
    const path = route.path.replace(/:([A-Za-z0-9_]+)/g, (_, param: string) => ids[kinds[param]!]);
    const body = route.body ? withResourceIds(route.body, sampleBody(route.body), ids) : undefined;
    const call = (api: TestTenant['api']) => {
      const test = api[route.method.toLowerCase() as 'get'](path);
      return body === undefined ? test : test.send(body as object);
    };

    const attacker = await call(kit.api);
    if (attacker.status !== 404) {
      results.push({ route: name, problem: `another tenant's ids answered ${attacker.status}, not 404: ${JSON.stringify(attacker.body).slice(0, 300)}` });
      continue;
    }
    const own = await call(owner.api);
    if (own.status === 404 || own.status >= 500 || own.status === 422) {
      results.push({ route: name, problem: `the owner's own call answered ${own.status}, so the sweep proved nothing: ${JSON.stringify(own.body).slice(0, 300)}` });
      continue;
    }
    results.push({ route: name });
  }
  return results;
}

function paramKinds(route: CompiledRoute): Record<string, string | undefined> {
  const properties = (route.params as { properties?: Record<string, { 'x-resource'?: string }> } | undefined)?.properties ?? {};
  const names = [...route.path.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => m[1]);
  return Object.fromEntries(names.map((name) => [name, properties[name]?.['x-resource']]));
}

type SchemaNode = TSchema & { 'x-resource'?: string; properties?: Record<string, SchemaNode>; items?: SchemaNode; anyOf?: SchemaNode[] };

/** Resource kinds named by `ResourceId(kind)` members anywhere in a body schema. */
function resourceKindsIn(schema: SchemaNode): string[] {
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
function withResourceIds(schema: SchemaNode, value: unknown, ids: Record<string, string>): unknown {
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
function sampleBody(schema: TSchema): unknown {
  const examples = (schema as { examples?: unknown[] }).examples;
  if (examples?.length) return structuredClone(examples[0]);
  const properties = (schema as { properties?: Record<string, { readOnly?: boolean }> }).properties;
  const writable = properties
    ? ({ ...schema, properties: Object.fromEntries(Object.entries(properties).filter(([, member]) => member.readOnly !== true)), required: ((schema as { required?: string[] }).required ?? []).filter((name) => properties[name]?.readOnly !== true) } as TSchema)
    : schema;
  try {
    return Value.Create(writable);
  } catch {
    return {};
  }
}
