import fs from 'node:fs';
import path from 'node:path';
import { installedPluginDirs } from '../../../core/plugin/plugin-source';
import { ROOT_DIR } from '../../../core/kernel/kernel';
import { startTestKernel, type TestKernel, type TestTenant } from '../../../core/testing';
import type { BodyFixtures, ResourceFixtures } from '../../../core/testing/cross-tenant-sweep';
import { fixtureApps } from '../../plugins/flows/catalog/fixture-apps';
import type { JsonSchema } from './schema-arbitrary';

/** Every plugin in plugins/: the fuzzer covers whatever the product ships. */
export const PLUGIN_DIRS = installedPluginDirs(ROOT_DIR, []);

/** One tenant's side of the fuzz: its client, and the ids of what it owns, by resource kind. */
export interface FuzzTenant extends TestTenant {
  ids: Record<string, string>;
  /** A live webhook flow's hook path (`/api/v1/hooks/…`) on this tenant's host. */
  hookPath?: string;
}

export interface Operation {
  method: string;
  /** The OpenAPI path, `/api/v1/agents/{uuid}`. */
  path: string;
  auth: 'tenant' | 'tenant-host' | 'admin' | 'public';
  /** `METHOD /api/v1/agents/:uuid`, as the registry and the body fixtures name it. */
  name: string;
  pathParams: Array<{ name: string; schema: JsonSchema }>;
  queryParams: Array<{ name: string; schema: JsonSchema; required: boolean }>;
  /** The JSON body schema, or the multipart form's. */
  body?: JsonSchema;
  multipart: boolean;
}

export interface FuzzWorld {
  kit: TestKernel;
  document: JsonSchema;
  operations: Operation[];
  a: FuzzTenant;
  b: FuzzTenant;
  /** The tenant admin operations may change and delete (never `a` or `b`). */
  victimSlug: string;
  bodies: BodyFixtures;
  /** Fixtures that failed to make their resource (their routes get random ids only). */
  fixtureErrors: string[];
}

function collect(name: 'fixtures' | 'bodies'): Record<string, any> {
  const all: Record<string, any> = {};
  for (const dir of PLUGIN_DIRS) {
    const file = path.join(dir, 'testing.ts');
    if (fs.existsSync(file)) Object.assign(all, require(file)[name]);
  }
  return all;
}

/**
 * Boots a kernel with every plugin (plus the fixture flow apps, which give connections
 * an app), makes two tenants, gives each one resource of every kind the plugins'
 * testing fixtures make, and reads the operations from the OpenAPI document.
 */
export async function startFuzzWorld(config: Record<string, unknown> = {}): Promise<FuzzWorld> {
  const kit = await startTestKernel({ plugins: [...PLUGIN_DIRS, fixtureApps], config });
  try {
    const fixtures: ResourceFixtures = collect('fixtures');
    const fixtureErrors: string[] = [];
    const a = await populate(kit, { ...kit, ids: {} }, fixtures, fixtureErrors);
    const b = await populate(kit, { ...(await kit.createTenant()), ids: {} }, fixtures, fixtureErrors);
    const victimSlug = (await kit.createTenant()).tenant.slug;
    const res = await kit.client({}).get('/api/v1/openapi.json').expect(200);
    const document = res.body as JsonSchema;
    return { kit, document, operations: operationsOf(kit, document), a, b, victimSlug, bodies: collect('bodies'), fixtureErrors };
  } catch (error) {
    await kit.stop();
    throw error;
  }
}

/**
 * Two new tenants with one resource of each kind, and a new tenant for admin operations
 * to change: the phase before ended with the DELETE operations (which would leave the
 * next one only 404s) and fuzzed the tenants' settings (which fixtures may rely on).
 */
export async function repopulate(world: FuzzWorld): Promise<void> {
  const fixtures: ResourceFixtures = collect('fixtures');
  world.a = await populate(world.kit, { ...(await world.kit.createTenant()), ids: {} }, fixtures, world.fixtureErrors);
  world.b = await populate(world.kit, { ...(await world.kit.createTenant()), ids: {} }, fixtures, world.fixtureErrors);
  world.victimSlug = (await world.kit.createTenant()).tenant.slug;
}

/**
 * One of each kind. A fixture returns its kind and its parents; results with more kinds
 * are merged last, so a nested resource's parents are the ones it belongs to.
 */
async function populate(kit: TestKernel, tenant: FuzzTenant, fixtures: ResourceFixtures, errors: string[]): Promise<FuzzTenant> {
  const made: Array<Record<string, string>> = [];
  for (const [kind, fixture] of Object.entries(fixtures)) {
    try {
      made.push(await fixture(tenant, kit));
    } catch (error) {
      errors.push(`${kind}: ${(error as Error).message.split('\n')[0]}`);
    }
  }
  made.sort((x, y) => Object.keys(x).length - Object.keys(y).length).forEach((ids) => Object.assign(tenant.ids, ids));
  tenant.hookPath = await liveHook(tenant);
  return tenant;
}

/** A deployed flow whose webhook trigger listens: the `tenant-host` route then reaches a flow. */
async function liveHook(tenant: TestTenant): Promise<string> {
  const flow = (await tenant.api.post('/api/v1/flow').send({ name: 'fuzz hook' }).expect(201)).body.data.uuid;
  const trigger = (await tenant.api.post(`/api/v1/flow/${flow}/steps`).send({ app_uid: 'webhook', trigger_key: 'catch_hook' }).expect(201)).body.data;
  await tenant.api.post(`/api/v1/flow/${flow}/deploy`).expect(200);
  return new URL(trigger.config.hook_url).pathname;
}

/** The document's operations, with the auth the registry gives each (the document only implies it). */
function operationsOf(kit: TestKernel, document: JsonSchema): Operation[] {
  const auth = new Map(kit.kernel.registry.list().map((route) => [`${route.method} ${route.path}`, route.auth]));
  const operations: Operation[] = [];
  for (const [docPath, methods] of Object.entries(document.paths as Record<string, Record<string, JsonSchema>>)) {
    for (const [method, op] of Object.entries(methods)) {
      const name = `${method.toUpperCase()} ${docPath.replace(/\{([^}]+)\}/g, ':$1')}`;
      const parameters: JsonSchema[] = op.parameters ?? [];
      const content = op.requestBody?.content ?? {};
      operations.push({
        method: method.toUpperCase(),
        path: docPath,
        name,
        auth: (auth.get(name) ?? 'public') as Operation['auth'],
        pathParams: parameters.filter((p) => p.in === 'path').map((p) => ({ name: p.name, schema: p.schema })),
        queryParams: parameters.filter((p) => p.in === 'query').map((p) => ({ name: p.name, schema: p.schema, required: p.required === true })),
        body: content['multipart/form-data']?.schema ?? content['application/json']?.schema,
        multipart: Boolean(content['multipart/form-data']),
      });
    }
  }
  // Deletions last, admin last of all: what they remove, the other operations still use.
  const rank = (op: Operation) => (op.auth === 'admin' ? 2 : 0) + (op.method === 'DELETE' ? 1 : 0);
  return operations.sort((x, y) => rank(x) - rank(y));
}
