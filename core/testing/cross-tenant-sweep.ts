import type { CompiledRoute } from '../http/route-registry';
import { SHARED_RESOURCE } from '../http/schemas';
import type { TestKernel, TestTenant } from './test-kernel';
import { resourceKindsIn, sampleBody, withResourceIds } from './cross-tenant-bodies';
import { randomUuid, refusedAtMember, resourceMembers, withMember, type ResourceMember, type SchemaNode } from './cross-tenant-members';

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

/**
 * A valid body for a route whose body the sweep cannot guess from its schema, keyed by
 * `METHOD /path`: given the caller's ids by kind (its path ids and every kind a member
 * names) and, for a member's case, that member's field path (a member that only applies
 * to some bodies, such as a step's `agent_uuid`, gets a body where it applies). The
 * member is then set to each id the sweep tries. `undefined`: the sweep's own sample.
 */
export type BodyFixture = (ids: Record<string, string>, member?: string) => unknown;
export type BodyFixtures = Record<string, BodyFixture>;

export interface SweepOptions {
  /** Bodies for routes the sweep cannot build one for (a plugin's `testing.ts` exports them as `bodies`). */
  bodies?: BodyFixtures;
  /**
   * Members no body can sweep, keyed by `METHOD /path member`, with the reason (a task's
   * `campaign_uuid` cannot be changed at all): listed as skipped, with that reason.
   * A plugin's `testing.ts` exports them as `unswept`.
   */
  unswept?: Record<string, string>;
  /** Sweep only these routes (a plugin's own test); all tenant routes otherwise. */
  only?: (route: CompiledRoute) => boolean;
}

export interface SweepResult {
  route: string;
  /** For a body or query member's case: its field path. */
  member?: string;
  problem?: string;
  /** Why a member could not be swept (listed by the sweep's test, never silently dropped). */
  skipped?: string;
}

/**
 * The cross-tenant sweep, generated from the route registry, in two parts:
 *
 * - every tenant route that takes an id is called by one tenant with another tenant's
 *   ids and must answer 404; then the owner makes the same call and must not get a 404,
 *   which proves the ids were real and the 404 was isolation, not a typo;
 * - every body or query member that names a resource (`ResourceId(kind)`, or a member
 *   named `*_uuid`/`*_uuids` whose kind the fixtures tell) is given another tenant's
 *   resource of that kind, then a random uuid: a write must answer 404 or a 422 naming
 *   the member and write no row; a read may answer 2xx only without the foreign id in it.
 *   The owner's own resource in the same member must then not be refused, which proves
 *   the body was otherwise valid (see cross-tenant-members.ts).
 *
 * Each path parameter must name its resource kind (`ResourceId(kind)`), and each kind
 * needs a fixture; a route without them is reported, so the sweep grows with every
 * plugin instead of silently skipping new routes. A member whose kind nothing tells, or
 * that no fixture makes, comes back as `skipped` with the reason.
 */
export async function sweepCrossTenant(kit: TestKernel, fixtures: ResourceFixtures, options: SweepOptions = {}): Promise<SweepResult[]> {
  const routes = kit.kernel.registry.list().filter((route) => route.auth === 'tenant' && (options.only?.(route) ?? true));
  const results: SweepResult[] = [];
  for (const route of routes) {
    const name = `${route.method} ${route.path}`;
    const kinds = paramKinds(route);
    const missingKind = Object.entries(kinds).find(([, kind]) => !kind);
    if (missingKind) {
      results.push({ route: name, problem: `path parameter "${missingKind[0]}" does not name its resource kind (use ResourceId(kind))` });
      continue;
    }
    const missingFixture = Object.values(kinds).find((kind) => kind !== SHARED_RESOURCE && !fixtures[kind!]);
    if (missingFixture) {
      results.push({ route: name, problem: `no fixture creates a "${missingFixture}" (add one to the plugin's testing fixtures)` });
      continue;
    }
    const body = options.bodies?.[name];
    // Nothing here belongs to a tenant (a catalog entry every tenant reads): nothing to leak.
    if (route.path.includes(':') && !Object.values(kinds).every((kind) => kind === SHARED_RESOURCE)) {
      results.push(await sweepPathIds(kit, route, kinds, fixtures, body));
    }
    results.push(...(await sweepMembers(kit, route, kinds, fixtures, body, options.unswept ?? {})));
  }
  return results;
}

