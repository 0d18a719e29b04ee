import fs from 'node:fs';
import path from 'node:path';
import { coreServices, definePlugin, defineRoute, ResourceId, Type } from '../../../core';
import { installedPluginDirs } from '../../../core/plugin/plugin-source';
import { ROOT_DIR } from '../../../core/kernel/kernel';
import { startTestKernel, type TestKernel } from '../../../core/testing';
import { sweepCrossTenant, type ResourceFixtures } from '../../../core/testing/cross-tenant-sweep';
import { fixtureApps } from '../../plugins/flows/catalog/fixture-apps';

// Every installed plugin plus the examples: the sweep grows with each plugin.
const pluginDirs = [...installedPluginDirs(ROOT_DIR, []), ...installedPluginDirs(path.join(ROOT_DIR, 'none'), [path.join(ROOT_DIR, 'examples/plugins')])];

/** Each plugin's `testing.ts` exports the fixtures that make its resources. */
function collectFixtures(): ResourceFixtures {
  const all: ResourceFixtures = {};
  for (const dir of pluginDirs) {
    const file = path.join(dir, 'testing.ts');
    if (fs.existsSync(file)) Object.assign(all, require(file).fixtures);
  }
  return all;
}

describe('cross-tenant sweep', () => {
  let kit: TestKernel;
  beforeAll(async () => {
    // No built-in flow app is a `connect` app: the fixture apps give connections something to belong to.
    kit = await startTestKernel({ plugins: [...pluginDirs, fixtureApps] });
  });
  afterAll(() => kit?.stop());

  it("every route that takes an id answers 404 to another tenant's ids", async () => {
    const results = await sweepCrossTenant(kit, collectFixtures());
    expect(results.length).toBeGreaterThan(0);
    expect(results.filter((r) => r.problem)).toEqual([]);
  });
});

describe('the sweep itself', () => {
  // A deliberately leaky plugin: it looks records up with the tenant filter off.
  const leaky = definePlugin({
    id: 'leaky',
    dependsOn: ['notes'],
    deps: { http: coreServices.http, orm: coreServices.orm },
    init({ http }) {
      http.route(
        defineRoute({
          method: 'GET',
          path: '/api/v1/leaky/:uuid',
          summary: 'Reads any tenant’s note',
          params: Type.Object({ uuid: ResourceId('notes.note') }),
          handler: async ({ params, em }) => {
            const [row] = await em.getConnection().execute('select title from example_notes where uuid = ?', [params.uuid]);
            return { data: row ?? null };
          },
        }),
      );
      http.route(
        defineRoute({ method: 'GET', path: '/api/v1/unlabelled/:uuid', summary: 'No kind', params: Type.Object({ uuid: Type.String() }), handler: () => ({}) }),
      );
    },
  });

  it('catches a route that leaks across tenants, and one whose id names no kind', async () => {
    const kit = await startTestKernel({ plugins: [path.join(ROOT_DIR, 'examples/plugins/notes'), leaky] });
    try {
      const problems = (await sweepCrossTenant(kit, collectFixtures())).filter((r) => r.problem);
      expect(problems).toEqual([
        { route: 'GET /api/v1/leaky/:uuid', problem: expect.stringContaining("another tenant's ids answered 200") },
        { route: 'GET /api/v1/unlabelled/:uuid', problem: expect.stringContaining('does not name its resource kind') },
      ]);
    } finally {
      await kit.stop();
    }
  });
});