type Kinds = Record<string, string | undefined>;

async function sweepPathIds(kit: TestKernel, route: CompiledRoute, kinds: Kinds, fixtures: ResourceFixtures, bodyFixture?: BodyFixture): Promise<SweepResult> {
  const name = `${route.method} ${route.path}`;
  const owner = await kit.createTenant();
  // Body members that name resources (a bulk update's record ids) get ids the owner has too.
  const bodyKinds = route.body ? resourceKindsIn(route.body).filter((kind) => fixtures[kind]) : [];
  const ids = await makeResources(kit, owner, fixtures, [...bodyKinds, ...pathKindsDeepestFirst(kinds)]);
  const path = fillPath(route, kinds, ids);
  const body = bodyFixture?.(ids) ?? (route.body ? withResourceIds(route.body, sampleBody(route.body), ids) : undefined);
  const call = (api: TestTenant['api']) => {
    const test = api[route.method.toLowerCase() as 'get'](path);
    return body === undefined ? test : test.send(body as object);
  };

  const attacker = await call(kit.api);
  if (attacker.status !== 404) {
    return { route: name, problem: `another tenant's ids answered ${attacker.status}, not 404: ${JSON.stringify(attacker.body).slice(0, 300)}` };
  }
  const own = await call(owner.api);
  if (own.status === 404 || own.status >= 500 || own.status === 422) {
    return { route: name, problem: `the owner's own call answered ${own.status}, so the sweep proved nothing: ${JSON.stringify(own.body).slice(0, 300)}` };
  }
  return { route: name };
}

async function sweepMembers(
  kit: TestKernel,
  route: CompiledRoute,
  kinds: Kinds,
  fixtures: ResourceFixtures,
  bodyFixture: BodyFixture | undefined,
  unswept: Record<string, string>,
): Promise<SweepResult[]> {
  const name = `${route.method} ${route.path}`;
  const known = Object.keys(fixtures);
  const members = [...resourceMembers('body', route.body, known), ...resourceMembers('query', route.query, known)];
  const results: SweepResult[] = [];
  const usable = members.filter((member) => {
    const reason = unswept[`${name} ${member.label}`];
    if (reason) results.push({ route: name, member: member.label, skipped: reason });
    else if (!member.kind) results.push({ route: name, member: member.label, skipped: 'names no resource kind a fixture makes (annotate it ResourceId(kind))' });
    else if (!fixtures[member.kind]) results.push({ route: name, member: member.label, skipped: `no fixture creates a "${member.kind}"` });
    return !reason && member.kind && fixtures[member.kind];
  });
  if (usable.length === 0) return results;

  const owner = await kit.createTenant();
  const other = await kit.createTenant();
  const memberKinds = [...new Set(usable.map((member) => member.kind!))];
  const bodyKinds = route.body ? resourceKindsIn(route.body).filter((kind) => fixtures[kind]) : [];
  const ownPath = Object.values(kinds);
  // A member of the path's own kind (a rule's destination agent) names another resource of the owner, not the path's.
  const ids = await makeResources(kit, owner, fixtures, [...memberKinds.filter((kind) => !ownPath.includes(kind)), ...bodyKinds, ...pathKindsDeepestFirst(kinds)]);
  const memberIds = { ...ids, ...(await makeResources(kit, owner, fixtures, memberKinds.filter((kind) => ownPath.includes(kind)))) };
  const foreign = await makeResources(kit, other, fixtures, memberKinds);
  const path = fillPath(route, kinds, ids);
  // An array stays as sampled (empty): withMember adds the item, from the item's own sample.
  const sample = (schema: SchemaNode) => {
    const value = sampleBody(schema);
    return Array.isArray(value) ? value : withResourceIds(schema, value, ids);
  };
  const call = (member: ResourceMember, id: string) => {
    const test = owner.api[route.method.toLowerCase() as 'get'](path);
    if (member.in === 'query') test.query({ [member.name]: member.many ? [id] : id });
    const base = bodyFixture?.(ids, member.label) ?? (route.body ? sample(route.body) : undefined);
    const body = member.in === 'body' ? withMember(base, member, id, sample) : base;
    return body === undefined ? test : test.send(body as object);
  };
  const tenants = [owner.tenant.uuid, other.tenant.uuid];

  const problems = new Map<ResourceMember, string>();
  for (const member of usable) {
    const cases: Array<[string, string]> = [["another tenant's", foreign[member.kind!]]];
    // A read filtered by an unknown id may just find nothing; only a foreign id can leak.
    if (route.method !== 'GET') cases.push(['a random', randomUuid()]);
    for (const [whose, id] of cases) {
      const before = await tenantRows(kit, tenants);
      const res = await call(member, id);
      const written = (await tenantRows(kit, tenants)) - before;
      const leaked = route.method === 'GET' ? res.status >= 300 || JSON.stringify(res.body).includes(id) : true;
      if (!refusedAtMember(res.status, res.body, member) && leaked) {
        const expected = route.method === 'GET' ? 'an answer without it' : `404 or a 422 at ${member.label}`;
        problems.set(member, `${whose} ${member.kind} answered ${res.status}, not ${expected}: ${JSON.stringify(res.body).slice(0, 300)}`);
        break;
      }
      if (written > 0) {
        problems.set(member, `${whose} ${member.kind} was refused but ${written} row(s) were written`);
        break;
      }
    }
  }
  // The owner's own ids last: they may write rows (and start background work) the refused calls above must not see.
  for (const member of usable) {
    if (problems.has(member)) continue;
    const own = await call(member, memberIds[member.kind!]);
    if (own.status === 404 || own.status === 422 || own.status >= 500) {
      problems.set(
        member,
        `the owner's own ${member.kind} answered ${own.status}, so the sweep proved nothing (give the route a body fixture, \`bodies\` in the plugin's testing.ts): ` +
          JSON.stringify(own.body).slice(0, 300),
      );
    }
  }
  for (const member of usable) results.push({ route: name, member: member.label, ...(problems.has(member) ? { problem: problems.get(member) } : {}) });
  return results;
}

/** Makes each kind once (deepest first: a fixture also makes its parents, so ids belong together). */
async function makeResources(kit: TestKernel, owner: TestTenant, fixtures: ResourceFixtures, kinds: Array<string | undefined>): Promise<Record<string, string>> {
  const ids: Record<string, string> = {};
  for (const kind of kinds) if (kind && kind !== SHARED_RESOURCE && !ids[kind]) Object.assign(ids, await fixtures[kind](owner, kit));
  return ids;
}

const pathKindsDeepestFirst = (kinds: Kinds) => Object.values(kinds).reverse();

/**
 * A shared key (a flow app's uid) is the one a fixture returned as `:param` (a connection's
 * app), else the route's own schema example, else its first listed value.
 */
function fillPath(route: CompiledRoute, kinds: Kinds, ids: Record<string, string>): string {
  return route.path.replace(/:([A-Za-z0-9_]+)/g, (_, param: string) => ids[kinds[param]!] ?? ids[`:${param}`] ?? sharedKey(route, param));
}

function sharedKey(route: CompiledRoute, param: string): string {
  const member = (route.params as { properties?: Record<string, { examples?: string[]; enum?: string[] }> } | undefined)?.properties?.[param];
  return member?.examples?.[0] ?? member?.enum?.[0] ?? param;
}

/** Rows of these tenants in every tenant-scoped table: a refused request must add none. */
async function tenantRows(kit: TestKernel, tenants: string[]): Promise<number> {
  const connection = kit.kernel.orm.em.fork().getConnection();
  const tables: Array<{ table_name: string }> = await connection.execute(
    // The bus's tables come and go with background delivery, not with the request.
    "select table_name from information_schema.columns where column_name = 'tenant_uuid' and table_schema = current_schema() and table_name not like 'bus\\_%'",
  );
  if (tables.length === 0) return 0;
  const counts = tables.map(({ table_name }) => `select count(*)::int as n from "${table_name}" where tenant_uuid in (?, ?)`).join(' union all ');
  const rows: Array<{ total: number }> = await connection.execute(
    `select coalesce(sum(n), 0)::int as total from (${counts}) as c`,
    tables.flatMap(() => tenants),
  );
  return rows[0].total;
}

function paramKinds(route: CompiledRoute): Record<string, string | undefined> {
  const properties = (route.params as { properties?: Record<string, { 'x-resource'?: string }> } | undefined)?.properties ?? {};
  const names = [...route.path.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => m[1]);
  return Object.fromEntries(names.map((name) => [name, properties[name]?.['x-resource']]));
}
